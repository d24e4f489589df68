import { chmodSync, closeSync, existsSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { SettingsError, ensureDir } from '@hermes-memory/core';
import type { CacheEntry, EmbeddingCache } from './types';

/** The slice of better-sqlite3 this cache uses (kept local so the optional peer's types stay optional). */
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
}
interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  transaction<A extends unknown[]>(fn: (...args: A) => void): (...args: A) => void;
  close(): void;
  readonly open: boolean;
}
type DatabaseConstructor = new (path: string, options?: Record<string, unknown>) => Database;

export interface SqliteEmbeddingCacheOptions {
  /** Database file (created 0600, parents 0700), or `:memory:`. */
  path: string;
  /**
   * Entries kept; beyond it the oldest-written entries are deleted. Checked after every
   * min(256, 10 % of maxEntries) writes, so the table may briefly exceed it by that much. Default: unbounded.
   */
  maxEntries?: number;
  /** How long a write waits for another process's lock. Default 5 000 ms. */
  busyTimeoutMs?: number;
}

let driver: DatabaseConstructor | undefined;

function loadDriver(): DatabaseConstructor {
  if (driver) return driver;
  try {
    const require = createRequire(import.meta.url);
    driver = require('better-sqlite3') as DatabaseConstructor;
    return driver;
  } catch (cause) {
    throw new SettingsError(
      'better-sqlite3',
      'SqliteEmbeddingCache needs the optional peer dependency better-sqlite3: npm install better-sqlite3',
      { cause },
    );
  }
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS embedding_cache (
  embedder   TEXT    NOT NULL,
  key        TEXT    NOT NULL,
  dims       INTEGER NOT NULL,
  vector     BLOB    NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (embedder, key)
);
CREATE TABLE IF NOT EXISTS embedding_cache_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT OR IGNORE INTO embedding_cache_meta (name, value) VALUES ('schema_version', '1');
`;

const PRUNE_EVERY = 256;

/**
 * A persistent embedding cache in SQLite (better-sqlite3, loaded lazily): WAL mode so readers never
 * block the writer and several processes can share the file, vectors as little-endian float32
 * BLOBs, keyed by embedder id + sha256 of the text. Unreadable rows count as misses.
 */
export class SqliteEmbeddingCache implements EmbeddingCache {
  readonly path: string;
  private readonly db: Database;
  private readonly maxEntries: number | undefined;
  private readonly getStmt: Statement;
  private readonly putStmt: Statement;
  private readonly insertMany: (entries: readonly CacheEntry[], embedderId: string) => void;
  private writesSincePrune = 0;

  constructor(options: SqliteEmbeddingCacheOptions) {
    if (!options || typeof options.path !== 'string' || options.path.length === 0) {
      throw new SettingsError('path', 'SqliteEmbeddingCache needs a database path');
    }
    if (
      options.maxEntries !== undefined &&
      (!Number.isInteger(options.maxEntries) || options.maxEntries < 1)
    ) {
      throw new SettingsError('maxEntries', 'maxEntries must be a positive integer');
    }
    const Database = loadDriver();
    const memory = options.path === ':memory:';
    this.path = memory ? options.path : resolve(options.path);
    if (!memory && !existsSync(this.path)) {
      ensureDir(dirname(this.path));
      closeSync(openSync(this.path, 'a', 0o600));
      chmodSync(this.path, 0o600); // the umask may have widened nothing, but make it explicit
    }
    try {
      this.db = new Database(this.path);
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
      if (!memory) this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.exec(SCHEMA);
    } catch (cause) {
      throw new SettingsError('path', `Cannot open the embedding cache at ${this.path}`, { cause });
    }
    this.maxEntries = options.maxEntries;
    this.getStmt = this.db.prepare('SELECT dims, vector FROM embedding_cache WHERE embedder = ? AND key = ?');
    this.putStmt = this.db.prepare(
      'INSERT OR REPLACE INTO embedding_cache (embedder, key, dims, vector, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.insertMany = this.db.transaction((entries: readonly CacheEntry[], embedderId: string) => {
      const now = Date.now();
      for (const { key, vector } of entries) {
        const blob = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
        this.putStmt.run(embedderId, key, vector.length, blob, now);
      }
    });
  }

  getMany(embedderId: string, keys: readonly string[]): (Float32Array | undefined)[] {
    return keys.map((key) => {
      const row = this.getStmt.get(embedderId, key) as { dims: number; vector: Uint8Array } | undefined;
      if (!row || !(row.vector instanceof Uint8Array) || row.vector.byteLength !== row.dims * 4)
        return undefined;
      const out = new Float32Array(row.dims);
      new Uint8Array(out.buffer).set(row.vector);
      return out;
    });
  }

  setMany(embedderId: string, entries: readonly CacheEntry[]): void {
    if (entries.length === 0) return;
    this.insertMany(entries, embedderId);
    this.writesSincePrune += entries.length;
    if (
      this.maxEntries !== undefined &&
      this.writesSincePrune >= Math.min(PRUNE_EVERY, Math.ceil(this.maxEntries / 10))
    ) {
      this.writesSincePrune = 0;
      this.prune(this.maxEntries);
    }
  }

  /** Deletes the oldest-written entries until at most `maxEntries` remain. Returns how many went. */
  prune(maxEntries: number): number {
    const { n } = this.db.prepare('SELECT count(*) AS n FROM embedding_cache').get() as { n: number };
    const excess = n - maxEntries;
    if (excess <= 0) return 0;
    this.db
      .prepare(
        'DELETE FROM embedding_cache WHERE rowid IN (SELECT rowid FROM embedding_cache ORDER BY rowid LIMIT ?)',
      )
      .run(excess);
    return excess;
  }

  /** Number of stored vectors (all embedders, or one). */
  count(embedderId?: string): number {
    const row = (
      embedderId === undefined
        ? this.db.prepare('SELECT count(*) AS n FROM embedding_cache').get()
        : this.db.prepare('SELECT count(*) AS n FROM embedding_cache WHERE embedder = ?').get(embedderId)
    ) as { n: number };
    return row.n;
  }

  clear(embedderId?: string): void {
    if (embedderId === undefined) this.db.prepare('DELETE FROM embedding_cache').run();
    else this.db.prepare('DELETE FROM embedding_cache WHERE embedder = ?').run(embedderId);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
