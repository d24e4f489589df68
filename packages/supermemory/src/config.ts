import path from 'node:path';
import { type Env, mergeJsonConfig, parseBoolean, readJsonConfig } from '@hermes-memory/core';
import { DEFAULT_ENTITY_CONTEXT } from './text';

/** The reference's search modes; anything else falls back to `hybrid`. */
export type SearchMode = 'hybrid' | 'memories' | 'documents';
const SEARCH_MODES: ReadonlySet<string> = new Set(['hybrid', 'memories', 'documents']);

/** `$HERMES_HOME/supermemory.json`, the reference's own config file (read and written as it does). */
export const CONFIG_FILE = 'supermemory.json';
export const DEFAULT_BASE_URL = 'https://api.supermemory.ai';
/** The longest entity context the service is sent. */
export const ENTITY_CONTEXT_MAX = 1500;

/**
 * Options of `createSupermemoryProvider`. Each overrides the same key of `supermemory.json` and of
 * `memory.supermemory` in config.yaml (snake_case there).
 */
export interface SupermemoryProviderSettings {
  /** Env `SUPERMEMORY_API_KEY` (or `<home>/.env`). */
  apiKey?: string;
  /** Config `base_url`, env `SUPERMEMORY_BASE_URL`. Default `https://api.supermemory.ai`. */
  baseURL?: string;
  /** Raw tag; `{identity}` is replaced by the profile name, then the tag is sanitised. Default `hermes`. */
  containerTag?: string;
  autoRecall?: boolean;
  autoCapture?: boolean;
  /** Items per recall list (1–20). Default 10. */
  maxRecallResults?: number;
  /** Profile facts are recalled on turn 1 and every this many turns (1–500). Default 50. */
  profileFrequency?: number;
  captureMode?: string;
  searchMode?: SearchMode;
  entityContext?: string;
  /** Per-request timeout in seconds (0.5–15). Default 5. */
  apiTimeout?: number;
  enableCustomContainerTags?: boolean;
  customContainers?: readonly string[];
  customContainerInstructions?: string;
}

/** Every setting resolved, in the reference's key names' meaning. */
export interface SupermemoryConfig {
  apiKey: string;
  baseURL: string;
  /** Raw, before `{identity}` and sanitising (kept raw in the file, as the reference does). */
  containerTag: string;
  /** `SUPERMEMORY_CONTAINER_TAG` was set: it wins over the config's tag. */
  containerTagFromEnv: boolean;
  autoRecall: boolean;
  autoCapture: boolean;
  maxRecallResults: number;
  profileFrequency: number;
  captureMode: 'all' | 'everything';
  searchMode: SearchMode;
  entityContext: string;
  /** Seconds. */
  apiTimeout: number;
  enableCustomContainerTags: boolean;
  customContainers: string[];
  customContainerInstructions: string;
}

type Source = Readonly<Record<string, unknown>>;

/** `supermemory.json`'s object; `{}` when it is missing or unreadable (the reference falls back to defaults). */
export function readSupermemoryJson(hermesHome: string | undefined): Source {
  if (!hermesHome) return {};
  return readJsonConfig(path.join(hermesHome, CONFIG_FILE)).data;
}

/**
 * Merge `values` into `supermemory.json`: key by key into what is there, sorted keys, atomic, 0600
 * (core's profile JSON config). The API key never goes here — it belongs in `<home>/.env`.
 */
export function saveSupermemoryJson(hermesHome: string, values: Source): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (key === 'api_key' || value === null) continue;
    patch[key] = value;
  }
  return mergeJsonConfig(path.join(hermesHome, CONFIG_FILE), patch);
}

/**
 * Resolve every setting. Priority, highest first: explicit settings, the environment (key, base
 * URL, tag only), `supermemory.json`, `memory.supermemory` in config.yaml, defaults. Values are
 * coerced as the reference does: booleans from yes/no/on/off/1/0 strings, invalid numbers → the
 * default, numbers clamped to their range, nulls ignored. Pure: never throws, no I/O.
 */
