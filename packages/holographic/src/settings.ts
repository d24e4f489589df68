/**
 * Provider settings. Keys mirror the reference's config block (`plugins.hermes-memory-store` in the
 * Python plugin, `memory.holographic` here); camelCase and snake_case are both accepted.
 */
import path from 'node:path';
import os from 'node:os';
import { parseBoolean, SettingsError } from '@hermes-memory/core';
import type { VectorFormat } from './hrr';
import { DEFAULT_MIN_RELEVANCE } from './relevance';
import type { FactStoreOptions } from './store';
import type { DefaultWeights, RetrievalMode } from './types';

export interface HolographicSettings {
  /** SQLite path; `$HERMES_HOME` / `${HERMES_HOME}` and `~` are expanded. Default `<hermesHome>/memory_store.db`. */
  dbPath?: string;
  /** Extract preference/decision facts from user messages at session end. Default false ("false" is off). */
  autoExtract?: boolean | string;
  defaultTrust?: number | string;
  /** Trust floor for prefetch and the default search filter. Default 0.3. */
  minTrustThreshold?: number | string;
  /** Days; 0 disables decay. */
  temporalDecayHalfLife?: number | string;
  hrrDim?: number | string;
  /** HRR share in the reference pipeline (default 0.3). */
  hrrWeight?: number | string;
  /** false reproduces the reference's numpy-less fallback (no vectors; weights 0.6/0.4/0). */
  hrrEnabled?: boolean | string;
  /** `default` (improved ranking) or `reference` (the Python plugin's ranking). */
  compat?: RetrievalMode;
  /**
   * Blob format of new HRR vectors: `auto` (default) keeps the format the store already has (an
   * older plugin's float64 store stays float64), `float32` = `HRR1`, `float64` = legacy mainline.
   */
  vectorFormat?: VectorFormat | 'auto';
  /**
   * Semantic signal. `auto` (default): `context.embedder` if given, else the bundled Model2Vec from
   * `@hermes-memory/embeddings` when that optional peer is installed, else lexical only.
   * `true`: the same, but a warning when neither exists; `false`: lexical only.
   */
  embeddings?: boolean | 'auto' | string;
  /**
   * Per-conversation database: a path with `{profile}`, `{platform}`, `{chat}` and `{user}`
   * placeholders (relative paths live under the Hermes home). Overrides `dbPath` when set.
   */
  dbPathTemplate?: string;
  /** Default-pipeline weight overrides. */
  weights?: Partial<DefaultWeights>;
  /** `tools` disables prefetch but keeps tools and the system prompt block. */
  memoryMode?: 'hybrid' | 'tools';
  /**
   * Relevance (0–1) a fact needs before prefetch puts it in front of the model; below it nothing
   * is injected. Default 0.45 (calibrated, docs/decisions/0404). Higher = fewer, surer facts.
   */
  prefetchMinRelevance?: number | string;
  /** At most this many facts per prefetch (default 5); fewer when fewer are relevant. */
  prefetchLimit?: number | string;
  /** Cosine above which the semantic signal counts. Default: calibrated for the embedding model. */
  semanticThreshold?: number | string;
}

export interface ResolvedSettings {
  dbPath: string;
  autoExtract: boolean;
  defaultTrust: number;
  minTrustThreshold: number;
  temporalDecayHalfLife: number;
  hrrDim: number;
  hrrWeight: number;
  hrrEnabled: boolean;
  compat: RetrievalMode;
  vectorFormat: VectorFormat | 'auto';
  embeddings: boolean | 'auto';
  weights: Partial<DefaultWeights>;
  memoryMode: 'hybrid' | 'tools';
  prefetchMinRelevance: number;
  prefetchLimit: number;
  /** undefined: the embedding model's calibrated threshold. */
  semanticThreshold: number | undefined;
}

/**
 * The reference's truthy-string check: core's one boolean parser, with unrecognised words off
 * (as in the reference) and `fallback` only for a missing value.
 */
export function isTruthy(value: unknown, fallback = false): boolean {
  if (value === undefined || value === null) return fallback;
  return parseBoolean(value) ?? false;
}

function pick(raw: Readonly<Record<string, unknown>>, camel: string, snake: string): unknown {
  return raw[camel] !== undefined ? raw[camel] : raw[snake];
}

