/**
 * Hindsight's settings, read as the reference reads them: the first of
 * `$HERMES_HOME/hindsight/config.json` (profile-scoped), `~/.hindsight/config.json` (legacy,
 * shared) or the environment that exists and parses wins — a corrupt file falls through to the
 * next source — and `config.json` is written atomically at 0600, merged into what is there.
 */
import os from 'node:os';
import path from 'node:path';
import { booleanSetting, type Env, mergeJsonConfig, readJsonConfig } from '@hermes-memory/core';

export type HindsightMode = 'cloud' | 'local_external' | 'local_embedded';
export type MemoryMode = 'hybrid' | 'context' | 'tools';
export type RecallBudget = 'low' | 'mid' | 'high';
export type PrefetchMethod = 'recall' | 'reflect';
export type TagsMatch = 'any' | 'all' | 'any_strict' | 'all_strict';
/** A keyword, or explicit scopes (one tag list per consolidation pass). */
export type ObservationScopes = 'per_tag' | 'combined' | 'all_combinations' | string[][];

export const CONFIG_DIR = 'hindsight';
export const CONFIG_FILE = 'config.json';
export const DEFAULT_CLOUD_URL = 'https://api.hindsight.vectorize.io';
export const DEFAULT_LOCAL_URL = 'http://localhost:8888';
export const DEFAULT_RETAIN_CONTEXT = 'conversation between Hermes Agent and the User';
/** Seconds; the cloud API can take 30–40 s a request. */
export const DEFAULT_TIMEOUT_S = 120;

/** Where the settings came from (what `status` shows). */
export type ConfigSource = 'profile' | 'legacy' | 'env';

/** Options of `createHindsightProvider`; each wins over the same key of the config sources. */
export interface HindsightProviderSettings {
  mode?: HindsightMode;
  /** Env `HINDSIGHT_API_URL`, config `api_url`. Default by mode. */
  apiURL?: string;
  /** Env `HINDSIGHT_API_KEY` (or `<home>/.env`), config `api_key`/`apiKey`. */
  apiKey?: string;
  bankId?: string;
  /** Placeholders `{profile}`, `{workspace}`, `{platform}`, `{user}`, `{session}`. */
  bankIdTemplate?: string;
  bankMission?: string;
  bankRetainMission?: string;
  recallBudget?: RecallBudget;
  memoryMode?: MemoryMode;
  prefetchMethod?: PrefetchMethod;
  retainTags?: readonly string[] | string;
  recallTags?: readonly string[] | string;
  recallTagsMatch?: TagsMatch;
  recallTypes?: readonly string[] | string;
  autoRecall?: boolean;
  /** Recall for the current message inside `prefetch` (adds its latency to the turn). */
  recallSync?: boolean;
  recallIndicator?: boolean;
  retainIndicator?: boolean;
  autoRetain?: boolean;
  retainEveryNTurns?: number;
  retainAsync?: boolean;
  prefetchWaitsForRetain?: boolean;
  /** Seconds the background prefetch waits for retains to become recall-visible. Default 10. */
  prefetchRetainDrainTimeout?: number;
  retainContext?: string;
  recallMaxTokens?: number;
  recallMaxInputChars?: number;
  recallPromptPreamble?: string;
  /** Per request, in seconds. Default 120. */
  timeout?: number;
}

export interface HindsightConfig {
  mode: HindsightMode;
  apiURL: string;
  /** A URL was configured (cloud mode is usable with a URL and no key). */
  apiURLSet: boolean;
  apiKey: string;
  bankId: string;
  bankIdTemplate: string;
  bankMission: string;
  bankRetainMission: string;
  recallBudget: RecallBudget;
  memoryMode: MemoryMode;
  prefetchMethod: PrefetchMethod;
  retainTags: string[];
  observationScopes: ObservationScopes | null;
  retainSource: string;
  retainUserPrefix: string;
  retainAssistantPrefix: string;
  recallTags: string[];
  recallTagsMatch: TagsMatch;
  recallTypes: string[];
  autoRecall: boolean;
  recallSync: boolean;
  recallIndicator: boolean;
  retainIndicator: boolean;
  autoRetain: boolean;
  retainEveryNTurns: number;
  retainAsync: boolean;
  prefetchWaitsForRetain: boolean;
  /** Seconds. */
  prefetchRetainDrainTimeout: number;
  retainContext: string;
  recallMaxTokens: number;
  recallMaxInputChars: number;
  recallPromptPreamble: string;
  /** Seconds. */
  timeout: number;
  source: ConfigSource;
  /** Files that could not be read and settings that fell back to their default. */
  warnings: string[];
}

