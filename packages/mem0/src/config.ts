import path from 'node:path';
import { type Clock, parseBoolean, readJsonConfig, SettingsError } from '@hermes-memory/core';

/** Where the memories live: Mem0 Platform (cloud), a self-hosted Mem0 server, or in-process OSS. */
export type Mem0Mode = 'platform' | 'oss';
export type Mem0BackendKind = 'platform' | 'selfhosted' | 'oss';

/** Options of `createMem0Provider`. Each one beats `mem0.json`, the environment and config.yaml. */
export interface Mem0ProviderSettings {
  /** `platform` (default; a `host` makes it the self-hosted server) or `oss`. Env `MEM0_MODE`. */
  mode?: Mem0Mode;
  /** Mem0 Platform or self-hosted server API key. Env `MEM0_API_KEY`. */
  apiKey?: string;
  /** A self-hosted Mem0 server (`http://localhost:8888`). Env `MEM0_HOST`. */
  host?: string;
  /** Mem0 Platform URL; tests point it at the fake. Default `https://api.mem0.ai`. Env `MEM0_PLATFORM_URL`. */
  platformURL?: string;
  /** Whose memories; "hermes-user" lets a gateway's user id win. Env `MEM0_USER_ID`. */
  userId?: string;
  /** Attached to writes. Default `hermes`. Env `MEM0_AGENT_ID`. */
  agentId?: string;
  /** Rerank searches (Platform only). Default false. */
  rerank?: boolean;
  /** Longest user or assistant message sent per turn, cut at a sentence end. Default 450. */
  syncMaxChars?: number;
  /** Let Mem0 extract facts from each turn (`infer`). Default true. */
  syncInfer?: boolean;
  /** The OSS block of mem0.json (`{llm, embedder, vector_store}`). */
  oss?: Readonly<Record<string, unknown>>;
  /** Budget of turn 1's recall, and of any prefetch that must wait. Default 3000 ms. */
  prefetchTimeoutMs?: number;
  /** Deadline of every backend request. Default 30 000 ms (the reference's HTTP timeout). */
  requestTimeoutMs?: number;
  /** How long a turn waits for the previous turn's write before it is skipped. Default 5000 ms. */
  syncWaitMs?: number;
  /** Circuit breaker: consecutive failures (default 5) and cooldown (default 120 000 ms). */
  breakerThreshold?: number;
  breakerCooldownMs?: number;
  /** Send the mem0ai SDK's usage telemetry to Mem0. Default false. Env `MEM0_TELEMETRY`. */
  telemetry?: boolean;
  /** Every timer (deadlines, breaker, sync wait) runs on it; tests pass a `ManualClock`. */
  clock?: Clock;
}

export interface ResolvedMem0Config {
  mode: Mem0Mode;
  backend: Mem0BackendKind;
  apiKey: string;
  host: string;
  platformURL: string;
  /** The configured id; `resolveUserId` picks the one used. */
  userId: string;
  agentId: string;
  rerank: boolean;
  syncMaxChars: number;
  syncInfer: boolean;
  oss: Readonly<Record<string, unknown>> | undefined;
  prefetchTimeoutMs: number;
  requestTimeoutMs: number;
  syncWaitMs: number;
  breakerThreshold: number;
  breakerCooldownMs: number;
  telemetry: boolean;
}

/** The placeholder id: a gateway's own user id wins over it. */
export const DEFAULT_USER_ID = 'hermes-user';
export const MEM0_CONFIG_FILE = 'mem0.json';
export const PLATFORM_URL = 'https://api.mem0.ai';

export const MEM0_DEFAULTS = {
  mode: 'platform' as Mem0Mode,
  userId: DEFAULT_USER_ID,
  agentId: 'hermes',
  rerank: false,
  syncMaxChars: 450,
  syncInfer: true,
  prefetchTimeoutMs: 3000,
  requestTimeoutMs: 30_000,
  syncWaitMs: 5000,
  breakerThreshold: 5,
  breakerCooldownMs: 120_000,
};

type Source = Readonly<Record<string, unknown>>;

/** `$HERMES_HOME/mem0.json`, or `{}` when missing; a corrupt file is a SettingsError naming it. */
export function readMem0Json(hermesHome: string | undefined): Source {
  if (!hermesHome) return {};
  const file = path.join(hermesHome, MEM0_CONFIG_FILE);
  const read = readJsonConfig(file);
  if (read.status === 'invalid') throw new SettingsError(MEM0_CONFIG_FILE, `Mem0 config ${read.error}.`);
  return read.data;
}

/** A value counts when it is set and not "" (mem0.json's nulls and empty strings are skipped). */
function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/**
 * The reference's precedence, key by key, lowest first: defaults, `memory.mem0` in config.yaml,
 * the environment (`MEM0_*`, with `<home>/.env`), `$HERMES_HOME/mem0.json`, then the settings
 * passed in code. Invalid values are a SettingsError naming the key.
 */
