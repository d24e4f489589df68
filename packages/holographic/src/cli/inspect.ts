import fs from 'node:fs';
import {
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderStatusReport,
  linkedFilesCheck,
  privateFilesCheck,
  sqliteFiles,
  sqliteIntegrityCheck,
  sqliteSize,
} from '@hermes-memory/core';
import { factsDbPath } from './db-path';
import { openReadonly } from './open-store';

/** The fact store's row in `hermes-memory status`: path, size and fact count. Opens nothing new. */
export function factStoreStatus(ctx: ProviderCliContext): ProviderStatusReport {
  const file = factsDbPath(ctx);
  const name = 'memory_store.db';
  if (!fs.existsSync(file)) return { stores: [{ name, path: file, exists: false, bytes: 0, detail: '' }] };
  let detail: string;
  try {
    const db = openReadonly(file);
    try {
      detail = `${(db.prepare('SELECT COUNT(*) AS n FROM facts').get() as { n: number }).n} facts`;
    } catch {
      detail = '? facts';
    } finally {
      db.close();
    }
  } catch (error) {
    detail = `unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
  return { stores: [{ name, path: file, exists: true, bytes: sqliteSize(file), detail }] };
}

/**
 * The fact store is not reached through a symbolic link (SQLite would follow it), is private (0600)
 * and passes `PRAGMA integrity_check`.
 */
export function factStoreChecks(ctx: ProviderCliContext): ProviderCheck[] {
  const file = factsDbPath(ctx);
  const files = sqliteFiles(file);
  // lstat, not existsSync: a dangling link is a store whose target opening would create.
  if (!files.some(present)) return [];
  const links = linkedFilesCheck({
    id: 'symlinks',
    title: 'Fact store links',
    files,
    home: ctx.home,
    okDetail: 'memory_store.db is not a link',
  });
  if (!fs.existsSync(file)) return [links];
  return [
    links,
    privateFilesCheck({
      id: 'permissions',
      title: 'Fact store permissions (0600)',
      files,
      home: ctx.home,
      okDetail: 'memory_store.db and its WAL are private',
    }),
    sqliteIntegrityCheck({ file, home: ctx.home, open: openReadonly }),
  ];
}

function present(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
