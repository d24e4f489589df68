import fs from 'node:fs';
import type { Embedder, ProviderCliContext } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { FactStore } from '../store';
import { factsDbPath } from './db-path';

/**
 * The fact store for a command. Read-only commands pass `create: false` and get undefined in a
 * home that has none, so looking never creates `memory_store.db`.
 */
export function openFactStore(
  ctx: ProviderCliContext,
  options: { create: boolean; embedder?: Embedder },
): FactStore | undefined {
  const dbPath = factsDbPath(ctx.config, ctx.home);
  if (!options.create && !fs.existsSync(dbPath)) return undefined;
  return new FactStore({ dbPath, ...(options.embedder ? { embedder: options.embedder } : {}) });
}

/** A raw read-only handle (no schema migration, no side index): for export, status and doctor. */
export function openReadonly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
}
