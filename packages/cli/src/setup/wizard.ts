import type { ConfigField } from '@hermes-memory/core';
import { CliError } from '../errors';
import { CANCELLED, type Cancelled, type Prompter } from './prompter';
import {
  type FieldValue,
  type SetupAnswers,
  coerceFieldValue,
  fieldDefault,
  fieldVisible,
  maskSecret,
  recordAnswer,
} from './schema';

/**
 * Walk a provider's config schema interactively, in the reference's order: skip fields whose `when`
 * doesn't match, derive defaults with `defaultFrom`, pick choices from a list, mask secrets (blank
 * keeps an existing value, of which only the last four characters are shown).
 */
export async function runSchemaWizard(
  fields: readonly ConfigField[],
  prompter: Prompter,
  options: {
    env: Readonly<Record<string, string | undefined>>;
    existing?: Readonly<Record<string, unknown>>;
  },
): Promise<SetupAnswers | Cancelled> {
  const answers: SetupAnswers = { values: {}, env: {} };
  const collected: Record<string, FieldValue> = {};
  for (const field of fields) {
    if (!fieldVisible(field, collected)) continue;
    const label = field.description || field.key;
    const validate = (raw: string): string | undefined => {
      if (raw.trim() === '') return field.required && !field.secret ? `${field.key} is required` : undefined;
      try {
        coerceFieldValue(field, raw);
        return undefined;
      } catch (error) {
        return error instanceof CliError ? error.message : String(error);
      }
    };

    if (field.secret) {
      const current = field.envVar ? options.env[field.envVar] : undefined;
      const suffix = current ? ` (current ${maskSecret(current)}, blank to keep)` : '';
      if (field.url) prompter.note(`${field.key}: get one at ${field.url}`);
      const raw = await prompter.password(`${label}${suffix}`, {
        validate: (v) =>
          v.trim() === '' && field.required && !current ? `${field.key} is required` : undefined,
      });
      if (raw === CANCELLED) return CANCELLED;
      if (raw.trim() !== '') recordAnswer(answers, field, raw.trim());
      continue;
    }

    const existing = options.existing?.[field.key];
    const fallback = fieldDefault(field, collected);
    const initial =
      existing !== undefined && existing !== null && typeof existing !== 'object'
        ? String(existing)
        : fallback;
    let raw: string | Cancelled;
    if (field.choices && field.choices.length > 0) {
      raw = await prompter.select(
        label,
        field.choices.map((c) => ({ value: c, label: c })),
        initial !== undefined ? String(initial) : undefined,
      );
    } else if (field.type === 'boolean') {
      raw = await prompter.select(
        label,
        [
          { value: 'true', label: 'yes' },
          { value: 'false', label: 'no' },
        ],
        initial !== undefined ? String(initial) : undefined,
      );
    } else {
      raw = await prompter.text(label, {
        ...(initial !== undefined ? { initial: String(initial) } : {}),
        ...(field.url ? { placeholder: field.url } : {}),
        validate,
      });
    }
    if (raw === CANCELLED) return CANCELLED;
    if (raw.trim() === '') {
      if (fallback === undefined) continue;
      raw = String(fallback);
    }
    const value = coerceFieldValue(field, raw);
    collected[field.key] = value;
    recordAnswer(answers, field, value);
  }
  return answers;
}
