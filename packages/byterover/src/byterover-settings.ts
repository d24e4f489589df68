import path from 'node:path';
import { type Env, expandHome, parseBoolean, SettingsError } from '@hermes-memory/core';

/** How recall reaches the prompt (decision 0971). */
export type ByteroverPrefetchMode = 'background' | 'per-query';

/** Options of `createByteroverProvider`. Each may also come from config.yaml or the environment. */
export interface ByteroverProviderSettings {
  /**
   * The `brv` executable: a name looked up on PATH or a path. Config `brv_path`. Default: `brv` on
   * the provider's PATH, then `~/.brv-cli/bin/brv`, `/usr/local/bin/brv`, `~/.npm-global/bin/brv`.
   */
  brvPath?: string;
  /**
   * The project directory whose context tree (`.brv/context-tree`) holds the memory. Config
   * `workdir` (`~` expanded; relative to the profile home; blank ignored). Default
   * `<HERMES_HOME>/byterover`.
   */
  workdir?: string;
  /** ByteRover cloud key, optional (cloud sync). Env `BRV_API_KEY` (or `.env`), config `api_key`. */
  apiKey?: string;
  /** Curate turns, memory writes and pre-compression context automatically. Config `auto_extract`. Default true. */
  autoExtract?: boolean;
  /** Seconds a `brv curate` may run (1–3600; invalid → 120). Config `curate_timeout`. Default 120. */
  curateTimeout?: number;
  /** Seconds a `brv query` may run (0.01–3600; invalid → 10). Config `timeout_query`. Default 10. */
  queryTimeout?: number;
  /**
   * `background` (default): recall for a message starts at `onTurnStart`; turn 1 waits for it at
   * most 3 s (and the manager's budget), later turns never wait. `per-query`: the reference's
   * synchronous `brv query` on every turn, bounded by the query timeout and the manager's budget.
   * Config `prefetch_mode`.
   */
  prefetchMode?: ByteroverPrefetchMode;
  /**
   * Leave brv's own self-update on (it spawns a detached `brv update` after commands). Config
   * `auto_update`. Default false: the provider's children run with `BRV_DISABLE_AUTOUPDATE=1`.
   */
  autoUpdate?: boolean;
}

export interface ResolvedByteroverSettings {
  brvPath: string;
  workdir: string;
  /** '' when none is configured. */
  apiKey: string;
  autoExtract: boolean;
  /** Milliseconds. */
  curateTimeoutMs: number;
  queryTimeoutMs: number;
  statusTimeoutMs: number;
  prefetchMode: ByteroverPrefetchMode;
  autoUpdate: boolean;
}

export const BYTEROVER_DEFAULTS = {
  brvPath: 'brv',
  curateTimeoutS: 120,
  queryTimeoutS: 10,
  statusTimeoutS: 15,
} as const;

/** Where the reference looks after PATH, in its order. */
export const BRV_CANDIDATES: readonly string[] = [
  '~/.brv-cli/bin/brv',
  '/usr/local/bin/brv',
  '~/.npm-global/bin/brv',
];

type Source = Readonly<Record<string, unknown>>;

/**
 * Merge, in increasing priority: defaults, `memory.byterover` in config.yaml, the environment
 * (process env overlaid with `<home>/.env`), explicit settings. Pure: no I/O, so `isAvailable()`
 * can rely on it. Timeouts clamp as the reference's do (a bad value falls back to its default);
 * an unknown prefetch mode is a SettingsError.
 */
export function resolveByteroverSettings(
  settings: ByteroverProviderSettings,
  providerConfig: Source,
  env: Env,
  hermesHome: string,
): ResolvedByteroverSettings {
  const mode = settings.prefetchMode ?? stringValue(providerConfig.prefetch_mode) ?? 'background';
  if (mode !== 'background' && mode !== 'per-query')
    throw new SettingsError(
      'prefetchMode',
      `ByteRover setting 'prefetch_mode' must be 'background' or 'per-query', got '${mode}'.`,
    );
  return {
    brvPath: settings.brvPath ?? stringValue(providerConfig.brv_path) ?? BYTEROVER_DEFAULTS.brvPath,
    workdir: resolveWorkdir(settings.workdir ?? providerConfig.workdir, hermesHome),
    apiKey: settings.apiKey ?? nonEmpty(env.BRV_API_KEY) ?? stringValue(providerConfig.api_key) ?? '',
    autoExtract: settings.autoExtract ?? parseBoolean(providerConfig.auto_extract) ?? true,
    curateTimeoutMs:
      clampInteger(
        settings.curateTimeout ?? providerConfig.curate_timeout,
        1,
        3600,
        BYTEROVER_DEFAULTS.curateTimeoutS,
      ) * 1000,
    queryTimeoutMs: Math.round(
      clampNumber(
        settings.queryTimeout ?? providerConfig.timeout_query,
        0.01,
        3600,
        BYTEROVER_DEFAULTS.queryTimeoutS,
      ) * 1000,
    ),
    statusTimeoutMs: BYTEROVER_DEFAULTS.statusTimeoutS * 1000,
    prefetchMode: mode,
    autoUpdate: settings.autoUpdate ?? parseBoolean(providerConfig.auto_update) ?? false,
  };
}

/**
 * The context tree's project directory: `<home>/byterover` unless `workdir` names another one
 * (`~` expanded, relative paths taken from the profile home, blank ignored). Two profiles given
 * the same directory share one tree.
 */
export function resolveWorkdir(workdir: unknown, hermesHome: string): string {
  const configured = typeof workdir === 'string' ? workdir.trim() : '';
  if (configured === '') return path.join(hermesHome, 'byterover');
  return path.resolve(hermesHome, expandHome(configured));
}

/** An integer clamped to [min, max]; what is not a number gives the fallback (the reference's rule). */
export function clampInteger(value: unknown, min: number, max: number, fallback: number): number {
  const n = toNumber(value);
  if (n === undefined) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

function clampNumber(value: unknown, min: number, max: number, fallback: number): number {
  const n = toNumber(value);
  if (n === undefined) return fallback;
  return Math.min(max, Math.max(min, n));
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === 'boolean' || value === null || value === undefined) return undefined;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && value.trim() !== ''
        ? Number(value)
        : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value !== '' ? value : undefined;
}
