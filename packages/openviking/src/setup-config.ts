import { type Env, type Logger, SettingsError, saveConfigValues, writeEnvValues } from '@hermes-memory/core';
import { checkEndpoint } from './endpoint';
import { defaultOvcliPath } from './ovcli';

/** The connection a setup saves: to `.env` (Hermes only) or to an OpenViking CLI profile. */
export interface ConnectionValues {
  endpoint: string;
  apiKey: string;
  /** Set when the key is a root key (the profile then keeps `account` / `user`). */
  rootApiKey: string;
  account: string;
  user: string;
  agent: string;
}

/** The `.env` names of a Hermes-only connection, as the reference writes them. */
const ENV_NAMES = {
  endpoint: 'OPENVIKING_ENDPOINT',
  apiKey: 'OPENVIKING_API_KEY',
  account: 'OPENVIKING_ACCOUNT',
  user: 'OPENVIKING_USER',
  agent: 'OPENVIKING_AGENT',
} as const;

/** Keys config.yaml must never hold (the key lives in `.env` or the CLI profile). */
const SECRET_KEYS = new Set(['api_key', 'root_api_key', 'api_key_type']);

/**
 * A value that can only occupy its own `KEY=VALUE` line: NUL and every line break Python's
 * `splitlines` knows are dropped, so neither program can read a second variable out of it.
 */
export function envLineSafe(value: string): string {
  return value.replace(/[\0\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g, '');
}

/**
 * Write the connection to `<home>/.env` (0600, other lines kept byte for byte): the non-empty
 * values, line-break free; every other `OPENVIKING_*` connection line removed, so a stale one
 * cannot override what was chosen. `null` removes them all (a linked CLI profile is the source).
 */
export function writeConnectionEnv(
  home: string,
  values: ConnectionValues | null,
  logger?: Pick<Logger, 'warn'>,
): string[] {
  const writes: Record<string, string | undefined> = {};
  for (const [field, name] of Object.entries(ENV_NAMES)) {
    const value = values ? envLineSafe(values[field as keyof typeof ENV_NAMES].trim()) : '';
    writes[name] = value === '' ? undefined : value;
  }
  writeEnvValues(home, writes, logger ? { logger } : {});
  return Object.entries(writes)
    .filter(([, v]) => v !== undefined)
    .map(([name]) => name);
}

/**
 * `memory.openviking` in config.yaml (the provider's `saveConfig`): the endpoint normalised (an
 * unsafe one refused, never saved), `api_key` / `root_api_key` never written — the key belongs in
 * `.env` or the CLI profile. `undefined` removes a setting.
 */
export function saveOpenvikingConfig(home: string, values: Readonly<Record<string, unknown>>): void {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (SECRET_KEYS.has(key)) continue;
    if (key === 'endpoint' && typeof value === 'string' && value.trim() !== '') {
      const checked = checkEndpoint(value);
      if (!checked.ok) throw new SettingsError('memory.openviking.endpoint', `Not saved: ${checked.reason}.`);
      patch['memory.openviking.endpoint'] = checked.endpoint;
    } else patch[`memory.openviking.${key}`] = value;
  }
  saveConfigValues(home, patch);
}

/**
 * Link an OpenViking CLI profile: config.yaml points at it (the path recorded only when it is not
 * the default `~/.openviking/ovcli.conf`, or `OPENVIKING_CLI_CONFIG_FILE` is set) and holds no
 * connection values of its own; the `OPENVIKING_*` connection lines leave `.env`, where they
 * would override the profile.
 */
export function linkOvcliProfile(home: string, env: Env, file: string, logger?: Pick<Logger, 'warn'>): void {
  const recordPath = (env.OPENVIKING_CLI_CONFIG_FILE ?? '').trim() !== '' || file !== defaultOvcliPath(env);
  const patch: Record<string, unknown> = { 'memory.provider': 'openviking' };
  for (const key of ['endpoint', 'api_key', 'root_api_key', 'account', 'user', 'agent', 'api_key_type'])
    patch[`memory.openviking.${key}`] = undefined;
  patch['memory.openviking.use_ovcli_config'] = true;
  patch['memory.openviking.ovcli_config_path'] = recordPath ? file : undefined;
  saveConfigValues(home, patch);
  writeConnectionEnv(home, null, logger);
}

/**
 * Keep a connection in Hermes only: every value in `.env` (see `writeConnectionEnv`), config.yaml
 * no longer linked to a CLI profile nor holding the previous connection's peer.
 */
export function saveHermesOnlyConnection(
  home: string,
  values: ConnectionValues,
  logger?: Pick<Logger, 'warn'>,
): string[] {
  saveConfigValues(home, {
    'memory.provider': 'openviking',
    'memory.openviking.use_ovcli_config': false,
    'memory.openviking.ovcli_config_path': undefined,
    'memory.openviking.agent': undefined,
  });
  return writeConnectionEnv(home, values, logger);
}