/** A boolean setting: true/false or the Python agent's truthy words; anything else is an error. */
function flag(value: unknown, fallback: boolean, key: string): boolean {
  if (value === undefined || value === null || value === '') return fallback;
  const parsed = parseBoolean(value);
  if (parsed === undefined)
    throw new SettingsError(key, `holographic: '${key}' must be true or false, got ${JSON.stringify(value)}`);
  return parsed;
}

function num(value: unknown, fallback: number, key: string): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n))
    throw new SettingsError(key, `holographic: '${key}' must be a number, got ${JSON.stringify(value)}`);
  return n;
}

/** `$HERMES_HOME` or `${HERMES_HOME}`. */
const HERMES_HOME_VAR = /\$\{HERMES_HOME\}|\$HERMES_HOME/g;

export function expandDbPath(dbPath: string, hermesHome: string): string {
  let p = dbPath.replace(HERMES_HOME_VAR, () => hermesHome);
  if (p === '~' || p.startsWith('~/')) p = path.join(os.homedir(), p.slice(1));
  return path.resolve(p);
}

function parseEmbeddings(value: unknown): boolean | 'auto' {
  if (value === undefined || value === null) return 'auto';
  if (typeof value === 'string' && ['auto', ''].includes(value.trim().toLowerCase())) return 'auto';
  const flag = parseBoolean(value);
  if (flag === undefined)
    throw new SettingsError(
      'embeddings',
      `holographic: 'embeddings' must be auto, true or false, got ${JSON.stringify(value)}`,
    );
  return flag;
}

/** Values for `db_path_template` placeholders (missing ones become `default`). */
export interface DbPathPlaceholders {
  profile?: string;
  platform?: string;
  chat?: string;
  user?: string;
}

/**
 * One placeholder value made path-safe as the reference does ("/", "\\" and ":" become "-"; a
 * missing value is `default`), so a Python-created `dm-123.db` is found again. Values that mapping
 * would merge with another id are refused with a SettingsError instead of silently sharing one
 * database between two chats: control characters (newline, NUL), "..", ".", and leading, trailing
 * or only whitespace.
 */
export function sanitizePathPart(value: string | undefined, placeholder = 'value'): string {
  if (value === undefined || value === '') return 'default';
  if (/[\0-\x1f\x7f]/.test(value) || value.includes('..') || value.trim() !== value || value === '.') {
    throw new SettingsError(
      'db_path_template',
      `holographic: the {${placeholder}} value ${JSON.stringify(value)} cannot name a database file in db_path_template ` +
        '(control characters, "..", "." or surrounding spaces would make it share a file with another id).',
    );
  }
  return value.replace(/[/\\:]/g, '-');
}

/** Expand a `db_path_template`; relative results are placed under `hermesHome`. */
export function expandDbPathTemplate(
  template: string,
  hermesHome: string,
  values: DbPathPlaceholders,
): string {
  const filled = template.replace(/\{(profile|platform|chat|user)\}/g, (_, key: keyof DbPathPlaceholders) =>
    sanitizePathPart(values[key], key),
  );
  const expanded = filled.replace(HERMES_HOME_VAR, () => hermesHome);
  if (expanded === '~' || expanded.startsWith('~/') || path.isAbsolute(expanded))
    return expandDbPath(expanded, hermesHome);
  return path.resolve(hermesHome, expanded);
}

