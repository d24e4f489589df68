/** `continuity.db` in `hermes-memory status` and `doctor`. Neither creates nor migrates the store. */
import fs from 'node:fs';
import path from 'node:path';
import {
  linkedFilesCheck,
  type ProviderCheck,
  type ProviderCliContext,
  type ProviderStatusReport,
  privateFilesCheck,
  sqliteFiles,
  sqliteIntegrityCheck,
  sqliteSize,
} from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { RECORD_STATUSES } from '../records';
import { SCHEMA_VERSION } from '../schema';
import { ContinuityStore } from '../store';
import { continuityDbPath } from './db-path';

const openReadonly = (file: string) =>
  new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });

/** Record counts by lifecycle status, every status listed (zeros included). */
function countsByStatus(file: string): Record<string, number> {
  const store = new ContinuityStore({ dbPath: file, readonly: true });
  try {
    const counts = store.countsByStatus();
    return Object.fromEntries(RECORD_STATUSES.map((s) => [s, counts[s] ?? 0]));
  } finally {
    store.close();
  }
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

/** The store's row in the Stores table (records by lifecycle), and its path and schema as details. */
export function continuityStatus(ctx: ProviderCliContext): ProviderStatusReport {
  const file = continuityDbPath(ctx);
  const name = 'continuity.db';
  if (!fs.existsSync(file))
    return {
      stores: [{ name, path: file, exists: false, bytes: 0, detail: '' }],
      details: { db_path: file },
    };
  let detail: string;
  const details: Record<string, string | number> = { db_path: file };
  try {
    const counts = countsByStatus(file);
    detail = Object.entries(counts)
      .filter(([status, n]) => n > 0 || status === 'active')
      .map(([status, n]) => `${n} ${status}`)
      .join(', ');
    for (const [status, n] of Object.entries(counts)) details[`records_${status}`] = n;
    details.schema_version = schemaVersion(file);
  } catch (error) {
    detail = `unreadable: ${firstLine(error)}`;
  }
  return { stores: [{ name, path: file, exists: true, bytes: sqliteSize(file), detail }], details };
}

function schemaVersion(file: string): number {
  const db = openReadonly(file);
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}

/**
 * The store is not reached through a symbolic link (SQLite follows it), opens, is private (0600),
 * has this release's schema and passes `integrity_check`.
 */
export function continuityChecks(ctx: ProviderCliContext): ProviderCheck[] {
  const file = continuityDbPath(ctx);
  // The folder counts too: a linked `continuity/` puts the database wherever the link points.
  const files = [path.dirname(file), ...sqliteFiles(file)];
  // lstat, not existsSync: a dangling link is a store whose target opening would create.
  if (!sqliteFiles(file).some(present)) return [];
  const links = linkedFilesCheck({
    id: 'symlinks',
    title: 'Continuity store links',
    files,
    home: ctx.home,
    okDetail: 'continuity.db is not reached through a link',
  });
  if (!fs.existsSync(file)) return [links];
  return [
    links,
    opensCheck(file),
    schemaCheck(file),
    privateFilesCheck({
      id: 'permissions',
      title: 'Continuity store permissions (0600)',
      files: sqliteFiles(file),
      home: ctx.home,
      okDetail: 'continuity.db and its WAL are private',
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

function opensCheck(file: string): ProviderCheck {
  const id = 'opens';
  const title = 'Continuity store opens';
  try {
    const counts = countsByStatus(file);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    return { id, title, status: 'ok', detail: `${total} record(s), ${counts.active} active` };
  } catch (error) {
    return {
      id,
      title,
      status: 'fail',
      detail: firstLine(error),
      fix: `Move ${file} aside (the provider starts a new store) or restore it from a backup.`,
    };
  }
}

function schemaCheck(file: string): ProviderCheck {
  const id = 'schema';
  const title = 'Continuity schema version';
  let found: number;
  try {
    found = schemaVersion(file);
  } catch (error) {
    return { id, title, status: 'fail', detail: `cannot read: ${firstLine(error)}` };
  }
  if (found === SCHEMA_VERSION) return { id, title, status: 'ok', detail: `version ${found}` };
  if (found > SCHEMA_VERSION)
    return {
      id,
      title,
      status: 'fail',
      detail: `version ${found} was written by a newer release (this one supports ${SCHEMA_VERSION})`,
      fix: 'Upgrade @hermes-memory/continuity; the file is left unchanged.',
    };
  return {
    id,
    title,
    status: 'warn',
    detail: `version ${found}; this release migrates it to ${SCHEMA_VERSION} when the provider next opens it`,
    fix: 'Run hermes-memory doctor --fix to migrate now.',
    repair: () => {
      new ContinuityStore({ dbPath: file }).close();
      return `migrated ${file} to schema version ${SCHEMA_VERSION}`;
    },
  };
}
