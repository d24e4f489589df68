/**
 * Opening `continuity.db`: a private file (0600 in a 0700 folder), WAL, a long busy timeout so
 * processes queue for the write lock instead of failing, and the migrations (decision 0901).
 */
import fs from 'node:fs';
import path from 'node:path';
import { MemoryError } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { MIGRATIONS, type Migration } from './schema';

export type Db = Database.Database;

/** The file was written by a newer release: we refuse to open it rather than guess. */
export class SchemaVersionError extends MemoryError {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `continuity: ${file} has schema version ${found}, newer than this release supports (${supported}). ` +
        'Upgrade @hermes-memory/continuity; the file was not changed.',
    );
    this.name = 'SchemaVersionError';
  }
}

/** Create the parent folder (0700) and the file (0600) if missing; never loosen an existing file. */
export function ensurePrivateFile(file: string): void {
  const dir = path.dirname(path.resolve(file));
  if (!fs.existsSync(dir)) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
}

export interface OpenOptions {
  /** Open without creating or migrating anything (inspection, `status`). */
  readonly?: boolean;
  /** Test seam: another migration list. */
  migrations?: readonly Migration[];
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  if (options.readonly) {
    const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 10_000 });
    const found = db.pragma('user_version', { simple: true }) as number;
    const supported = (options.migrations ?? MIGRATIONS).at(-1)?.version ?? 0;
    if (found > supported) {
      db.close();
      throw new SchemaVersionError(file, found, supported);
    }
    return db;
  }
  ensurePrivateFile(file);
  const db = new Database(file, { timeout: 10_000 });
  try {
    db.pragma('busy_timeout = 10000');
    // WAL where the filesystem supports it; network mounts keep the rollback journal.
    try {
      db.pragma('journal_mode = WAL');
    } catch {
      /* keep the default journal */
    }
    // Under WAL, NORMAL is durable against process crashes; only power loss can drop the last commits.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, file, options.migrations ?? MIGRATIONS);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Apply every migration above the file's `user_version`, all in one IMMEDIATE transaction: another
 * process opening the same file waits, then finds the work done; a failure leaves the file as it was.
 */
export function migrate(db: Db, file: string, migrations: readonly Migration[]): void {
  const latest = migrations.at(-1)?.version ?? 0;
  const version = () => db.pragma('user_version', { simple: true }) as number;
  if (version() > latest) throw new SchemaVersionError(file, version(), latest);
  if (version() === latest) return;
  db.transaction(() => {
    const current = version();
    if (current > latest) throw new SchemaVersionError(file, current, latest);
    for (const m of migrations) {
      if (m.version <= current) continue;
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }
  }).immediate();
}
