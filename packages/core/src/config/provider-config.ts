import type { ConfigField } from '../provider/types';
import { getConfigValue, type HermesConfig } from './hermes-config';
import { parseBoolean } from './settings';

/** A key set to different values in two of a provider's config places. */
export interface ProviderConfigConflict {
  key: string;
  /** The place whose value is used (the first listed by the provider) and that value. */
  used: { path: string; value: unknown };
  ignored: Array<{ path: string; value: unknown }>;
}

export interface ProviderConfigRead {
  /** The merged settings: for each key, the value from the first place that sets it. */
  values: Record<string, unknown>;
  conflicts: ProviderConfigConflict[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A provider's settings read from every place it lists (most authoritative first, e.g. the Python
 * plugin's `plugins.hermes-memory-store` before `memory.holographic`). Values are copies.
 */
export function readProviderConfig(
  config: HermesConfig | Record<string, unknown>,
  paths: readonly string[],
): ProviderConfigRead {
  const values: Record<string, unknown> = {};
  const from = new Map<string, string>();
  const conflicts = new Map<string, ProviderConfigConflict>();
  for (const path of paths) {
    const block = getConfigValue(config, path);
    if (!isRecord(block)) continue;
    for (const [key, value] of Object.entries(block)) {
      if (value === undefined || value === null) continue;
      if (!(key in values)) {
        values[key] = structuredClone(value);
        from.set(key, path);
        continue;
      }
      if (sameValue(values[key], value)) continue;
      const conflict = conflicts.get(key) ?? {
        key,
        used: { path: from.get(key) ?? '', value: values[key] },
        ignored: [],
      };
      conflict.ignored.push({ path, value: structuredClone(value) });
      conflicts.set(key, conflict);
    }
  }
  return { values, conflicts: [...conflicts.values()] };
}

/** "0.5" and 0.5 are the same setting (the Python agent writes strings, we write numbers). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return String(a).trim() === String(b).trim();
}

/** One line per conflict, for a warning or doctor. */
export function describeConfigConflict(c: ProviderConfigConflict): string {
  const others = c.ignored.map((i) => `${i.path}.${c.key} = ${JSON.stringify(i.value)}`).join(', ');
  return `${c.used.path}.${c.key} = ${JSON.stringify(c.used.value)} is used; ${others} is ignored`;
}

/** A setting whose value does not fit the provider's config schema. */
export interface ConfigValueProblem {
  key: string;
  value: unknown;
  message: string;
}

/**
 * Check settings against a config schema: numbers (numeric strings count, as the Python agent
 * writes them), booleans, choices and bounds. Unknown keys are not problems (other programs may
 * keep their own settings in the same block).
 */
export function validateConfigValues(
  fields: readonly ConfigField[],
  values: Readonly<Record<string, unknown>>,
  /** Prefix of the key in messages, e.g. `memory.`. */
  prefix = '',
): ConfigValueProblem[] {
  const problems: ConfigValueProblem[] = [];
  for (const field of fields) {
    const value = values[field.key];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) continue;
    const problem = checkConfigValue(field, value);
    if (problem) problems.push({ key: field.key, value, message: `'${prefix}${field.key}' ${problem}` });
  }
  return problems;
}

/**
 * true / false for the Python agent's truthy words (`is_truthy_value`), either way, else
 * undefined: core's one boolean parser, where an empty value is "not set" rather than false.
 */
export function configBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'string' && value.trim() === '') return undefined;
  return parseBoolean(value);
}

/** Why `value` does not fit `field` ("must be an integer, got \"abc\""), or undefined when it does. */
export function checkConfigValue(field: ConfigField, value: unknown): string | undefined {
  const text = typeof value === 'string' ? value.trim() : value;
  if (field.choices && field.choices.length > 0 && !field.choices.includes(String(text))) {
    return `must be one of ${field.choices.join(', ')}, got ${JSON.stringify(value)}`;
  }
  switch (field.type) {
    case 'integer':
    case 'number': {
      const n =
        typeof text === 'number' ? text : typeof text === 'string' && text !== '' ? Number(text) : Number.NaN;
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n)))
        return `must be ${field.type === 'integer' ? 'an integer' : 'a number'}, got ${JSON.stringify(value)}`;
      if (field.minimum !== undefined && n < field.minimum)
        return `must be at least ${field.minimum}, got ${n}`;
      if (field.maximum !== undefined && n > field.maximum)
        return `must be at most ${field.maximum}, got ${n}`;
      return undefined;
    }
    case 'boolean':
      return configBoolean(text) === undefined
        ? `must be true or false, got ${JSON.stringify(value)}`
        : undefined;
    default:
      return typeof text === 'object' ? `must be a single value, got ${JSON.stringify(value)}` : undefined;
  }
}
