import { type Env, SettingsError, loadApiKey, loadOptionalSetting, parseBoolean } from '@hermes-memory/core';

/** Options of `createTemplateProvider`. Each may also come from the environment or config.yaml. */
export interface TemplateProviderSettings {
  /** The service's base URL. Env `TEMPLATE_BASE_URL`, config `base_url`. Default `http://127.0.0.1:8765`. */
  baseURL?: string;
  /** The API key, sent as `Authorization: Bearer <key>`. Env `TEMPLATE_API_KEY` (or `.env`). */
  apiKey?: string;
  /** Results per search and per prefetch (1–50). Env `TEMPLATE_MAX_RESULTS`, config `max_results`. Default 5. */
  maxResults?: number;
  /** Per-request timeout in ms (the manager's budgets cut it shorter). Config `timeout_ms`. Default 10 000. */
  timeoutMs?: number;
  /** Retries of a failed request that is safe to repeat (0–5). Config `max_retries`. Default 2. */
  maxRetries?: number;
  /** Longest entry stored from a tool or a turn, in characters. Config `max_entry_chars`. Default 4000. */
  maxEntryChars?: number;
  /** `false` turns the provider off. Env `TEMPLATE_ENABLED`, config `enabled`. Default true. */
  enabled?: boolean;
}

export interface ResolvedTemplateSettings {
  baseURL: string;
  /** '' when no key is configured (the provider is then unavailable). */
  apiKey: string;
  maxResults: number;
  timeoutMs: number;
  maxRetries: number;
  maxEntryChars: number;
  enabled: boolean;
}

export const TEMPLATE_DEFAULTS = {
  baseURL: 'http://127.0.0.1:8765',
  maxResults: 5,
  timeoutMs: 10_000,
  maxRetries: 2,
  maxEntryChars: 4000,
} as const;

type Source = Readonly<Record<string, unknown>>;

/**
 * Merge, in increasing priority: defaults, `memory.template` in config.yaml, the environment
 * (process env overlaid with `<home>/.env`), explicit settings. Pure: no I/O, so `isAvailable()`
 * can call it. Invalid values are a SettingsError naming the setting.
 */
export function resolveTemplateSettings(
  settings: TemplateProviderSettings,
  providerConfig: Source = {},
  env: Env = {},
): ResolvedTemplateSettings {
  const baseURL =
    loadOptionalSetting({
      settingValue: settings.baseURL ?? stringValue(providerConfig.base_url),
      environmentVariableName: 'TEMPLATE_BASE_URL',
      env,
    }) ?? TEMPLATE_DEFAULTS.baseURL;
  const enabled =
    settings.enabled ?? parseBoolean(env.TEMPLATE_ENABLED) ?? parseBoolean(providerConfig.enabled) ?? true;
  return {
    baseURL,
    apiKey: settings.apiKey ?? env.TEMPLATE_API_KEY ?? stringValue(providerConfig.api_key) ?? '',
    maxResults: integer(
      'maxResults',
      settings.maxResults ?? env.TEMPLATE_MAX_RESULTS ?? providerConfig.max_results,
      TEMPLATE_DEFAULTS.maxResults,
      1,
      50,
    ),
    timeoutMs: integer(
      'timeoutMs',
      settings.timeoutMs ?? providerConfig.timeout_ms,
      TEMPLATE_DEFAULTS.timeoutMs,
      100,
      300_000,
    ),
    maxRetries: integer(
      'maxRetries',
      settings.maxRetries ?? providerConfig.max_retries,
      TEMPLATE_DEFAULTS.maxRetries,
      0,
      5,
    ),
    maxEntryChars: integer(
      'maxEntryChars',
      settings.maxEntryChars ?? providerConfig.max_entry_chars,
      TEMPLATE_DEFAULTS.maxEntryChars,
      1,
      1_000_000,
    ),
    enabled,
  };
}

/** The key, or the SettingsError every backend words the same way (`initialize` calls this). */
export function requireApiKey(settings: ResolvedTemplateSettings): string {
  return loadApiKey({
    apiKey: settings.apiKey === '' ? undefined : settings.apiKey,
    environmentVariableName: 'TEMPLATE_API_KEY',
    description: 'Template',
  });
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
      `Template setting '${name}' must be an integer from ${min} to ${max}, got ${String(value)}.`,
    );
  }
  return n;
}
