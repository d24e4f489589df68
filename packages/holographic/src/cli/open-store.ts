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

/**
 * The fact store for a command that only looks (list, search, probe): an in-memory copy of the
 * file, so the file is opened read-only and left byte for byte as it was (no side index, no
 * journal-mode switch, no retrieval counts), a Python plugin's store is searched as the provider
 * would search it after migrating, and a read-only home works (decision 0407). Undefined when
 * there is no store; an unreadable one is a one-line error naming the file and the cause.
 */
export function openFactSnapshot(ctx: ProviderCliContext): FactStore | undefined {
  const dbPath = factsDbPath(ctx);
  if (!fs.existsSync(dbPath)) return undefined;
  const settings = resolveSettings(ctx.providerConfig, ctx.home);
  try {
    return new FactStore({
      ...factStoreOptions(settings),
      dbPath,
      logger: ctx.logger,
      snapshot: true,
      trackRetrievals: false,
    });
  } catch (error) {
    throw ctx.fail(`Cannot read ${dbPath}: ${error instanceof Error ? error.message : String(error)}.`);
  }
}

/** A raw read-only handle (no schema migration, no side index): for export, status and doctor. */
export function openReadonly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
}
