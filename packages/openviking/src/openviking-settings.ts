import { type Env, parseBoolean } from '@hermes-memory/core';
import { checkEndpoint, DEFAULT_ENDPOINT } from './endpoint';
import { defaultOvcliPath, type OvcliProfile, readOvcliProfile } from './ovcli';

/** Options of `createOpenvikingProvider`. Each may also come from the environment, a linked CLI profile or config.yaml. */
export interface OpenvikingProviderSettings {
  /** The server. Env `OPENVIKING_ENDPOINT` (or `OPENVIKING_URL`), ovcli `url`, config `endpoint`. Default `http://127.0.0.1:1933`. */
  endpoint?: string;
  /** Sent as `X-API-Key` and `Authorization: Bearer`. Env `OPENVIKING_API_KEY` or ovcli `api_key` — never config.yaml. */
  apiKey?: string;
  /** Tenant account (no key, or a trusted-mode server). Env `OPENVIKING_ACCOUNT`, ovcli, config `account`. Default `default`. */
  account?: string;
  /** Tenant user. Env `OPENVIKING_USER`, ovcli, config `user`. Default `default`. */
  user?: string;
  /** Peer id memories are scoped to ('' = the user's own memory). Env `OPENVIKING_AGENT`, ovcli `actor_peer_id`, config `agent`. */
  agent?: string;
  /** An OpenViking CLI profile to read. Env `OPENVIKING_CLI_CONFIG_FILE`, config `ovcli_config_path` (with `use_ovcli_config`). */
  ovcliConfigPath?: string;
  /** Recall tuning (config `recall_*`, env `OPENVIKING_RECALL_*`). */
  recall?: Partial<RecallSettings>;
  /** Per-request timeout, ms. Default 30 000 (recall uses its own, shorter budgets). */
  timeoutMs?: number;
  /** Start `openviking-server` for a loopback endpoint that does not answer. Config `auto_start`. Default true. */
  autoStart?: boolean;
  /** The server program. Config `server_command`. Default `openviking-server` on PATH. */
  serverCommand?: string;
}

export interface RecallSettings {
  limit: number;
  scoreThreshold: number;
  maxInjectedChars: number;
  profileTokenBudget: number;
  timeoutMs: number;
  requestTimeoutMs: number;
  fullReadLimit: number;
  preferAbstract: boolean;
  resources: boolean;
}

export type SettingSource = 'option' | 'env' | 'ovcli' | 'config' | 'default';

export interface ResolvedOpenvikingSettings {
  /** Normalised, or '' when invalid (see `endpointError`). */
  endpoint: string;
  endpointError: string | null;
  /** An endpoint was configured somewhere (isAvailable). */
  configured: boolean;
  apiKey: string;
  account: string;
  user: string;
  agent: string;
  /** Identity values that break the server's rules; the provider stays off while any is set. */
  identityError: string | null;
  ovcli: OvcliProfile | null;
  recall: RecallSettings;
  timeoutMs: number;
  autoStart: boolean;
  serverCommand: string;
  sources: Record<'endpoint' | 'apiKey' | 'account' | 'user' | 'agent', SettingSource>;
  /** One line per ignored value (out of range, not a number). */
  warnings: string[];
}

/** name, default, min, max; env `OPENVIKING_<NAME>`, config `<name>`. */
const RECALL_FIELDS: ReadonlyArray<[keyof RecallSettings, string, number | boolean, number?, number?]> = [
  ['limit', 'recall_limit', 6, 1, 100],
  ['scoreThreshold', 'recall_score_threshold', 0.15, 0, 1],
  ['maxInjectedChars', 'recall_max_injected_chars', 4000, 100, 50_000],
  ['profileTokenBudget', 'profile_token_budget', 6000, 500, 50_000],
  ['timeoutMs', 'recall_timeout_seconds', 4, 0.25, 60],
  ['requestTimeoutMs', 'recall_request_timeout_seconds', 3, 0.25, 60],
  ['fullReadLimit', 'recall_full_read_limit', 2, 0, 100],
  ['preferAbstract', 'recall_prefer_abstract', false],
  ['resources', 'recall_resources', false],
];
const INTEGER_FIELDS = new Set(['limit', 'maxInjectedChars', 'profileTokenBudget', 'fullReadLimit']);

type Source = Readonly<Record<string, unknown>>;

/**
 * Layer the settings per field: explicit option → env (the profile's, `.env` included) → linked
 * CLI profile → `memory.openviking` in config.yaml → default. `OPENVIKING_ACCOUNT` / `_USER` win
 * even when empty; the API key is never read from config.yaml. Reads the linked CLI profile (a
 * small local file) and nothing else; never throws.
 */
