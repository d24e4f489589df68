import { InvalidArgumentError } from '../errors/memory-error';

export type ToolArgs = Readonly<Record<string, unknown>>;

/**
 * Accept tool arguments as an object or as the raw JSON string a model produced. Anything else
 * (arrays, numbers, broken JSON) is an InvalidArgumentError with a message fit for the model.
 */
export function parseToolArgs(args: unknown): ToolArgs {
  let value = args;
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw new InvalidArgumentError('arguments', 'Tool arguments are not valid JSON.');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError('arguments', 'Tool arguments must be a JSON object.');
  }
  return value as ToolArgs;
}

/** An optional string argument; numbers and booleans are coerced, other types rejected. */
export function optionalString(args: ToolArgs, key: string): string | undefined {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new InvalidArgumentError(key, `'${key}' must be a string.`);
}

export function requiredString(args: ToolArgs, key: string, message?: string): string {
  const value = optionalString(args, key);
  if (value === undefined || value.trim() === '') {
    throw new InvalidArgumentError(key, message ?? `'${key}' is required.`);
  }
  return value;
}

/**
 * An optional integer argument. Strings holding an integer are accepted (models often quote
 * numbers); anything unusable falls back to `fallback`, then the result is clamped.
 */
export function integerArg(
  args: ToolArgs,
  key: string,
  options: { fallback: number; min?: number; max?: number },
): number {
  const raw = args[key];
  let n = options.fallback;
  if (typeof raw === 'number' && Number.isFinite(raw)) n = Math.trunc(raw);
  else if (typeof raw === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(raw)) n = Math.trunc(Number(raw));
  if (options.min !== undefined) n = Math.max(options.min, n);
  if (options.max !== undefined) n = Math.min(options.max, n);
  return n;
}

export function optionalNumber(args: ToolArgs, key: string): number | undefined {
  const raw = args[key];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw) : Number.NaN;
  if (!Number.isFinite(n)) throw new InvalidArgumentError(key, `'${key}' must be a number.`);
  return n;
}

export function enumArg<T extends string>(args: ToolArgs, key: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(args, key);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(key, `Invalid ${key} '${value}'. Use one of: ${allowed.join(', ')}.`);
  }
  return value as T;
}
