import { resolveEnv } from '../config/env-file';
import { type HermesConfig, loadHermesConfig, memoryConfigFrom } from '../config/hermes-config';
import { resolveHermesHome } from '../config/home';
import type { Env } from '../config/settings';
import { type Logger, silentLogger } from '../logging/logger';
import { describeError } from '../tools/results';

/**
 * What a provider factory receives next to its settings, so the provider can answer
 * `isAvailable()` from memory: Honcho, Mem0, Supermemory and Hindsight keep their keys in
 * `<home>/.env` and their own files under the profile, which the factory sees here once instead
 * of every `isAvailable()` reading them.
 *
 * ```ts
 * export function createAcmeProvider(settings: AcmeSettings = {}, context?: ProviderFactoryContext) {
 *   return new AcmeProvider(settings, context);   // isAvailable(): hasApiKey({ env: context.env, … })
 * }
 * ```
 */
export interface ProviderFactoryContext {
  /** The provider id being created (`memory.provider`). */
  provider: string;
  /** Profile root (`HERMES_HOME`, default `~/.hermes`). */
  hermesHome: string;
  /** The environment the provider sees: the process environment overlaid with `<hermesHome>/.env`. */
  env: Env;
  /** The provider's own block (`memory.<provider>` in config.yaml), `{}` when absent. */
  providerConfig: Readonly<Record<string, unknown>>;
  /**
   * The whole parsed config.yaml (defaults when missing or unreadable), for a provider that also
   * reads other places (`readProviderConfig(context.config, paths)`).
   */
  config: HermesConfig;
  logger: Logger;
}

export interface ProviderFactoryContextOptions {
  hermesHome?: string;
  /** The base environment (default `process.env`); `<hermesHome>/.env` is laid over it. */
  env?: Env;
  /** An already-parsed config.yaml; read from `hermesHome` when omitted. */
  config?: HermesConfig;
  /** Use this block instead of the one in config.yaml. */
  providerConfig?: Readonly<Record<string, unknown>>;
  logger?: Logger;
}

/**
 * Build the context a factory receives: resolves the home, overlays `.env`, and reads the
 * provider's config block. Reading happens here, once, when the provider is created; a file that
 * cannot be read is logged and treated as empty (the provider then reports itself unavailable).
 */
export function createProviderFactoryContext(
  provider: string,
  options: ProviderFactoryContextOptions = {},
): ProviderFactoryContext {
  const logger = options.logger ?? silentLogger;
  const base = options.env ?? process.env;
  const hermesHome = options.hermesHome ?? resolveHermesHome(base);
  let env: Env;
  try {
    env = Object.freeze(resolveEnv(hermesHome, base));
  } catch (error) {
    logger.warn(
      `Could not read ${hermesHome}/.env for memory provider '${provider}': ${describeError(error)}`,
    );
    env = Object.freeze({ ...base });
  }
  let config = options.config;
  if (!config) {
    try {
      config = loadHermesConfig(hermesHome);
    } catch (error) {
      logger.warn(`Could not read the config for memory provider '${provider}': ${describeError(error)}`);
      config = { memory: memoryConfigFrom({}), raw: {} };
    }
  }
  const providerConfig = options.providerConfig ?? config.memory.providerConfig(provider);
  return { provider, hermesHome, env, providerConfig, config, logger };
}