type Source = Readonly<Record<string, unknown>>;

export interface ConfigSources {
  /** The chosen source's object (see {@link readHindsightConfigSource}). */
  file: Source;
  source: ConfigSource;
  /** `memory.hindsight` in config.yaml: below the file, above the defaults. */
  providerConfig?: Source;
  env?: Env;
  warnings?: string[];
}

/** `$HERMES_HOME/hindsight/config.json`. */
export function profileConfigPath(hermesHome: string): string {
  return path.join(hermesHome, CONFIG_DIR, CONFIG_FILE);
}

/** `~/.hindsight/config.json` (`HOME` from `env` first, so tests and multiplexed profiles can move it). */
export function legacyConfigPath(env: Env = process.env): string {
  return path.join(env.HOME && env.HOME !== '' ? env.HOME : os.homedir(), '.hindsight', CONFIG_FILE);
}

/**
 * The first usable source: the profile file, the legacy file, else the environment (`{}` here:
 * the env is read key by key in {@link resolveHindsightConfig}). A file that exists but does not
 * parse is skipped with a warning, as the reference skips it.
 */
export function readHindsightConfigSource(
  hermesHome: string | undefined,
  env: Env = process.env,
): { file: Source; source: ConfigSource; warnings: string[] } {
  const warnings: string[] = [];
  const candidates: [ConfigSource, string][] = [];
  if (hermesHome) candidates.push(['profile', profileConfigPath(hermesHome)]);
  candidates.push(['legacy', legacyConfigPath(env)]);
  for (const [source, file] of candidates) {
    const read = readJsonConfig(file);
    if (read.status === 'ok') return { file: read.data, source, warnings };
    if (read.status === 'invalid') warnings.push(`Hindsight ignored ${file}: ${read.error}`);
  }
  return { file: {}, source: 'env', warnings };
}

/**
 * Merge `values` into `$HERMES_HOME/hindsight/config.json` (atomic, 0600, sorted keys). The API
 * key is kept out: it belongs in `<home>/.env`. A corrupt file is refused, not overwritten.
 */
export function saveHindsightConfig(hermesHome: string, values: Source): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (key === 'api_key' || key === 'apiKey' || value === null) continue;
    patch[key] = value;
  }
  return mergeJsonConfig(profileConfigPath(hermesHome), patch);
}

/**
 * The browser connect flow's result, where the reference's `oauth_flow.py` puts it: `apiKey` in
 * `hindsight/config.json` (0600, atomic, merged), `mode` cloud unless one is set, and the API URL
 * of the environment the key was minted in.
 */
export function saveConnectedKey(hermesHome: string, apiKey: string, apiURL: string | null): void {
  const file = profileConfigPath(hermesHome);
  const current = readJsonConfig(file);
  mergeJsonConfig(file, {
    apiKey,
    ...(current.data.mode === undefined ? { mode: 'cloud' } : {}),
    ...(apiURL ? { api_url: apiURL } : {}),
  });
}

/**
 * Every setting, pure (no I/O). Priority: explicit settings, the chosen source (a config file;
 * without one, the `HINDSIGHT_*` variables the reference reads), `memory.hindsight` in config.yaml,
 * defaults. The key, URL, timeout, tags and prefixes also fall back to the environment when the
 * file leaves them out, as the reference does. Invalid values fall back to the default.
 */