export function resolveSettings(
  raw: Readonly<Record<string, unknown>>,
  hermesHome: string,
  placeholders: DbPathPlaceholders = {},
): ResolvedSettings {
  const dbRaw = pick(raw, 'dbPath', 'db_path');
  const template = pick(raw, 'dbPathTemplate', 'db_path_template');
  const dbPath =
    typeof template === 'string' && template.trim()
      ? expandDbPathTemplate(template.trim(), hermesHome, placeholders)
      : expandDbPath(
          typeof dbRaw === 'string' && dbRaw.trim() ? dbRaw : path.join(hermesHome, 'memory_store.db'),
          hermesHome,
        );
  const hrrDim = Math.trunc(num(pick(raw, 'hrrDim', 'hrr_dim'), 1024, 'hrr_dim'));
  if (hrrDim < 1 || hrrDim > 65536)
    throw new SettingsError('hrr_dim', `holographic: 'hrr_dim' must be between 1 and 65536, got ${hrrDim}`);
  const compat = pick(raw, 'compat', 'compat') ?? 'default';
  if (compat !== 'default' && compat !== 'reference')
    throw new SettingsError('compat', `holographic: 'compat' must be 'default' or 'reference'`);
  const vectorFormat = pick(raw, 'vectorFormat', 'vector_format') ?? 'auto';
  if (vectorFormat !== 'auto' && vectorFormat !== 'float32' && vectorFormat !== 'float64')
    throw new SettingsError(
      'vector_format',
      `holographic: 'vector_format' must be 'auto', 'float32' or 'float64'`,
    );
  const memoryMode = pick(raw, 'memoryMode', 'memory_mode') ?? 'hybrid';
  if (memoryMode !== 'hybrid' && memoryMode !== 'tools')
    throw new SettingsError(
      'memory_mode',
      `holographic: 'memory_mode' must be 'hybrid' or 'tools', got ${JSON.stringify(memoryMode)}`,
    );
  const weights = raw.weights;
  const minRelevance = num(
    pick(raw, 'prefetchMinRelevance', 'prefetch_min_relevance'),
    DEFAULT_MIN_RELEVANCE,
    'prefetch_min_relevance',
  );
  if (minRelevance < 0 || minRelevance > 1)
    throw new SettingsError(
      'prefetch_min_relevance',
      `holographic: 'prefetch_min_relevance' must be between 0 and 1, got ${minRelevance}`,
    );
  const prefetchLimit = num(pick(raw, 'prefetchLimit', 'prefetch_limit'), 5, 'prefetch_limit');
  if (!Number.isInteger(prefetchLimit) || prefetchLimit < 1 || prefetchLimit > 50)
    throw new SettingsError(
      'prefetch_limit',
      `holographic: 'prefetch_limit' must be an integer from 1 to 50, got ${prefetchLimit}`,
    );
  const thresholdRaw = pick(raw, 'semanticThreshold', 'semantic_threshold');
  const semanticThreshold =
    thresholdRaw === undefined || thresholdRaw === null || thresholdRaw === ''
      ? undefined
      : num(thresholdRaw, 0, 'semantic_threshold');
  if (semanticThreshold !== undefined && (semanticThreshold < -1 || semanticThreshold > 1))
    throw new SettingsError(
      'semantic_threshold',
      `holographic: 'semantic_threshold' must be between -1 and 1, got ${semanticThreshold}`,
    );
  return {
    dbPath,
    autoExtract: flag(pick(raw, 'autoExtract', 'auto_extract'), false, 'auto_extract'),
    defaultTrust: Math.max(
      0,
      Math.min(1, num(pick(raw, 'defaultTrust', 'default_trust'), 0.5, 'default_trust')),
    ),
    minTrustThreshold: num(pick(raw, 'minTrustThreshold', 'min_trust_threshold'), 0.3, 'min_trust_threshold'),
    temporalDecayHalfLife: Math.max(
      0,
      num(pick(raw, 'temporalDecayHalfLife', 'temporal_decay_half_life'), 0, 'temporal_decay_half_life'),
    ),
    hrrDim,
    hrrWeight: num(pick(raw, 'hrrWeight', 'hrr_weight'), 0.3, 'hrr_weight'),
    hrrEnabled: flag(pick(raw, 'hrrEnabled', 'hrr_enabled'), true, 'hrr_enabled'),
    compat,
    vectorFormat,
    embeddings: parseEmbeddings(raw.embeddings),
    weights: typeof weights === 'object' && weights !== null ? (weights as Partial<DefaultWeights>) : {},
    memoryMode,
    prefetchMinRelevance: minRelevance,
    prefetchLimit,
    semanticThreshold,
  };
}

/** The `FactStore` options resolved settings map to (the provider and the CLI open stores alike). */
export function factStoreOptions(
  resolved: ResolvedSettings,
): Pick<
  FactStoreOptions,
  | 'dbPath'
  | 'defaultTrust'
  | 'hrrDim'
  | 'hrrEnabled'
  | 'vectorFormat'
  | 'temporalDecayHalfLife'
  | 'retrieval'
  | 'referenceWeights'
  | 'weights'
  | 'semanticThreshold'
> {
  return {
    dbPath: resolved.dbPath,
    defaultTrust: resolved.defaultTrust,
    hrrDim: resolved.hrrDim,
    hrrEnabled: resolved.hrrEnabled,
    vectorFormat: resolved.vectorFormat,
    temporalDecayHalfLife: resolved.temporalDecayHalfLife,
    retrieval: resolved.compat,
    referenceWeights: { hrr: resolved.hrrWeight },
    weights: resolved.weights,
    semanticThreshold: resolved.semanticThreshold,
  };
}