export function resolveOpenvikingSettings(
  options: OpenvikingProviderSettings,
  config: Source = {},
  env: Env = {},
): ResolvedOpenvikingSettings {
  const warnings: string[] = [];
  const ovcliPath =
    options.ovcliConfigPath ?? nonEmpty(env.OPENVIKING_CLI_CONFIG_FILE) ?? linkedPath(config, env);
  const ovcli = ovcliPath ? readOvcliProfile(ovcliPath) : null;
  if (ovcliPath && !ovcli)
    warnings.push(`OpenViking CLI profile ${ovcliPath} is missing or not JSON; ignored.`);
  const sources = {} as ResolvedOpenvikingSettings['sources'];

  const pick = (
    field: keyof ResolvedOpenvikingSettings['sources'],
    option: string | undefined,
    envValues: Array<string | undefined>,
    fromOvcli: string | undefined,
    fromConfig: unknown,
    fallback: string,
    envAuthoritative = false,
  ): string => {
    if (option !== undefined) return set(field, 'option', option.trim());
    for (const value of envValues) {
      if (value === undefined) continue;
      if (value.trim() !== '' || envAuthoritative) return set(field, 'env', value.trim());
    }
    if (fromOvcli !== undefined) return set(field, 'ovcli', fromOvcli);
    if (typeof fromConfig === 'string' && fromConfig.trim() !== '')
      return set(field, 'config', fromConfig.trim());
    return set(field, 'default', fallback);
  };
  const set = (field: keyof ResolvedOpenvikingSettings['sources'], source: SettingSource, value: string) => {
    sources[field] = source;
    return value;
  };

  const rawEndpoint = pick(
    'endpoint',
    options.endpoint,
    [env.OPENVIKING_ENDPOINT, env.OPENVIKING_URL],
    ovcli?.url,
    config.endpoint,
    DEFAULT_ENDPOINT,
  );
  const checked = checkEndpoint(rawEndpoint);
  const apiKey = pick('apiKey', options.apiKey, [env.OPENVIKING_API_KEY], ovcli?.apiKey, undefined, '');
  const account = pick(
    'account',
    options.account,
    [env.OPENVIKING_ACCOUNT],
    ovcli?.account,
    config.account,
    '',
    true,
  );
  const user = pick('user', options.user, [env.OPENVIKING_USER], ovcli?.user, config.user, '', true);
  const agent = pick(
    'agent',
    options.agent,
    [env.OPENVIKING_AGENT, env.OPENVIKING_ACTOR_PEER_ID],
    ovcli?.agent,
    config.agent,
    '',
  );
  const identityError =
    identityProblem('account', account) ?? identityProblem('user', user) ?? identityProblem('agent', agent);

  const recall = {} as Record<string, number | boolean>;
  for (const [name, key, fallback, min, max] of RECALL_FIELDS) {
    const explicit = options.recall?.[name];
    const envValue = env[`OPENVIKING_${key.toUpperCase()}`];
    const raw = explicit ?? (envValue !== undefined && envValue !== '' ? envValue : undefined) ?? config[key];
    // config and env say seconds; the option says milliseconds.
    const scale = key.endsWith('_seconds') ? (explicit === undefined ? 1000 : 1) : 1;
    const range = explicit !== undefined && key.endsWith('_seconds') ? 1000 : 1;
    let value =
      typeof fallback === 'boolean'
        ? parseBoolean(raw)
        : numberOf(raw, min! * range, max! * range, INTEGER_FIELDS.has(name));
    if (raw !== undefined && value === undefined)
      warnings.push(`OpenViking setting ${key}=${String(raw)} is invalid; using ${String(fallback)}.`);
    value ??= typeof fallback === 'number' && explicit !== undefined ? fallback * range : fallback;
    recall[name] = typeof value === 'number' ? Math.round(value * scale * 1000) / 1000 : value;
  }

  const timeout = numberOf(options.timeoutMs ?? config.timeout_ms, 100, 600_000, true);
  return {
    endpoint: checked.ok ? checked.endpoint : '',
    endpointError: checked.ok ? null : checked.reason,
    configured: sources.endpoint !== 'default',
    apiKey,
    account,
    user,
    agent,
    identityError,
    ovcli,
    recall: recall as unknown as RecallSettings,
    timeoutMs: timeout ?? 30_000,
    autoStart: options.autoStart ?? parseBoolean(config.auto_start) ?? true,
    serverCommand: options.serverCommand ?? nonEmpty(stringOf(config.server_command)) ?? 'openviking-server',
    sources,
    warnings,
  };
}

/** The tuple a live connection is built for: a change rebuilds it (and probes at once). */
export function connectionFingerprint(s: ResolvedOpenvikingSettings): string {
  return JSON.stringify([s.endpoint, s.apiKey, s.account, s.user, s.agent]);
}

/**
 * The server's identity rules: letters, digits, `_ - . @`, at most one `@`, no surrounding
 * whitespace, and an account never starts with `_` (reserved). Empty means "the default".
 */
export function identityProblem(field: string, value: string): string | null {
  if (value === '') return null;
  if (!/^[A-Za-z0-9_.@-]+$/.test(value))
    return `OpenViking ${field} '${value}' may only contain letters, digits, '_', '-', '.' and '@'.`;
  if ((value.match(/@/g) ?? []).length > 1) return `OpenViking ${field} '${value}' has more than one '@'.`;
  if (field === 'account' && value.startsWith('_'))
    return `OpenViking account '${value}' must not start with '_'.`;
  return null;
}

function linkedPath(config: Source, env: Env): string | undefined {
  if (parseBoolean(config.use_ovcli_config) !== true) return undefined;
  return nonEmpty(stringOf(config.ovcli_config_path)) ?? defaultOvcliPath(env);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function numberOf(value: unknown, min: number, max: number, integer: boolean): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'string' ? Number(value.trim()) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) return undefined;
  if (integer && !Number.isInteger(n)) return undefined;
  return Math.min(max, Math.max(min, n));
}
