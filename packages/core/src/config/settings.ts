import { SettingsError } from '../errors/memory-error';

/** An environment as providers receive it (`InitContext.env`, `ProviderFactoryContext.env`). */
export type Env = Readonly<Record<string, string | undefined>>;

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on', 'y', 't']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off', 'n', 'f', '']);

/**
 * The one boolean parser for settings from YAML, JSON, `.env` and tool arguments: booleans as
 * is, numbers (0 is false), and the words the reference accepts (`true/yes/on/1/y/t`,
 * `false/no/off/0/n/f`, case-insensitive; "" is false). Anything else is `undefined`, so the
 * caller decides between a default and an error.
 */
export function parseBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isNaN(value) ? undefined : value !== 0;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** `parseBoolean`, with `fallback` for missing and unrecognised values. */
export function booleanSetting(value: unknown, fallback: boolean): boolean {
  return parseBoolean(value) ?? fallback;
}

export interface LoadSettingOptions {
  /** The value given in code or a config file; wins when it is a non-empty string. */
  settingValue?: string | undefined;
  /** The environment variable to read next. */
  environmentVariableName?: string;
  /** The environment (pass the provider's `ctx.env`; default `process.env`). */
  env?: Env;
  /** Used when neither gave a value. */
  defaultValue?: string;
  /** The option name in messages (`baseURL`). */
  settingName: string;
  /** What it is, for the message ("Honcho API base URL"). */
  description: string;
}

function fromEnv(env: Env | undefined, name: string | undefined): string | undefined {
  if (!name) return undefined;
  const value = (env ?? process.env)[name];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * A setting from, in order: the explicit value, the environment variable, the default. Undefined
 * when none is set (see `loadSetting` for a required one).
 */
export function loadOptionalSetting(
  options: Omit<LoadSettingOptions, 'settingName' | 'description'>,
): string | undefined {
  const explicit = options.settingValue;
  if (typeof explicit === 'string' && explicit.trim() !== '') return explicit.trim();
  return fromEnv(options.env, options.environmentVariableName) ?? options.defaultValue;
}

/** A required setting: as `loadOptionalSetting`, else a `SettingsError` naming both ways to set it. */
export function loadSetting(options: LoadSettingOptions): string {
  const value = loadOptionalSetting(options);
  if (value !== undefined) return value;
  const env = options.environmentVariableName;
  throw new SettingsError(
    options.settingName,
    `${options.description} is missing. Pass it as the '${options.settingName}' option${env ? ` or set the ${env} environment variable` : ''}.`,
  );
}

export interface LoadApiKeyOptions {
  /** The key given in code or a config file. */
  apiKey?: string | undefined;
  /** e.g. `HONCHO_API_KEY`. */
  environmentVariableName: string;
  env?: Env;
  /** The option name in messages. Default `apiKey`. */
  apiKeyParameterName?: string;
  /** Whose key ("Honcho"). */
  description: string;
}

/**
 * An API key from the explicit value or the environment, else a `SettingsError` that reads the
 * same for every backend: "Honcho API key is missing. Pass it as the 'apiKey' option or set the
 * HONCHO_API_KEY environment variable."
 */
export function loadApiKey(options: LoadApiKeyOptions): string {
  if (options.apiKey !== undefined && typeof options.apiKey !== 'string') {
    throw new SettingsError(
      options.apiKeyParameterName ?? 'apiKey',
      `${options.description} API key must be a string.`,
    );
  }
  return loadSetting({
    settingValue: options.apiKey,
    environmentVariableName: options.environmentVariableName,
    ...(options.env ? { env: options.env } : {}),
    settingName: options.apiKeyParameterName ?? 'apiKey',
    description: `${options.description} API key`,
  });
}

/** Whether an API key is available without throwing (for `isAvailable()`). */
export function hasApiKey(options: Omit<LoadApiKeyOptions, 'description'>): boolean {
  return (
    loadOptionalSetting({
      settingValue: options.apiKey,
      environmentVariableName: options.environmentVariableName,
      ...(options.env ? { env: options.env } : {}),
    }) !== undefined
  );
}
