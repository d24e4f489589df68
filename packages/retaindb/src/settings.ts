import path from 'node:path';
import { type Env, SettingsError, loadApiKey, parseBoolean } from '@hermes-memory/core';

/** Options of `createRetaindbProvider`. Each may also come from the environment or config.yaml. */
export interface RetaindbProviderSettings {
  /** The API key. Env `RETAINDB_API_KEY` (or `.env`). A leading "Bearer " is stripped. */
  apiKey?: string;
  /** Env `RETAINDB_BASE_URL`, config `memory.retaindb.base_url`. Default `https://api.retaindb.com`. */
  baseURL?: string;
  /** The data partition. Env `RETAINDB_PROJECT`, config `project`. Default `hermes-<profile>` or `default`. */
  project?: string;
  /** User id sent with every scoped request. Default: `InitContext.userId`, else "default". */
  userId?: string;
  /** Agent id for the self-model and the SOUL.md seed. Default "hermes". */
  agentId?: string;
  /** Upper bound of every request's timeout in ms (below it the reference's per-route timeouts, 4–60 s, apply). Config `timeout_ms`. */
  timeoutMs?: number;
  /** Lease of a claimed queue row and of the writer's lock, in ms. Config `lease_ms`. Default 60 000. */
  leaseMs?: number;
  /** First delay after a failed ingest, doubled per failure up to `maxBackoffMs`. Default 2 000. */
  backoffMs?: number;
  /** Longest delay between ingest retries. Default 60 000. */
  maxBackoffMs?: number;
  /** `false` turns the provider off. Env `RETAINDB_ENABLED`, config `enabled`. Default true. */
  enabled?: boolean;
}

export interface ResolvedRetaindbSettings {
  /** '' when no key is configured (the provider is then unavailable). */
  apiKey: string;
  baseURL: string;
  /** '' when none is configured; `projectFor(settings, home)` gives the default. */
  project: string;
  userId: string;
  agentId: string;
  timeoutMs: number | undefined;
  leaseMs: number;
  backoffMs: number;
  maxBackoffMs: number;
  enabled: boolean;
}

export const RETAINDB_DEFAULTS = {
  baseURL: 'https://api.retaindb.com',
  leaseMs: 60_000,
  backoffMs: 2000,
  maxBackoffMs: 60_000,
} as const;

type Source = Readonly<Record<string, unknown>>;

/**
 * Merge, in increasing priority: defaults, `memory.retaindb` in config.yaml, the environment
 * (process env overlaid with `<home>/.env`), explicit settings — the reference's precedence
 * (env var > config.yaml > default). Pure: `isAvailable()` calls it.
 */
export function resolveRetaindbSettings(
  settings: RetaindbProviderSettings,
  providerConfig: Source = {},
  env: Env = {},
): ResolvedRetaindbSettings {
  const baseURL =
    settings.baseURL ??
    nonEmpty(env.RETAINDB_BASE_URL) ??
    nonEmpty(providerConfig.base_url) ??
    RETAINDB_DEFAULTS.baseURL;
  return {
    apiKey: stripBearer(settings.apiKey ?? nonEmpty(env.RETAINDB_API_KEY) ?? ''),
    baseURL: baseURL.trim().replace(/\/+$/, ''),
    project: (
      settings.project ??
      nonEmpty(env.RETAINDB_PROJECT) ??
      nonEmpty(providerConfig.project) ??
      ''
    ).trim(),
    userId: settings.userId ?? '',
    agentId: settings.agentId ?? nonEmpty(providerConfig.agent_id) ?? 'hermes',
    timeoutMs:
      settings.timeoutMs === undefined && providerConfig.timeout_ms === undefined
        ? undefined
        : integer('timeoutMs', settings.timeoutMs ?? providerConfig.timeout_ms, 8000, 100, 300_000),
    leaseMs: integer(
      'leaseMs',
      settings.leaseMs ?? providerConfig.lease_ms,
      RETAINDB_DEFAULTS.leaseMs,
      1000,
      3_600_000,
    ),
    backoffMs: integer(
      'backoffMs',
      settings.backoffMs ?? providerConfig.backoff_ms,
      RETAINDB_DEFAULTS.backoffMs,
      0,
      600_000,
    ),
    maxBackoffMs: integer(
      'maxBackoffMs',
      settings.maxBackoffMs ?? providerConfig.max_backoff_ms,
      RETAINDB_DEFAULTS.maxBackoffMs,
      0,
      3_600_000,
    ),
    enabled:
      settings.enabled ?? parseBoolean(env.RETAINDB_ENABLED) ?? parseBoolean(providerConfig.enabled) ?? true,
  };
}

/**
 * The project when none is configured: `hermes-<basename of the home>` for a named profile home,
 * `default` for `~/.hermes` or no home (the API creates "default" on first use).
 */
export function projectFor(settings: ResolvedRetaindbSettings, hermesHome: string | undefined): string {
  if (settings.project !== '') return settings.project;
  const base = hermesHome ? path.basename(path.resolve(hermesHome)) : '';
  return base === '' || base === '.hermes' ? 'default' : `hermes-${base}`;
}

/** The key, or the SettingsError every backend words the same way (`initialize` calls this). */
export function requireApiKey(settings: ResolvedRetaindbSettings): string {
  return loadApiKey({
    apiKey: settings.apiKey === '' ? undefined : settings.apiKey,
    environmentVariableName: 'RETAINDB_API_KEY',
    env: {}, // already merged into the settings: never fall back to process.env here
    description: 'RetainDB',
  });
}

function stripBearer(key: string): string {
  return key.replace(/^Bearer\s+/i, '').trim();
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new SettingsError(
      name,
      `RetainDB setting '${name}' must be an integer from ${min} to ${max}, got ${String(value)}.`,
    );
  }
  return n;
}