export function resolveHindsightConfig(
  settings: HindsightProviderSettings,
  sources: ConfigSources,
): HindsightConfig {
  const env = sources.env ?? {};
  const file = sources.file;
  const yaml = sources.providerConfig ?? {};
  const warnings = [...(sources.warnings ?? [])];
  const fromEnv = sources.source === 'env';
  const pick = (...keys: string[]): unknown => {
    for (const key of keys) if (present(file[key])) return file[key];
    for (const key of keys) if (present(yaml[key])) return yaml[key];
    return undefined;
  };
  const legacyBank = record(record(file.banks).hermes);
  const envOnly = (name: string) => (fromEnv ? nonEmpty(env[name]) : undefined);

  const rawMode = String(settings.mode ?? pick('mode') ?? envOnly('HINDSIGHT_MODE') ?? 'cloud')
    .trim()
    .toLowerCase();
  const mode: HindsightMode =
    rawMode === 'local' || rawMode === 'local_embedded'
      ? 'local_embedded'
      : rawMode === 'local_external'
        ? 'local_external'
        : 'cloud';
  const defaultURL = mode === 'cloud' ? DEFAULT_CLOUD_URL : DEFAULT_LOCAL_URL;
  const budget = String(
    settings.recallBudget ??
      pick('recall_budget', 'budget') ??
      legacyBank.budget ??
      envOnly('HINDSIGHT_BUDGET') ??
      'mid',
  );
  const memoryMode = String(settings.memoryMode ?? pick('memory_mode') ?? 'hybrid');
  const method = String(
    settings.prefetchMethod ?? pick('recall_prefetch_method', 'prefetch_method') ?? 'recall',
  );
  const match = String(settings.recallTagsMatch ?? pick('recall_tags_match') ?? 'any');
  const types = normalizeTags(settings.recallTypes ?? pick('recall_types'));
  const int = (name: string, value: unknown, fallback: number, min = Number.NEGATIVE_INFINITY) => {
    const n = toNumber(value);
    if (value !== undefined && value !== '' && (n === undefined || !Number.isInteger(n))) {
      warnings.push(`Invalid integer Hindsight setting ${name}=${JSON.stringify(value)}; using ${fallback}.`);
      return fallback;
    }
    return n === undefined ? fallback : Math.max(min, n);
  };
  const seconds = (value: unknown, fallback: number) => {
    const n = toNumber(value);
    return n === undefined || n < 0 ? fallback : n;
  };
  const configuredURL =
    nonEmpty(settings.apiURL) ?? nonEmpty(pick('api_url')) ?? nonEmpty(env.HINDSIGHT_API_URL);
  return {
    mode,
    apiURL: (configuredURL ?? defaultURL).replace(/\/+$/, ''),
    apiURLSet: configuredURL !== undefined,
    apiKey:
      nonEmpty(settings.apiKey) ??
      nonEmpty(pick('apiKey', 'api_key')) ??
      nonEmpty(env.HINDSIGHT_API_KEY) ??
      '',
    bankId:
      nonEmpty(settings.bankId) ??
      nonEmpty(pick('bank_id')) ??
      nonEmpty(legacyBank.bankId) ??
      envOnly('HINDSIGHT_BANK_ID') ??
      'hermes',
    bankIdTemplate: nonEmpty(settings.bankIdTemplate) ?? nonEmpty(pick('bank_id_template')) ?? '',
    bankMission: nonEmpty(settings.bankMission) ?? nonEmpty(pick('bank_mission')) ?? '',
    bankRetainMission: nonEmpty(settings.bankRetainMission) ?? nonEmpty(pick('bank_retain_mission')) ?? '',
    recallBudget: budget === 'low' || budget === 'high' ? budget : 'mid',
    memoryMode: memoryMode === 'context' || memoryMode === 'tools' ? memoryMode : 'hybrid',
    prefetchMethod: method === 'reflect' ? 'reflect' : 'recall',
    retainTags: normalizeTags(settings.retainTags ?? pick('retain_tags') ?? env.HINDSIGHT_RETAIN_TAGS),
    observationScopes: normalizeObservationScopes(
      pick('observation_scopes') ?? env.HINDSIGHT_RETAIN_OBSERVATION_SCOPES,
    ),
    retainSource: String(pick('retain_source') ?? env.HINDSIGHT_RETAIN_SOURCE ?? '').trim(),
    retainUserPrefix:
      nonEmpty(pick('retain_user_prefix')) ?? nonEmpty(env.HINDSIGHT_RETAIN_USER_PREFIX) ?? 'User',
    retainAssistantPrefix:
      nonEmpty(pick('retain_assistant_prefix')) ??
      nonEmpty(env.HINDSIGHT_RETAIN_ASSISTANT_PREFIX) ??
      'Assistant',
    recallTags: normalizeTags(settings.recallTags ?? pick('recall_tags')),
    recallTagsMatch: (['any', 'all', 'any_strict', 'all_strict'] as const).find((m) => m === match) ?? 'any',
    recallTypes: types.length > 0 ? types : ['observation'],
    autoRecall: bool(settings.autoRecall ?? pick('auto_recall'), true),
    recallSync: bool(settings.recallSync ?? pick('recall_sync'), false),
    recallIndicator: bool(settings.recallIndicator ?? pick('recall_indicator'), true),
    retainIndicator: bool(settings.retainIndicator ?? pick('retain_indicator'), true),
    autoRetain: bool(settings.autoRetain ?? pick('auto_retain'), true),
    retainEveryNTurns: int(
      'retain_every_n_turns',
      settings.retainEveryNTurns ?? pick('retain_every_n_turns'),
      1,
      1,
    ),
    retainAsync: bool(settings.retainAsync ?? pick('retain_async'), true),
    prefetchWaitsForRetain: bool(settings.prefetchWaitsForRetain ?? pick('prefetch_waits_for_retain'), true),
    prefetchRetainDrainTimeout: seconds(
      settings.prefetchRetainDrainTimeout ?? pick('prefetch_retain_drain_timeout'),
      10,
    ),
    retainContext: String(settings.retainContext ?? pick('retain_context') ?? DEFAULT_RETAIN_CONTEXT),
    recallMaxTokens: int('recall_max_tokens', settings.recallMaxTokens ?? pick('recall_max_tokens'), 4096, 1),
    recallMaxInputChars: int(
      'recall_max_input_chars',
      settings.recallMaxInputChars ?? pick('recall_max_input_chars'),
      800,
      0,
    ),
    recallPromptPreamble: String(settings.recallPromptPreamble ?? pick('recall_prompt_preamble') ?? ''),
    timeout: int(
      'timeout',
      settings.timeout ?? pick('timeout') ?? nonEmpty(env.HINDSIGHT_TIMEOUT),
      DEFAULT_TIMEOUT_S,
      1,
    ),
    source: sources.source,
    warnings,
  };
}

