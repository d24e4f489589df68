import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { SettingsError } from '../errors/memory-error';
import type { ConfigField } from '../provider/types';
import { writeFileAtomic } from '../fs/atomic-write';
import { type ConfigValueProblem, validateConfigValues } from './provider-config';
import { booleanSetting } from './settings';

/** The `memory:` section of config.yaml, with the reference's defaults filled in. */
export interface MemoryConfig {
  /** Active external provider ("" = built-in only): the canonical one, which receives writes. */
  provider: string;
  /**
   * `memory.secondary`: providers that join read-only beside `provider` (tiered memory, decision
   * 0130), in order. Entries that are not valid are left out and reported in `problems`.
   */
  secondary: SecondaryProviderConfig[];
  /** `memory.recall_budget_chars`: recall characters per turn across providers (with secondaries). */
  recallBudgetChars: number;
  memoryEnabled: boolean;
  userProfileEnabled: boolean;
  memoryCharLimit: number;
  userCharLimit: number;
  /** User turns between background memory reviews (0 = off). */
  nudgeInterval: number;
  flushMinTurns: number;
  /** The `memory.<name>` block for a provider (a fresh copy; {} when absent). */
  providerConfig(name: string): Record<string, unknown>;
  /**
   * Values of the keys above that are malformed (e.g. `memory_char_limit: abc`). Their defaults are
   * used; the manager warns about each and `doctor` reports them — never silently.
   */
  problems: ConfigValueProblem[];
}

/** One `memory.secondary` entry: a provider id, or `{provider, prefetch_timeout_ms}`. */
export interface SecondaryProviderConfig {
  provider: string;
  /** Its own prefetch budget in ms, when set. */
  prefetchTimeoutMs?: number;
}

export interface HermesConfig {
  memory: MemoryConfig;
  /** The whole parsed file, for keys this package does not model. */
  raw: Record<string, unknown>;
}

export const MEMORY_CONFIG_DEFAULTS = Object.freeze({
  provider: '',
  memoryEnabled: true,
  userProfileEnabled: true,
  memoryCharLimit: 2200,
  userCharLimit: 1375,
  nudgeInterval: 10,
  flushMinTurns: 6,
  recallBudgetChars: 12_000,
});

/** The schema of the `memory:` keys modelled here, for validation. */
export const MEMORY_CONFIG_FIELDS: readonly ConfigField[] = Object.freeze([
  { key: 'memory_enabled', description: 'Inject the MEMORY snapshot', type: 'boolean' },
  { key: 'user_profile_enabled', description: 'Inject the USER snapshot', type: 'boolean' },
  { key: 'memory_char_limit', description: 'MEMORY.md limit (characters)', type: 'integer', minimum: 1 },
  { key: 'user_char_limit', description: 'USER.md limit (characters)', type: 'integer', minimum: 1 },
  { key: 'nudge_interval', description: 'User turns between memory reviews', type: 'integer', minimum: 0 },
  { key: 'flush_min_turns', description: 'Turns before a flush', type: 'integer', minimum: 0 },
  { key: 'provider', description: 'Active external provider', type: 'text' },
  {
    key: 'recall_budget_chars',
    description: 'Recall characters per turn across providers (with secondaries)',
    type: 'integer',
    minimum: 1,
  },
] satisfies ConfigField[]);

export function configPath(hermesHome: string): string {
  return path.join(hermesHome, 'config.yaml');
}

/**
 * The parser's first line, which ends "at line L, column C:" before the excerpt it quotes: the
 * excerpt is left out (one-line messages) and so is the colon that introduced it.
 */
function yamlDetail(message: unknown): string {
  return String(message).split('\n')[0]!.trim().replace(/:$/, '');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Integers may be written as strings ("3000") in hand-edited files; anything else → default. */
function toInt(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^\s*-?\d+(?:\.\d+)?\s*$/.test(value)) return Math.trunc(Number(value));
  return fallback;
}

function parseYamlFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new SettingsError(file, `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = YAML.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new SettingsError(
      file,
      `Invalid YAML in ${file}: ${yamlDetail((error as Error).message ?? error)}`,
      {
        cause: error,
      },
    );
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isRecord(parsed))
    throw new SettingsError(file, `Invalid config in ${file}: the top level must be a mapping.`);
  return parsed;
}

/** Build the typed view over an already-parsed config object. */
export function memoryConfigFrom(raw: Record<string, unknown>): MemoryConfig {
  const m = isRecord(raw.memory) ? raw.memory : {};
  const d = MEMORY_CONFIG_DEFAULTS;
  const provider = typeof m.provider === 'string' ? m.provider.trim() : d.provider;
  const secondaries = parseSecondaries(m.secondary, provider);
  return {
    provider,
    memoryEnabled: booleanSetting(m.memory_enabled, d.memoryEnabled),
    userProfileEnabled: booleanSetting(m.user_profile_enabled, d.userProfileEnabled),
    memoryCharLimit: toInt(m.memory_char_limit, d.memoryCharLimit),
    userCharLimit: toInt(m.user_char_limit, d.userCharLimit),
    nudgeInterval: toInt(m.nudge_interval, d.nudgeInterval),
    flushMinTurns: toInt(m.flush_min_turns, d.flushMinTurns),
    secondary: secondaries.entries,
    recallBudgetChars: Math.max(1, toInt(m.recall_budget_chars, d.recallBudgetChars)),
    providerConfig(name: string): Record<string, unknown> {
      const block = m[name];
      return isRecord(block) ? structuredClone(block) : {};
    },
    problems: [...validateConfigValues(MEMORY_CONFIG_FIELDS, m, 'memory.'), ...secondaries.problems],
  };
}

const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * `memory.secondary`: a list (or a comma-separated string) of provider ids or
 * `{provider, prefetch_timeout_ms}` mappings. The builtin store, the canonical provider itself,
 * repeats and malformed entries are problems, never silently accepted.
 */
function parseSecondaries(
  value: unknown,
  canonical: string,
): { entries: SecondaryProviderConfig[]; problems: ConfigValueProblem[] } {
  const entries: SecondaryProviderConfig[] = [];
  const problems: ConfigValueProblem[] = [];
  if (value === undefined || value === null || value === '') return { entries, problems };
  const items = typeof value === 'string' ? value.split(',').map((v) => v.trim()) : value;
  if (!Array.isArray(items)) {
    const message = "'memory.secondary' must be a list of provider ids";
    return { entries, problems: [{ key: 'secondary', value, message }] };
  }
  for (const item of items) {
    const problem = (message: string) =>
      problems.push({ key: 'secondary', value: item, message: `'memory.secondary' ${message}` });
    const id = typeof item === 'string' ? item.trim() : isRecord(item) ? item.provider : undefined;
    if (typeof id !== 'string' || !PROVIDER_ID.test(id)) {
      problem(`entry ${JSON.stringify(item)} is not a provider id`);
      continue;
    }
    if (id === 'builtin') problem("cannot list 'builtin' (the built-in store is always on)");
    else if (id === canonical) problem(`lists '${id}', which is already memory.provider`);
    else if (entries.some((e) => e.provider === id)) problem(`lists '${id}' twice`);
    else {
      const entry: SecondaryProviderConfig = { provider: id };
      const timeout = isRecord(item) ? item.prefetch_timeout_ms : undefined;
      if (timeout !== undefined) {
        const ms = toInt(timeout, Number.NaN);
        if (ms > 0) entry.prefetchTimeoutMs = ms;
        else
          problem(`'${id}': prefetch_timeout_ms must be a positive integer (got ${JSON.stringify(timeout)})`);
      }
      entries.push(entry);
    }
  }
  return { entries, problems };
}

/**
 * Read `<hermesHome>/config.yaml`. A missing file gives the defaults; a corrupt one is a
 * SettingsError whose one-line message names the file.
 */
export function loadHermesConfig(hermesHome: string): HermesConfig {
  const raw = parseYamlFile(configPath(hermesHome));
  return { memory: memoryConfigFrom(raw), raw };
}

/** Read a value by dotted path ("compression.checkpoint_required"). */
export function getConfigValue(config: HermesConfig | Record<string, unknown>, dottedPath: string): unknown {
  let node: unknown = 'raw' in config && 'memory' in config && isRecord(config.raw) ? config.raw : config;
  for (const key of dottedPath.split('.')) {
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

function flattenPatch(
  patch: Readonly<Record<string, unknown>>,
  prefix: string[] = [],
): Array<[string[], unknown]> {
  const out: Array<[string[], unknown]> = [];
  for (const [key, value] of Object.entries(patch)) {
    const keyPath = [...prefix, ...key.split('.')];
    if (isRecord(value) && Object.keys(value).length > 0) out.push(...flattenPatch(value, keyPath));
    else out.push([keyPath, value]);
  }
  return out;
}

/**
 * Edit config.yaml in place: set each value of `patch` (nested objects or dotted keys such as
 * `"memory.provider"`; `undefined` deletes a key) while keeping every other key and comment.
 * Written through a temp file and a rename, mode 0600.
 */
export function saveConfigValues(hermesHome: string, patch: Readonly<Record<string, unknown>>): void {
  const file = configPath(hermesHome);
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new SettingsError(file, `Cannot read ${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  const doc = YAML.parseDocument(text);
  if (doc.errors.length > 0) {
    throw new SettingsError(
      file,
      `Invalid YAML in ${file}: ${yamlDetail(doc.errors[0]?.message ?? 'parse error')}`,
    );
  }
  // An empty (or comment-only) file has no contents yet: setIn creates the mapping.
  if (doc.contents !== null && !YAML.isMap(doc.contents))
    throw new SettingsError(file, `Invalid config in ${file}: the top level must be a mapping.`);
  for (const [keyPath, value] of flattenPatch(patch)) {
    if (value === undefined) {
      // Deleting a key whose parent mapping does not exist is a no-op, not an error.
      const parent = keyPath.length > 1 ? doc.getIn(keyPath.slice(0, -1)) : doc.contents;
      if (YAML.isMap(parent)) doc.deleteIn(keyPath);
    } else doc.setIn(keyPath, value);
  }
  writeFileAtomic(file, doc.toString());
}
