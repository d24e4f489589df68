import { pathToFileURL } from 'node:url';
import type { HermesConfig } from '../config/hermes-config';
import { type Logger, silentLogger } from '../logging/logger';
import { createProviderFactoryContext, type ProviderFactoryContext } from '../provider/factory-context';
import { isMemoryProvider, type MemoryProvider } from '../provider/memory-provider';
import { describeError } from '../tools/results';
import {
  type DiscoveryOptions,
  type DiscoverySearch,
  describeSearch,
  explainDiscovery,
  packageEntry,
  readPackageJson,
} from './discovery';

export interface LoadProviderOptions extends DiscoveryOptions {
  /** Passed to the package's factory (its settings object). */
  settings?: Readonly<Record<string, unknown>>;
  /**
   * `loadMemoryProvider` logs why a provider could not be loaded at WARN (where it looked, what
   * failed); unknown names and failures both give null.
   */
  logger?: Logger;
  /**
   * The parsed config.yaml for the factory context's `providerConfig` (read from the home when
   * omitted). The context's home is `hermesHome`, else `HERMES_HOME` / `~/.hermes`; its env is
   * `env` (else the process environment) overlaid with `<home>/.env`.
   */
  config?: HermesConfig;
  /** Use this block as the provider's config instead of `memory.<name>` from config.yaml. */
  providerConfig?: Readonly<Record<string, unknown>>;
}

const VALID_NAME = /^[a-z0-9][a-z0-9._-]*$/i;

function isClass(fn: unknown): fn is new (settings?: unknown, context?: ProviderFactoryContext) => unknown {
  return typeof fn === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(fn));
}

/** The export that builds the provider: `createProvider`, else `default`, else the first `create*Provider`. */
export function pickProviderFactory(mod: Record<string, unknown>): unknown {
  if (mod.createProvider !== undefined) return mod.createProvider;
  if (mod.default !== undefined) {
    const d = mod.default;
    // A CommonJS module imported from ESM arrives wrapped once more.
    if (typeof d === 'object' && d !== null && !isMemoryProvider(d)) {
      const inner = pickProviderFactory(d as Record<string, unknown>);
      if (inner !== undefined) return inner;
    }
    return d;
  }
  const name = Object.keys(mod).find((k) => /^create\w*Provider$/.test(k) && typeof mod[k] === 'function');
  return name ? mod[name] : undefined;
}

/** Factories and classes get `(settings, context)`; a factory that takes only settings ignores the rest. */
async function instantiate(
  factory: unknown,
  settings: Readonly<Record<string, unknown>>,
  context: ProviderFactoryContext,
): Promise<MemoryProvider | null> {
  let value: unknown = factory;
  if (isClass(factory)) value = new factory(settings, context);
  else if (typeof factory === 'function')
    value = await (factory as (s: unknown, c: ProviderFactoryContext) => unknown)(settings, context);
  return isMemoryProvider(value) ? value : null;
}

/** Why a provider could or could not be loaded, for hosts that explain it to a user. */
export type ProviderLoadResult =
  | { status: 'loaded'; provider: MemoryProvider; packageName: string }
  | { status: 'not-found'; search: DiscoverySearch }
  | { status: 'invalid-name' }
  | { status: 'no-factory'; packageName: string }
  | { status: 'failed'; packageName: string; error: unknown };

/**
 * Resolve the provider a config names (`memory.provider: honcho`): the `@hermes-memory/honcho`
 * package if installed, else any installed package (or `<hermesHome>/plugins/*` folder) whose
 * package.json declares `"hermesMemory": {"provider": "honcho"}`. Resolution starts at `cwd`.
 * The factory is called with the settings and a `ProviderFactoryContext` (home, env with
 * `<home>/.env`, the provider's config block), so `isAvailable()` can answer from memory.
 * Never throws: the result says what happened.
 */
export async function resolveMemoryProvider(
  name: string,
  options: LoadProviderOptions = {},
): Promise<ProviderLoadResult> {
  if (!VALID_NAME.test(name)) return { status: 'invalid-name' };
  const { found: all, search } = explainDiscovery(options);
  const found = all.find((p) => p.name === name);
  if (!found) return { status: 'not-found', search };
  try {
    const entry = packageEntry(found.dir, readPackageJson(found.dir));
    const mod = (await import(pathToFileURL(entry).href)) as Record<string, unknown>;
    const context = createProviderFactoryContext(name, {
      ...(options.hermesHome ? { hermesHome: options.hermesHome } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.config ? { config: options.config } : {}),
      ...(options.providerConfig ? { providerConfig: options.providerConfig } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const provider = await instantiate(pickProviderFactory(mod), options.settings ?? {}, context);
    if (!provider) return { status: 'no-factory', packageName: found.packageName };
    return { status: 'loaded', provider, packageName: found.packageName };
  } catch (error) {
    return { status: 'failed', packageName: found.packageName, error };
  }
}

/**
 * Load the provider a config names (see `resolveMemoryProvider`). Resolves null for an unknown
 * name or a package that fails to load; the reason — with where discovery looked — is logged at
 * WARN, so a host running at its normal log level shows why memory fell back to built-in only.
 */
export async function loadMemoryProvider(
  name: string,
  options: LoadProviderOptions = {},
): Promise<MemoryProvider | null> {
  const logger = options.logger ?? silentLogger;
  const result = await resolveMemoryProvider(name, options);
  switch (result.status) {
    case 'loaded':
      return result.provider;
    case 'invalid-name':
      logger.warn(`'${name}' is not a valid memory provider name.`);
      return null;
    case 'not-found':
      logger.warn(`Memory provider '${name}' not found: ${describeSearch(result.search)}.`);
      return null;
    case 'no-factory':
      logger.warn(`Package '${result.packageName}' does not export a memory provider factory.`);
      return null;
    case 'failed':
      logger.warn(
        `Loading memory provider '${name}' from '${result.packageName}' failed: ${describeError(result.error)}`,
      );
      return null;
  }
}
