import { type Env, loadOptionalSetting, parseBoolean, SettingsError } from '@hermes-memory/core';
import { isUserId } from './matrix/types';

/** Options of `createHivemindProvider`. Each may also come from the environment or config.yaml. */
export interface HivemindProviderSettings {
  /** The homeserver's base URL. Env `MATRIX_HOMESERVER`, config `homeserver`. */
  homeserver?: string;
  /** This agent's Matrix user id, `@name:server`. Env `MATRIX_USER_ID`, config `user_id`. */
  userId?: string;
  /** The agent's access token (sent as Bearer). Env `MATRIX_ACCESS_TOKEN` (or `.env`), config `access_token`. */
  accessToken?: string;
  /** Newest messages `hivemind_check_messages` returns per peer (1–100). Config `message_limit`. Default 20. */
  messageLimit?: number;
  /** Per-request timeout in ms (the manager's budgets cut it shorter). Config `timeout_ms`. Default 10 000. */
  timeoutMs?: number;
  /** Retries of a failed request that is safe to repeat (0–5). Config `max_retries`. Default 2. */
  maxRetries?: number;
  /** How long the first turn waits for the first sync (ms). Config `first_sync_wait_ms`. Default 2500 (under the 3 s first-turn budget). */
  firstSyncWaitMs?: number;
  /**
   * The shared notebook's base URL (the reference's Hermes notebook, `GET /api/search`). Opt-in:
   * with it set, each turn's message is searched there. Env `HERMES_URL`, config `notebook_url`.
   */
  notebookUrl?: string;
  /** The notebook's secret key (entries' text is returned only with it). Env `HERMES_SECRET_KEY`. */
  notebookKey?: string;
  /** Per notebook request, in ms. Config `notebook_timeout_ms`. Default 5000 (the reference's). */
  notebookTimeoutMs?: number;
  /** `false` turns the provider off. Env `HIVEMIND_ENABLED`, config `enabled`. Default true. */
  enabled?: boolean;
  /**
   * Peer summaries and introduction suggestions through the agent's model (`InitContext.llm`), in
   * the background sync. Env `HIVEMIND_SPARKS`, config `sparks`. Default true (nothing runs without a model).
   */
  sparks?: boolean;
}

export interface ResolvedHivemindSettings {
  /** '' when unset (the provider is then unavailable). */
  homeserver: string;
  userId: string;
  accessToken: string;
  messageLimit: number;
  timeoutMs: number;
  maxRetries: number;
  firstSyncWaitMs: number;
  /** '' when no notebook is configured. */
  notebookUrl: string;
  notebookKey: string;
  notebookTimeoutMs: number;
  enabled: boolean;
  sparks: boolean;
}

export const HIVEMIND_DEFAULTS = {
  messageLimit: 20,
  timeoutMs: 10_000,
  maxRetries: 2,
  firstSyncWaitMs: 2500,
  notebookTimeoutMs: 5000,
} as const;

type Source = Readonly<Record<string, unknown>>;

/**
 * Merge, in increasing priority: defaults, `memory.hivemind` in config.yaml, the environment
 * (process env overlaid with `<home>/.env`; the reference's `MATRIX_*` trio), explicit settings.
 * Pure: no I/O, so `isAvailable()` can call it. Invalid values are a SettingsError naming the setting.
 */
export function resolveHivemindSettings(
  settings: HivemindProviderSettings,
  providerConfig: Source = {},
  env: Env = {},
): ResolvedHivemindSettings {
  const text = (value: string | undefined, variable: string, key: string) =>
    loadOptionalSetting({
      settingValue: value ?? stringValue(providerConfig[key]),
      environmentVariableName: variable,
      env,
    }) ?? '';
  const userId = text(settings.userId, 'MATRIX_USER_ID', 'user_id');
  if (userId !== '' && !isUserId(userId)) {
    throw new SettingsError(
      'userId',
      `Hivemind setting 'userId' must be a Matrix user id like @name:server, got '${userId}'.`,
    );
  }
  const notebookUrl = text(settings.notebookUrl, 'HERMES_URL', 'notebook_url').replace(/\/+$/, '');
  if (notebookUrl !== '' && !isHttpUrl(notebookUrl)) {
    throw new SettingsError(
      'notebookUrl',
      `Hivemind setting 'notebookUrl' must be an http(s) URL, got '${notebookUrl}'.`,
    );
  }
  return {
    homeserver: text(settings.homeserver, 'MATRIX_HOMESERVER', 'homeserver'),
    userId,
    accessToken:
      settings.accessToken ?? env.MATRIX_ACCESS_TOKEN ?? stringValue(providerConfig.access_token) ?? '',
    messageLimit: integer(
      'messageLimit',
      settings.messageLimit ?? providerConfig.message_limit,
      HIVEMIND_DEFAULTS.messageLimit,
      1,
      100,
    ),
    timeoutMs: integer(
      'timeoutMs',
      settings.timeoutMs ?? providerConfig.timeout_ms,
      HIVEMIND_DEFAULTS.timeoutMs,
      100,
      30_000,
    ),
    maxRetries: integer(
      'maxRetries',
      settings.maxRetries ?? providerConfig.max_retries,
      HIVEMIND_DEFAULTS.maxRetries,
      0,
      5,
    ),
    firstSyncWaitMs: integer(
      'firstSyncWaitMs',
      settings.firstSyncWaitMs ?? providerConfig.first_sync_wait_ms,
      HIVEMIND_DEFAULTS.firstSyncWaitMs,
      0,
      30_000,
    ),
    notebookUrl,
    notebookKey:
      settings.notebookKey ?? env.HERMES_SECRET_KEY ?? stringValue(providerConfig.notebook_key) ?? '',
    notebookTimeoutMs: integer(
      'notebookTimeoutMs',
      settings.notebookTimeoutMs ?? providerConfig.notebook_timeout_ms,
      HIVEMIND_DEFAULTS.notebookTimeoutMs,
      100,
      30_000,
    ),
    sparks:
      settings.sparks ?? parseBoolean(env.HIVEMIND_SPARKS) ?? parseBoolean(providerConfig.sparks) ?? true,
    enabled:
      settings.enabled ?? parseBoolean(env.HIVEMIND_ENABLED) ?? parseBoolean(providerConfig.enabled) ?? true,
  };
}

/** The names of the connection settings still missing ('' when complete). */
export function missingConnection(settings: ResolvedHivemindSettings): string[] {
  const missing: string[] = [];
  if (settings.homeserver === '') missing.push('MATRIX_HOMESERVER');
  if (settings.userId === '') missing.push('MATRIX_USER_ID');
  if (settings.accessToken === '') missing.push('MATRIX_ACCESS_TOKEN');
  return missing;
}

/** Whether the notebook is configured (the provider is useful with it alone). */
export function hasNotebook(settings: ResolvedHivemindSettings): boolean {
  return settings.notebookUrl !== '';
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function integer(name: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new SettingsError(
      name,
      `Hivemind setting '${name}' must be an integer from ${min} to ${max}, got ${String(value)}.`,
    );
  }
  return n;
}
