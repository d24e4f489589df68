/**
 * One shared connection per database file per process (keyed by the resolved real path, so
 * symlinked and relative paths share it), reference-counted. better-sqlite3 is synchronous, so
 * sharing one handle serialises every store in the process, like the reference's shared RLock.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureDir } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { REFERENCE_SCHEMA, SIDE_INDEX_VERSION, SIDE_SCHEMA } from './schema';

export type Db = Database.Database;

interface Entry {
  db: Db;
  refs: number;
}

const shared = new Map<string, Entry>();

export interface SharedConnection {
  readonly key: string;
  readonly db: Db;
  release(): void;
}

function resolveKey(dbPath: string): string {
  try {
    return fs.realpathSync(dbPath);
  } catch {
    return path.resolve(dbPath);
  }
}

/** Open (or join) the shared connection for a database file, creating parents and the file (0600). */
export function acquireConnection(dbPath: string): SharedConnection {
  ensureDir(path.dirname(path.resolve(dbPath)));
  if (!fs.existsSync(dbPath)) {
    fs.closeSync(fs.openSync(dbPath, 'a', 0o600));
  }
  const key = resolveKey(dbPath);
  let entry = shared.get(key);
  if (!entry) {
    const db = new Database(key, { timeout: 10_000 });
    try {
      initSchema(db);
    } catch (error) {
      db.close();
      throw error;
    }
    entry = { db, refs: 0 };
    shared.set(key, entry);
  }
  entry.refs++;
  const held = entry;
  let released = false;
  return {
    key,
    db: held.db,
    release() {
      if (released) return;
      released = true;
      held.refs--;
      if (held.refs <= 0) {
        shared.delete(key);
        if (held.db.open) held.db.close();
      }
    },
  };
}

/**
 * A private in-memory copy of a database file, migrated like a shared connection (side index and
 * all), for commands that only look: the file is opened read-only just long enough to copy it
 * (WAL content included), so it stays byte for byte as it was, even a Python plugin's store that
 * was never migrated, and a read-only home can be searched. Writes go to the copy and are dropped
 * on release (decision 0407).
 */
export function acquireSnapshot(dbPath: string): SharedConnection {
  const image = readImage(dbPath);
  // An in-memory database cannot be in WAL mode: mark the copy's header as rollback-journal
  // (bytes 18-19, the file format's read/write versions), or SQLite refuses to open it.
  if (image[18] === 2) image[18] = 1;
  if (image[19] === 2) image[19] = 1;
  // An empty file is an empty database, which SQLite serializes as no bytes at all.
  const db = image.length === 0 ? new Database(':memory:') : new Database(image);
  try {
    initSchema(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return {
    key: `snapshot:${resolveKey(dbPath)}`,
    db,
    release() {
      if (db.open) db.close();
    },
  };
}

/**
 * The database's bytes. A WAL-mode file without a `-wal` beside it has no writer and nothing
 * outside the main file: read it as a file, since SQLite would create `-wal` and `-shm` (and fail in
 * a read-only folder) just to read it. Otherwise ask SQLite, read-only, for a consistent image.
 */
function readImage(dbPath: string): Buffer {
  if (isWalMode(dbPath) && !fs.existsSync(`${dbPath}-wal`)) return fs.readFileSync(dbPath);
  const source = new Database(dbPath, { readonly: true, fileMustExist: true, timeout: 10_000 });
  try {
    // Reading the schema is what tells a file that is not a database (serialize copies any bytes).
    source.pragma('schema_version');
    return source.serialize();
  } finally {
    source.close();
  }
}

function isWalMode(dbPath: string): boolean {
  const header = Buffer.alloc(20);
  const fd = fs.openSync(dbPath, 'r');
  try {
    return (
      fs.readSync(fd, header, 0, 20, 0) === 20 &&
      header.subarray(0, 16).toString('latin1') === 'SQLite format 3\0' &&
      header[18] === 2
    );
  } finally {
    fs.closeSync(fd);
  }
}

/** Number of live shared connections (diagnostics and tests). */
export function sharedConnectionCount(): number {
  return shared.size;
}

function initSchema(db: Db): void {
  db.pragma('busy_timeout = 10000');
  // New files get 16 KiB pages: a 1024-dim HRR blob is 4,100 bytes, which overflows a 4 KiB page
  // (two 4 KiB pages per fact); 16 KiB pages hold three such rows (~5.5 KB per fact instead of 8).
  // Only possible before the first table exists; existing files keep their page size.
  if ((db.pragma('page_count', { simple: true }) as number) === 0) db.pragma('page_size = 16384');
  // WAL where the filesystem supports it; NFS/SMB/FUSE mounts fall back to the default journal.
  try {
    db.pragma('journal_mode = WAL');
  } catch {
    /* keep the default rollback journal */
  }
  // Under WAL, NORMAL is durable against process crashes (a committed transaction is in the WAL
  // before COMMIT returns); only an OS crash or power loss can roll back the last transactions.
  db.pragma('synchronous = NORMAL');
  // Reads are random row lookups by id (candidates, neighbours): map the file instead of a read()
  // syscall per page, and keep a larger page cache for the FTS index's hot pages.
  db.pragma('mmap_size = 268435456');
  db.pragma('cache_size = -16384');
  // Truncate the WAL back to 64 MiB after checkpoints instead of keeping its high-water mark.
  db.pragma('journal_size_limit = 67108864');
  db.exec(REFERENCE_SCHEMA);
  const columns = new Set(
    (db.prepare('PRAGMA table_info(facts)').all() as Array<{ name: string }>).map((r) => r.name),
  );
  if (!columns.has('hrr_vector')) db.exec('ALTER TABLE facts ADD COLUMN hrr_vector BLOB');
  db.exec(SIDE_SCHEMA);
  const version = db.prepare("SELECT value FROM hm_meta WHERE key = 'side_index_version'").get() as
    | { value: string }
    | undefined;
  if (version?.value !== SIDE_INDEX_VERSION) {
    // First open of a reference-written file (or a text-preparation change): queue every fact.
    db.transaction(() => {
      db.exec('DELETE FROM hm_facts_fts; INSERT OR IGNORE INTO hm_dirty(fact_id) SELECT fact_id FROM facts;');
      db.prepare("INSERT OR REPLACE INTO hm_meta(key, value) VALUES ('side_index_version', ?)").run(
        SIDE_INDEX_VERSION,
      );
    }).immediate();
  }
}
