import fs from 'node:fs';
import path from 'node:path';
import type { ProviderCheck } from './types';

/** A SQLite file with its write-ahead log and shared-memory files. */
export function sqliteFiles(file: string): string[] {
  return [file, `${file}-wal`, `${file}-shm`];
}

/** Size on disk of a SQLite database, its WAL and shared-memory files included. */
export function sqliteSize(file: string): number {
  let total = 0;
  for (const f of sqliteFiles(file)) {
    try {
      total += fs.statSync(f).size;
    } catch {}
  }
  return total;
}

/**
 * Files that hold memory or secrets must be private to the user (0600). Missing files are fine;
 * `doctor --fix` tightens the loose ones.
 */
export function privateFilesCheck(options: {
  id: string;
  title: string;
  files: readonly string[];
  /** Paths are shown relative to it. */
  home: string;
  /** The ok line, e.g. "memory, database and .env files are private". */
  okDetail: string;
}): ProviderCheck {
  const { id, title } = options;
  if (process.platform === 'win32') return { id, title, status: 'skip', detail: 'not applicable on Windows' };
  const loose: Array<{ file: string; mode: number }> = [];
  for (const file of options.files) {
    try {
      const st = fs.lstatSync(file);
      if (st.isFile() && (st.mode & 0o077) !== 0) loose.push({ file, mode: st.mode & 0o777 });
    } catch {}
  }
  if (loose.length === 0) return { id, title, status: 'ok', detail: options.okDetail };
  const list = loose
    .map((l) => `${path.relative(options.home, l.file) || l.file} (${l.mode.toString(8).padStart(4, '0')})`)
    .join(', ');
  return {
    id,
    title,
    status: 'fail',
    detail: `readable by others: ${list}`,
    fix: `chmod 600 ${loose.map((l) => JSON.stringify(l.file)).join(' ')}   (or: hermes-memory doctor --fix)`,
    repair: () => {
      for (const l of loose) fs.chmodSync(l.file, 0o600);
      return `tightened ${loose.length} file(s) to 0600`;
    },
  };
}

/**
 * Files a store opens through SQLite, which follows a symbolic link where one stands (a dangling
 * one has its target created): each link is a warning naming its target, so a person can make sure
 * it points at their own database. Never repaired: removing a link is the owner's call.
 */
export function linkedFilesCheck(options: {
  id: string;
  title: string;
  files: readonly string[];
  /** Paths are shown relative to it. */
  home: string;
  /** The ok line, e.g. "memory_store.db is not a link". */
  okDetail: string;
}): ProviderCheck {
  const { id, title } = options;
  const links: string[] = [];
  for (const file of options.files) {
    try {
      if (fs.lstatSync(file).isSymbolicLink())
        links.push(`${path.relative(options.home, file) || file} → ${fs.readlinkSync(file)}`);
    } catch {}
  }
  if (links.length === 0) return { id, title, status: 'ok', detail: options.okDetail };
  return {
    id,
    title,
    status: 'warn',
    detail: `reached through a link: ${links.join(', ')}`,
    fix: "Make sure each link points at your own database (SQLite follows it); 'rm' on a link removes only the link.",
  };
}

/** What `sqliteIntegrityCheck` needs of a database handle (better-sqlite3's shape). */
export interface ReadonlySqlite {
  prepare(sql: string): { all(): unknown[] };
  close(): void;
}

/** `PRAGMA integrity_check` on a SQLite file, opened read-only by `open`. */
export function sqliteIntegrityCheck(options: {
  file: string;
  home: string;
  open: (file: string) => ReadonlySqlite;
}): ProviderCheck {
  const { file } = options;
  const id = 'integrity';
  const title = `Database integrity: ${path.relative(options.home, file) || file}`;
  let db: ReadonlySqlite | undefined;
  try {
    db = options.open(file);
    const rows = db.prepare('PRAGMA integrity_check').all() as Array<Record<string, unknown>>;
    const messages = rows.map((r) => String(Object.values(r)[0]));
    if (messages.length === 1 && messages[0] === 'ok') return { id, title, status: 'ok', detail: 'ok' };
    return {
      id,
      title,
      status: 'fail',
      detail: messages.slice(0, 3).join('; '),
      fix: `Copy ${file} aside, then recover with: sqlite3 ${JSON.stringify(file)} ".recover" | sqlite3 recovered.db`,
    };
  } catch (error) {
    return {
      id,
      title,
      status: 'fail',
      detail: `cannot open: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      fix: 'The file is not a readable SQLite database. Restore it from a backup or move it aside.',
    };
  } finally {
    db?.close();
  }
}