/** The settings as config.json keys (what `setup` writes and `status` shows; never the key). */
export function configToJson(config: HindsightConfig): Record<string, unknown> {
  return {
    mode: config.mode,
    api_url: config.apiURL,
    bank_id: config.bankId,
    ...(config.bankIdTemplate ? { bank_id_template: config.bankIdTemplate } : {}),
    recall_budget: config.recallBudget,
    memory_mode: config.memoryMode,
    recall_prefetch_method: config.prefetchMethod,
    auto_recall: config.autoRecall,
    auto_retain: config.autoRetain,
    recall_sync: config.recallSync,
    retain_every_n_turns: config.retainEveryNTurns,
    retain_async: config.retainAsync,
    timeout: config.timeout,
  };
}

/** A CSV string, a JSON list in a string, or a list → distinct non-empty tags, order kept. */
export function normalizeTags(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  let items: unknown[];
  if (Array.isArray(value)) items = value;
  else if (typeof value === 'string') {
    const text = value.trim();
    if (text === '') return [];
    items = text.split(',');
    if (text.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (Array.isArray(parsed)) items = parsed;
      } catch {
        // Not JSON after all: the comma split stands.
      }
    }
  } else items = [value];
  const out: string[] = [];
  for (const item of items) {
    const tag = String(item).trim();
    if (tag !== '' && !out.includes(tag)) out.push(tag);
  }
  return out;
}

const SCOPE_KEYWORDS = new Set(['per_tag', 'combined', 'all_combinations']);

/** A keyword, a JSON list, a flat list (one scope) or a list of lists; anything else → null (omitted). */
export function normalizeObservationScopes(value: unknown): ObservationScopes | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    const text = value.trim();
    if (SCOPE_KEYWORDS.has(text)) return text as ObservationScopes;
    if (!text.startsWith('[')) return null;
    try {
      return normalizeObservationScopes(JSON.parse(text));
    } catch {
      return null;
    }
  }
  if (!Array.isArray(value)) return null;
  if (value.every((e) => typeof e === 'string')) {
    const inner = value.map((e: string) => e.trim()).filter((e) => e !== '');
    return inner.length > 0 ? [inner] : null;
  }
  const scopes: string[][] = [];
  for (const entry of value) {
    if (Array.isArray(entry)) {
      const inner = entry.map((t) => String(t).trim()).filter((t) => t !== '');
      if (inner.length > 0) scopes.push(inner);
    } else if (typeof entry === 'string' && entry.trim() !== '') scopes.push([entry.trim()]);
  }
  return scopes.length > 0 ? scopes : null;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function record(value: unknown): Source {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Source) : {};
}

function bool(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  return typeof value === 'number' ? value !== 0 : booleanSetting(value, fallback);
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}
