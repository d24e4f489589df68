import { type HermesConfig, getConfigValue } from '@hermes-memory/core';
import { expandDbPath } from '../settings';

/**
 * Where the fact store lives for CLI commands: `db_path` from `memory.holographic` or the Python
 * plugin's `plugins.hermes-memory-store` block, with `$HERMES_HOME` / `${HERMES_HOME}` and `~`
 * expanded; else `<home>/memory_store.db`.
 */
export function factsDbPath(config: HermesConfig, home: string): string {
  const configured =
    config.memory.providerConfig('holographic').db_path ??
    getConfigValue(config, 'plugins.hermes-memory-store.db_path');
  return typeof configured === 'string' && configured.trim()
    ? expandDbPath(configured.trim(), home)
    : expandDbPath('$HERMES_HOME/memory_store.db', home);
}
