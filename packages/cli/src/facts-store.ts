import fs from 'node:fs';
import { getConfigValue, loadHermesConfig } from '@hermes-memory/core';
import { FactStore, expandDbPath } from '@hermes-memory/holographic';
import { homePaths } from './paths';

/**
 * Where the holographic fact store lives: `db_path` from its config block (the reference's
 * `plugins.hermes-memory-store`, or `memory.holographic`), with `$HERMES_HOME` / `${HERMES_HOME}`
 * and `~` expanded; else `<home>/memory_store.db`.
 */
export function factsDbPath(home: string): string {
  const config = loadHermesConfig(home);
  const configured =
    config.memory.providerConfig('holographic').db_path ??
    getConfigValue(config, 'plugins.hermes-memory-store.db_path');
  if (typeof configured === 'string' && configured.trim()) return expandDbPath(configured.trim(), home);
  return homePaths(home).factsDb;
}

/** Open the fact store; read-only commands pass `create: false` and get undefined for a fresh home. */
export function openFactStore(home: string, options: { create: boolean }): FactStore | undefined {
  const dbPath = factsDbPath(home);
  if (!options.create && !fs.existsSync(dbPath)) return undefined;
  return new FactStore({ dbPath });
}