export function resolveMem0Config(
  settings: Mem0ProviderSettings,
  sources: { providerConfig?: Source; env?: Readonly<Record<string, string | undefined>>; file?: Source },
): ResolvedMem0Config {
  const env = sources.env ?? {};
  const envSource: Source = {
    mode: env.MEM0_MODE,
    host: env.MEM0_HOST,
    api_key: env.MEM0_API_KEY,
    user_id: env.MEM0_USER_ID,
    agent_id: env.MEM0_AGENT_ID,
    platform_url: env.MEM0_PLATFORM_URL,
    telemetry: env.MEM0_TELEMETRY,
  };
  const code: Source = {
    mode: settings.mode,
    host: settings.host,
    api_key: settings.apiKey,
    platform_url: settings.platformURL,
    user_id: settings.userId,
    agent_id: settings.agentId,
    rerank: settings.rerank,
    sync_max_chars: settings.syncMaxChars,
    sync_infer: settings.syncInfer,
    oss: settings.oss,
    prefetch_timeout_ms: settings.prefetchTimeoutMs,
    request_timeout_ms: settings.requestTimeoutMs,
    sync_wait_ms: settings.syncWaitMs,
    breaker_threshold: settings.breakerThreshold,
    breaker_cooldown_ms: settings.breakerCooldownMs,
    telemetry: settings.telemetry,
  };
  const layers = [code, sources.file ?? {}, envSource, sources.providerConfig ?? {}];
  const pick = (key: string): unknown => layers.find((layer) => present(layer[key]))?.[key];

  const mode = stringOf('mode', pick('mode')) ?? MEM0_DEFAULTS.mode;
  // The setup wizard's third choice: a host makes platform mode talk to a self-hosted server.
  const normalisedMode = mode === 'selfhosted' || mode === 'self-hosted' ? 'platform' : mode;
  if (normalisedMode !== 'platform' && normalisedMode !== 'oss') {
    throw new SettingsError('mode', `Mem0 mode must be "platform" or "oss", got "${mode}".`);
  }
  const host = (stringOf('host', pick('host')) ?? '').replace(/\/+$/, '');
  const oss = pick('oss');
  if (oss !== undefined && (typeof oss !== 'object' || oss === null || Array.isArray(oss))) {
    throw new SettingsError('oss', 'Mem0 setting "oss" must be an object {llm, embedder, vector_store}.');
  }
  return {
    mode: normalisedMode,
    backend: normalisedMode === 'oss' ? 'oss' : host !== '' ? 'selfhosted' : 'platform',
    apiKey: stringOf('api_key', pick('api_key')) ?? '',
    host,
    platformURL: (stringOf('platform_url', pick('platform_url')) ?? PLATFORM_URL).replace(/\/+$/, ''),
    userId: stringOf('user_id', pick('user_id')) ?? MEM0_DEFAULTS.userId,
    agentId: stringOf('agent_id', pick('agent_id')) ?? MEM0_DEFAULTS.agentId,
    rerank: booleanOf('rerank', pick('rerank')) ?? MEM0_DEFAULTS.rerank,
    syncMaxChars:
      integerOf('sync_max_chars', pick('sync_max_chars'), 20, 100_000) ?? MEM0_DEFAULTS.syncMaxChars,
    syncInfer: booleanOf('sync_infer', pick('sync_infer')) ?? MEM0_DEFAULTS.syncInfer,
    oss: oss as Source | undefined,
    prefetchTimeoutMs:
      integerOf('prefetch_timeout_ms', pick('prefetch_timeout_ms'), 0, 600_000) ??
      MEM0_DEFAULTS.prefetchTimeoutMs,
    requestTimeoutMs:
      integerOf('request_timeout_ms', pick('request_timeout_ms'), 1, 600_000) ??
      MEM0_DEFAULTS.requestTimeoutMs,
    syncWaitMs: integerOf('sync_wait_ms', pick('sync_wait_ms'), 0, 600_000) ?? MEM0_DEFAULTS.syncWaitMs,
    breakerThreshold:
      integerOf('breaker_threshold', pick('breaker_threshold'), 1, 1000) ?? MEM0_DEFAULTS.breakerThreshold,
    breakerCooldownMs:
      integerOf('breaker_cooldown_ms', pick('breaker_cooldown_ms'), 0, 86_400_000) ??
      MEM0_DEFAULTS.breakerCooldownMs,
    telemetry: booleanOf('telemetry', pick('telemetry')) ?? false,
  };
}

/**
 * The reference's ladder: the configured id unless it is the "hermes-user" placeholder, then the
 * gateway's own user id, then "hermes-user".
 */
export function resolveUserId(configured: string, gatewayUserId: string | undefined): string {
  if (configured !== '' && configured !== DEFAULT_USER_ID) return configured;
  if (gatewayUserId !== undefined && gatewayUserId.trim() !== '') return gatewayUserId;
  return DEFAULT_USER_ID;
}

/** Availability from configuration alone: OSS needs a vector store, the others a key or a host. */
export function isConfigured(config: ResolvedMem0Config): boolean {
  if (config.mode === 'oss') return config.oss !== undefined && present(config.oss.vector_store);
  return config.apiKey !== '' || config.host !== '';
}

export function unavailableReasonFor(config: ResolvedMem0Config): string {
  if (isConfigured(config)) return '';
  if (config.mode === 'oss') return 'Mem0 OSS mode needs oss.vector_store in mem0.json.';
  return 'Mem0 needs MEM0_API_KEY (Mem0 Platform) or MEM0_HOST (a self-hosted server).';
}

function stringOf(key: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new SettingsError(key, `Mem0 setting "${key}" must be a string.`);
  return value.trim();
}

function booleanOf(key: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  const parsed = parseBoolean(value);
  if (parsed === undefined) {
    throw new SettingsError(
      key,
      `Mem0 setting "${key}" must be true or false, got ${JSON.stringify(value)}.`,
    );
  }
  return parsed;
}

function integerOf(key: string, value: unknown, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new SettingsError(
      key,
      `Mem0 setting "${key}" must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}.`,
    );
  }
  return n;
}
