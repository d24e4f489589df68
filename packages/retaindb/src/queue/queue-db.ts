import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureDir, processAlive } from '@hermes-memory/core';
import Database from 'better-sqlite3';

/** The queue's file in the Hermes home: the reference's name, so a Python Hermes home keeps working. */
export const QUEUE_FILE = 'retaindb_queue.db';

/**
 * The reference's table, unchanged, so the Python plugin reads and drains our rows and we drain
 * its rows. Python's newest version adds `claimed_at` by migration; we add the same column the
 * same way, plus what exactly-once needs (decision 0960):
 * - `claimed_by`: which writer holds the claim (`host:pid:nonce`), so a dead writer's claim is
 *   taken over at once instead of after its lease;
 * - `idempotency_key`: sent with every attempt of the row, so the service can store a resent row
 *   once;
 * - `attempts`, `next_attempt_at`: per-row backoff that survives a restart.
 */
const CREATE_PENDING = `CREATE TABLE IF NOT EXISTS pending (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id TEXT,
  session_id TEXT,
  messages_json TEXT,
  created_at TEXT,
  last_error TEXT
)`;

const ADDED_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['claimed_at', 'REAL'],
  ['claimed_by', 'TEXT'],
  ['idempotency_key', 'TEXT'],
  ['attempts', 'INTEGER NOT NULL DEFAULT 0'],
  ['next_attempt_at', 'REAL'],
];

/** One writer per database across processes: whoever holds this row drains the queue. */
const CREATE_LEASE = `CREATE TABLE IF NOT EXISTS writer_lease (
  name TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  expires_at REAL NOT NULL
)`;

export type QueueDatabase = Database.Database;

export interface OpenQueueOptions {
  /** Busy timeout in ms (how long a write waits for another process's lock). Default 5 000. */
  busyTimeoutMs?: number;
  readonly?: boolean;
}

/**
 * Open (creating it 0600, with its folder) the queue database and bring its schema up to date.
 * WAL with `synchronous=FULL`: a committed insert is on disk before `enqueue` returns (kill -9 and
 * power loss), and the writer's deletes never block the agent's inserts for long.
 */
export function openQueueDatabase(file: string, options: OpenQueueOptions = {}): QueueDatabase {
  if (options.readonly) {
    return new Database(file, {
      readonly: true,
      fileMustExist: true,
      timeout: options.busyTimeoutMs ?? 5000,
    });
  }
  ensureDir(path.dirname(path.resolve(file)));
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  // A file the Python plugin created has the umask's mode; queued turns are private.
  fs.chmodSync(file, 0o600);
  const db = new Database(file, { timeout: options.busyTimeoutMs ?? 5000 });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(CREATE_PENDING);
    migrate(db);
    db.exec(CREATE_LEASE);
    db.exec('CREATE UNIQUE INDEX IF NOT EXISTS pending_idempotency_key ON pending(idempotency_key)');
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Add the columns an older file lacks. A failure surfaces, except the benign race where another
 * writer added the column between our check and our ALTER.
 */
export function migrate(db: QueueDatabase): void {
  for (const [name, type] of ADDED_COLUMNS) {
    if (hasColumn(db, name)) continue;
    try {
      db.exec(`ALTER TABLE pending ADD COLUMN ${name} ${type}`);
    } catch (error) {
      if (/duplicate column name/i.test(String((error as Error).message)) && hasColumn(db, name)) continue;
      throw new Error(`RetainDB queue migration failed adding '${name}': ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}

function hasColumn(db: QueueDatabase, name: string): boolean {
  return (db.prepare('PRAGMA table_info(pending)').all() as Array<{ name: string }>).some(
    (c) => c.name === name,
  );
}

/** `host:pid:nonce`: who holds a claim or the writer lease. */
export interface WriterIdentity {
  owner: string;
  host: string;
  pid: number;
}

export function writerIdentity(nonce: string): WriterIdentity {
  const host = os.hostname();
  return { owner: `${host}:${process.pid}:${nonce}`, host, pid: process.pid };
}

/** Whether the claim owner `host:pid:nonce` is a process on this host that no longer exists. */
export function ownerIsDead(owner: string | null): boolean {
  if (!owner) return false;
  const [host, pid] = owner.split(':');
  return host === os.hostname() && !processAlive(Number(pid));
}

