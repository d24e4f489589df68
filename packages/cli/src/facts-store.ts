import fs from 'node:fs';
import type { Embedder } from '@hermes-memory/core';
import { FactStore, expandDbPath } from '@hermes-memory/holographic';
import { configuredFactsDbPath } from './facts-path';
import { homePaths } from './paths';

/**
 * Where the holographic fact store lives: `db_path` from its config block, with `$HERMES_HOME` /
 * `${HERMES_HOME}` and `~` expanded; else `<home>/memory_store.db`.
 */
export function factsDbPath(home: string): string {
  const configured = configuredFactsDbPath(home);
  return configured ? expandDbPath(configured, home) : homePaths(home).factsDb;
}

/** Open the fact store; read-only commands pass `create: false` and get undefined for a fresh home. */
export function openFactStore(
  home: string,
  options: { create: boolean; embedder?: Embedder },
): FactStore | undefined {
  const dbPath = factsDbPath(home);
  if (!options.create && !fs.existsSync(dbPath)) return undefined;
  return new FactStore({ dbPath, ...(options.embedder ? { embedder: options.embedder } : {}) });
}
