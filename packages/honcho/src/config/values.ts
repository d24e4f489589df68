/**
 * Reading honcho.json values the way the Python agent does, so one file means the same to both
 * programs: its truthiness (`""`, `0`, `[]`, `{}` and `null` are unset for `or`-style lookups) and
 * its `int()` / `float()` casts (`"3"` is 3, `3.7` is 3, `"3.5"` is not an integer).
 */
import { parseBoolean } from '@hermes-memory/core';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Python's `bool(value)` for a JSON value. */
export function truthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false) return false;
  if (typeof value === 'number') return value !== 0 && !Number.isNaN(value);
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}

/** Python's `int(value)`: throws where Python raises. */
export function toInt(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`not an integer: ${value}`);
    return Math.trunc(value);
  }
  if (typeof value === 'string' && /^\s*[+-]?\d+(?:_\d+)*\s*$/.test(value)) {
    return Number(value.replaceAll('_', '').trim());
  }
  throw new TypeError(`not an integer: ${JSON.stringify(value)}`);
}

/** Python's `float(value)`: numbers, booleans and numeric strings (with `inf` / `nan`). */
export function toFloat(value: unknown): number {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase().replaceAll('_', '');
    if (/^[+-]?(inf|infinity)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
    if (/^[+-]?nan$/.test(text)) return Number.NaN;
    if (text !== '' && Number.isFinite(Number(text))) return Number(text);
  }
  throw new TypeError(`not a number: ${JSON.stringify(value)}`);
}

/** A flag: JSON booleans as they are, the usual words for strings (`"false"` is false), else truthiness. */
export function toFlag(value: unknown): boolean {
  return parseBoolean(value) ?? truthy(value);
}

/** The first value `cast` accepts, else `fallback`: the reference's `_first_parsed`. */
export function firstParsed<T>(values: readonly unknown[], cast: (value: unknown) => T, fallback: T): T {
  for (const value of values) {
    if (value === null || value === undefined) continue;
    try {
      return cast(value);
    } catch {
      // the next source is tried, as in the reference
    }
  }
  return fallback;
}

/** The first value that is neither null nor undefined. */
export function firstSet<T>(values: readonly unknown[], fallback: T): unknown {
  for (const value of values) if (value !== null && value !== undefined) return value;
  return fallback;
}

/** A string with no characters outside printable ASCII, else undefined (a pasted terminal escape). */
export function printableUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  return /^[\x20-\x7e]*$/.test(url) ? url : undefined;
}