export function resolveSupermemoryConfig(
  settings: SupermemoryProviderSettings,
  sources: { file?: Source; providerConfig?: Source; env?: Env },
): SupermemoryConfig {
  const env = sources.env ?? {};
  const file = sources.file ?? {};
  const yaml = sources.providerConfig ?? {};
  const pick = (key: string): unknown =>
    (file[key] ?? null) !== null ? file[key] : (yaml[key] ?? undefined);
  const envTag = (env.SUPERMEMORY_CONTAINER_TAG ?? '').trim();
  const baseURL =
    nonEmpty(settings.baseURL) ??
    nonEmpty(pick('base_url')) ??
    nonEmpty(env.SUPERMEMORY_BASE_URL) ??
    DEFAULT_BASE_URL;
  const entity = (nonEmpty(settings.entityContext) ?? nonEmpty(pick('entity_context')) ?? '').trim();
  const captureMode = String(settings.captureMode ?? pick('capture_mode') ?? 'all')
    .trim()
    .toLowerCase();
  const searchMode = String(settings.searchMode ?? pick('search_mode') ?? 'hybrid')
    .trim()
    .toLowerCase();
  const customs = settings.customContainers ?? pick('custom_containers');
  return {
    apiKey: nonEmpty(settings.apiKey) ?? nonEmpty(env.SUPERMEMORY_API_KEY) ?? '',
    baseURL: baseURL.replace(/\/+$/, ''),
    containerTag:
      nonEmpty(settings.containerTag) ?? (envTag || undefined) ?? nonEmpty(pick('container_tag')) ?? 'hermes',
    containerTagFromEnv: settings.containerTag === undefined && envTag !== '',
    autoRecall: bool(settings.autoRecall ?? pick('auto_recall'), true),
    autoCapture: bool(settings.autoCapture ?? pick('auto_capture'), true),
    maxRecallResults: clampInt(settings.maxRecallResults ?? pick('max_recall_results'), 10, 1, 20),
    profileFrequency: clampInt(settings.profileFrequency ?? pick('profile_frequency'), 50, 1, 500),
    captureMode: captureMode === 'everything' ? 'everything' : 'all',
    searchMode: SEARCH_MODES.has(searchMode) ? (searchMode as SearchMode) : 'hybrid',
    entityContext: entity === '' ? DEFAULT_ENTITY_CONTEXT : entity.slice(0, ENTITY_CONTEXT_MAX),
    apiTimeout: clampNumber(settings.apiTimeout ?? pick('api_timeout'), 5, 0.5, 15),
    enableCustomContainerTags: bool(
      settings.enableCustomContainerTags ?? pick('enable_custom_container_tags'),
      false,
    ),
    customContainers: Array.isArray(customs) ? customs.filter((c): c is string => typeof c === 'string') : [],
    customContainerInstructions: String(
      settings.customContainerInstructions ?? pick('custom_container_instructions') ?? '',
    ).trim(),
  };
}

/** The settings as `supermemory.json` keys (what `setup` writes, what `status` shows). */
export function configToJson(config: SupermemoryConfig): Record<string, unknown> {
  return {
    container_tag: config.containerTag,
    auto_recall: config.autoRecall,
    auto_capture: config.autoCapture,
    max_recall_results: config.maxRecallResults,
    profile_frequency: config.profileFrequency,
    capture_mode: config.captureMode,
    search_mode: config.searchMode,
    entity_context: config.entityContext,
    api_timeout: config.apiTimeout,
    ...(config.baseURL !== DEFAULT_BASE_URL ? { base_url: config.baseURL } : {}),
    enable_custom_container_tags: config.enableCustomContainerTags,
    custom_containers: config.customContainers,
    custom_container_instructions: config.customContainerInstructions,
  };
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function bool(value: unknown, fallback: boolean): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  return parseBoolean(value) ?? fallback;
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim());
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function clampNumber(value: unknown, fallback: number, min: number, max: number): number {
  const n = toNumber(value);
  return n === undefined ? fallback : Math.min(max, Math.max(min, n));
}

function clampInt(value: unknown, fallback: number, min: number, max: number): number {
  const n = toNumber(value);
  return n === undefined ? fallback : Math.min(max, Math.max(min, Math.trunc(n)));
}
