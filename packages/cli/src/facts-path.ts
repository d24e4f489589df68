import { getConfigValue, loadHermesConfig } from '@hermes-memory/core';
import { homePaths } from './paths';

/**
 * The fact store's `db_path` as configured (the reference's `plugins.hermes-memory-store`, or
 * `memory.holographic`), unexpanded; undefined when not set.
 */
export function configuredFactsDbPath(home: string): string | undefined {
  const config = loadHermesConfig(home);
  const configured =
    config.memory.providerConfig('holographic').db_path ??
    getConfigValue(config, 'plugins.hermes-memory-store.db_path');
  return typeof configured === 'string' && configured.trim() ? configured.trim() : undefined;
}

/**
 * Where the fact store lives, without loading holographic unless a `db_path` is configured (its
 * `$HERMES_HOME` / `~` expansion is holographic's own). Used by light commands such as `status`.
 */
export async function resolveFactsDbPath(home: string): Promise<string> {
  const configured = configuredFactsDbPath(home);
  if (!configured) return homePaths(home).factsDb;
  const { expandDbPath } = await import('@hermes-memory/holographic');
  return expandDbPath(configured, home);
}
