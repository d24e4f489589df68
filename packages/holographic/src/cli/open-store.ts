import fs from 'node:fs';
import type { Embedder, ProviderCliContext } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { type ResolvedSettings, factStoreOptions, resolveSettings } from '../settings';
import { FactStore } from '../store';
import { factsDbPath } from './db-path';

/**
 * The fact store for a command, opened with holographic's settings as the provider opens it
 * (trust, HRR dimension, vector format, ranking). Read-only commands pass `create: false` and get
 * undefined in a home that has none, so looking never creates `memory_store.db`.
 */
export function openFactStore(
  ctx: ProviderCliContext,
  options: { create: boolean; embedder?: Embedder; settings?: ResolvedSettings },
): FactStore | undefined {
  const dbPath = factsDbPath(ctx);
  if (!options.create && !fs.existsSync(dbPath)) return undefined;
  const settings = options.settings ?? resolveSettings(ctx.providerConfig, ctx.home);
  return new FactStore({
    ...factStoreOptions(settings),
    dbPath,
    logger: ctx.logger,
    ...(options.embedder ? { embedder: options.embedder } : {}),
  });
}

/** A raw read-only handle (no schema migration, no side index): for export, status and doctor. */
export function openReadonly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
}
