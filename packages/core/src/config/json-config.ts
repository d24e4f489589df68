import fs from 'node:fs';
import { SettingsError } from '../errors/memory-error';
import { writeFileAtomic } from '../fs/atomic-write';

export type JsonConfig = Record<string, unknown>;

export type JsonConfigRead =
  | { status: 'ok'; data: JsonConfig }
  | { status: 'missing'; data: JsonConfig }
  /** Unreadable or not a JSON object: `data` is `{}` and `error` says why (the file is left alone). */
  | { status: 'invalid'; data: JsonConfig; error: string };

function isRecord(value: unknown): value is JsonConfig {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Read a provider's native JSON config (`honcho.json`, `mem0.json`, `supermemory.json`,
 * `hindsight/config.json`). A byte-order mark is tolerated (editors on Windows write one); a
 * missing file is `missing`; a corrupt one is `invalid` — never a throw, so a provider can fall
 * through to its next source as the reference does.
 */
export function readJsonConfig(file: string): JsonConfigRead {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing', data: {} };
    return { status: 'invalid', data: {}, error: `cannot read ${file}: ${(error as Error).message}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { status: 'invalid', data: {}, error: `${file} is not valid JSON: ${(error as Error).message}` };
  }
  if (!isRecord(parsed)) return { status: 'invalid', data: {}, error: `${file} must hold a JSON object` };
  return { status: 'ok', data: parsed };
}

/** Objects with their keys sorted, recursively (the reference writes `sort_keys=True`). */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isRecord(value)) return value;
  const out: JsonConfig = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
  return out;
}

/**
 * Write a JSON config through core's safe write (complete or failed, never through a link; decision
 * 0114) with mode 0600 — these files hold API keys — pretty-printed with sorted keys.
 */
export function writeJsonConfig(file: string, data: JsonConfig): void {
  writeFileAtomic(file, `${JSON.stringify(sortKeys(data), null, 2)}\n`, { mode: 0o600 });
}

/**
 * Merge `patch` into the file's object key by key (`undefined` removes a key; nested objects are
 * replaced, not deep-merged) and write the result. A corrupt file is refused with a SettingsError
 * rather than overwritten: it may hold keys the user wants back. Returns the merged object.
 */
export function mergeJsonConfig(file: string, patch: Readonly<Record<string, unknown>>): JsonConfig {
  const current = readJsonConfig(file);
  if (current.status === 'invalid') {
    throw new SettingsError(file, `Refusing to overwrite ${file}: ${current.error}. Fix or remove it first.`);
  }
  const merged: JsonConfig = { ...current.data };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  writeJsonConfig(file, merged);
  return merged;
}
