import { type ConfigField, checkConfigValue, configBoolean } from '@hermes-memory/core';
import { CliError } from '../errors';

export type FieldValue = string | number | boolean;

/** What a finished wizard hands back: provider settings for config.yaml, and variables for .env. */
export interface SetupAnswers {
  /** Non-secret answers, saved through the provider's `saveConfig` (its native config block). */
  values: Record<string, FieldValue>;
  /** `.env` lines: every secret, plus non-secret fields that declare `envVar`. */
  env: Record<string, string>;
}

/** The reference's picker hint: what a provider needs before it works. */
export function providerHint(fields: readonly ConfigField[]): string {
  if (fields.length === 0) return 'no setup needed';
  const secrets = fields.some((f) => f.secret);
  const plain = fields.some((f) => !f.secret);
  if (secrets && plain) return 'API key / local';
  if (secrets) return 'requires API key';
  return 'local';
}

/** A field is shown only when every `when` condition matches an answer collected so far. */
export function fieldVisible(field: ConfigField, answers: Readonly<Record<string, FieldValue>>): boolean {
  if (!field.when) return true;
  return Object.entries(field.when).every(([key, expected]) => String(answers[key]) === String(expected));
}

/** `defaultFrom` maps another field's answer to this field's default, falling back to `default`. */
export function fieldDefault(
  field: ConfigField,
  answers: Readonly<Record<string, FieldValue>>,
): FieldValue | undefined {
  if (field.defaultFrom) {
    const source = answers[field.defaultFrom.field];
    if (source !== undefined) {
      const mapped = field.defaultFrom.map[String(source)];
      if (mapped !== undefined) return mapped;
    }
  }
  return field.default;
}

/**
 * Turn typed text into the field's type, checked against the schema as core checks saved config
 * (choices, numbers, bounds, booleans). Throws a one-line CliError.
 */
export function coerceFieldValue(field: ConfigField, raw: string): FieldValue {
  const text = raw.trim();
  const problem = checkConfigValue(field, text);
  if (problem) throw new CliError(`Invalid value '${text}' for '${field.key}': ${problem}.`);
  if (field.type === 'boolean') return configBoolean(text) as boolean;
  if (field.type === 'integer' || field.type === 'number') return Number(text);
  return text;
}

/** Which `.env` variable a field writes to; secrets without a declared one are not storable. */
export function envVarFor(field: ConfigField): string | undefined {
  return field.envVar;
}

/** Route one answer: secrets only to .env; plain values to config, and to .env when `envVar` is set. */
export function recordAnswer(answers: SetupAnswers, field: ConfigField, value: FieldValue): void {
  const envVar = envVarFor(field);
  if (field.secret) {
    if (!envVar) throw new CliError(`Secret field '${field.key}' declares no envVar; it cannot be stored.`);
    answers.env[envVar] = String(value);
    return;
  }
  answers.values[field.key] = value;
  if (envVar) answers.env[envVar] = String(value);
}

/**
 * The non-interactive form: `--set key=value` pairs applied over the schema. Unknown keys are an
 * error; hidden fields (their `when` doesn't match) are skipped; a required field with neither a
 * value nor a default (nor an existing env var for secrets) is an error.
 */
export function answersFromFlags(
  fields: readonly ConfigField[],
  sets: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
  providerName: string,
  /** Settings already saved: kept (and checked against the schema) when no --set replaces them. */
  saved: Readonly<Record<string, unknown>> = {},
): SetupAnswers {
  const known = new Set(fields.map((f) => f.key));
  for (const key of Object.keys(sets)) {
    if (!known.has(key)) {
      const list = fields.map((f) => f.key).join(', ') || '(none)';
      throw new CliError(`Unknown setting '${key}' for provider '${providerName}'. Known settings: ${list}.`);
    }
  }
  const answers: SetupAnswers = { values: {}, env: {} };
  const collected: Record<string, FieldValue> = {};
  for (const field of fields) {
    if (!fieldVisible(field, collected)) continue;
    const raw = sets[field.key];
    let value: FieldValue | undefined;
    const kept = saved[field.key];
    if (raw !== undefined) value = coerceFieldValue(field, raw);
    else if (!field.secret && kept !== undefined && kept !== null && typeof kept !== 'object')
      value = coerceFieldValue(field, String(kept));
    else if (field.secret) {
      const existing = field.envVar ? env[field.envVar] : undefined;
      if (!existing && field.required) {
        throw new CliError(
          `Missing required secret '${field.key}' (set it with --set ${field.key}=... or ${field.envVar ?? 'its env var'}).`,
        );
      }
      continue; // keep whatever .env already holds
    } else value = fieldDefault(field, collected);
    if (value === undefined) {
      if (field.required)
        throw new CliError(`Missing required setting '${field.key}' (use --set ${field.key}=...).`);
      continue;
    }
    collected[field.key] = value;
    recordAnswer(answers, field, value);
  }
  return answers;
}

/** Parse repeated `--set key=value` flags. */
export function parseSetFlags(flags: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    if (eq <= 0) throw new CliError(`Invalid --set '${flag}': expected key=value.`, { exitCode: 2 });
    out[flag.slice(0, eq).trim()] = flag.slice(eq + 1);
  }
  return out;
}

/** Last four characters of an existing secret, for "blank to keep" prompts. Never more. */
export function maskSecret(value: string): string {
  return value.length <= 4 ? '****' : `…${value.slice(-4)}`;
}
