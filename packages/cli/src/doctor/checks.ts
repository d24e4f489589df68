import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { MEMORY_TEMP_PREFIX, breakAbandonedLock, judgeLock } from '@hermes-memory/builtin';
import {
  type ProviderCheck,
  findStaleTempFiles,
  loadHermesConfig,
  privateFilesCheck,
  removeStaleTempFiles,
  spillDir,
  sqliteFiles,
  sqliteIntegrityCheck,
} from '@hermes-memory/core';
import { homePaths } from '../paths';

export type CheckStatus = ProviderCheck['status'];

/** One doctor line; providers' checks (decision 0603) have the same shape plus their id. */
export interface CheckResult extends ProviderCheck {
  /** The provider whose CLI module contributed the check. */
  provider?: string;
}

type SqliteDatabase = {
  prepare(sql: string): { all(): unknown[]; get(): unknown };
  exec(sql: string): void;
  pragma(sql: string, options?: { simple?: boolean }): unknown;
  close(): void;
};
type SqliteConstructor = new (
  file: string,
  options?: { readonly?: boolean; fileMustExist?: boolean },
) => SqliteDatabase;

const req = createRequire(import.meta.url);

/** Load better-sqlite3 without letting a broken native build crash the doctor itself. */
export function loadSqlite(): { Database?: SqliteConstructor; error?: string } {
  try {
    const mod = req('better-sqlite3') as SqliteConstructor | { default: SqliteConstructor };
    const Database = typeof mod === 'function' ? mod : mod.default;
    const probe = new Database(':memory:');
    probe.close();
    return { Database };
  } catch (error) {
    return { error: error instanceof Error ? error.message.split('\n')[0] : String(error) };
  }
}

export function checkNode(): CheckResult {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= 20
    ? { id: 'node', title: 'Node.js version', status: 'ok', detail: `v${process.versions.node}` }
    : {
        id: 'node',
        title: 'Node.js version',
        status: 'fail',
        detail: `v${process.versions.node} is too old`,
        fix: 'Install Node.js 20 or newer.',
      };
}

export function checkSqlite(sqlite: ReturnType<typeof loadSqlite>): CheckResult[] {
  if (!sqlite.Database) {
    return [
      {
        id: 'sqlite',
        title: 'better-sqlite3 native module',
        status: 'fail',
        detail: `does not load: ${sqlite.error}`,
        fix: 'Rebuild it for this Node version: `npm rebuild better-sqlite3` (or `pnpm rebuild better-sqlite3`).',
      },
      { id: 'fts5', title: 'SQLite FTS5', status: 'skip', detail: 'needs better-sqlite3' },
    ];
  }
  const db = new sqlite.Database(':memory:');
  let fts: CheckResult;
  try {
    db.exec("CREATE VIRTUAL TABLE probe USING fts5(content); INSERT INTO probe VALUES ('hello world');");
    db.prepare("SELECT rowid FROM probe WHERE probe MATCH 'hello'").all();
    fts = { id: 'fts5', title: 'SQLite FTS5', status: 'ok', detail: 'available' };
  } catch (error) {
    fts = {
      id: 'fts5',
      title: 'SQLite FTS5',
      status: 'fail',
      detail: `not available: ${error instanceof Error ? error.message : String(error)}`,
      fix: 'Reinstall better-sqlite3 from npm (its bundled SQLite has FTS5): `npm rebuild better-sqlite3`.',
    };
  } finally {
    db.close();
  }
  const version = (() => {
    const d = new sqlite.Database(':memory:');
    try {
      return String((d.prepare('select sqlite_version() as v').get() as { v: string }).v);
    } finally {
      d.close();
    }
  })();
  return [
    {
      id: 'sqlite',
      title: 'better-sqlite3 native module',
      status: 'ok',
      detail: `loads (SQLite ${version})`,
    },
    fts,
  ];
}

export function checkHome(home: string): CheckResult {
  try {
    const st = fs.statSync(home);
    if (!st.isDirectory()) {
      return {
        id: 'home',
        title: 'HERMES_HOME',
        status: 'fail',
        detail: `${home} is not a directory`,
        fix: 'Point --home or HERMES_HOME at a directory.',
      };
    }
    fs.accessSync(home, fs.constants.R_OK | fs.constants.W_OK);
    return { id: 'home', title: 'HERMES_HOME', status: 'ok', detail: home };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return {
        id: 'home',
        title: 'HERMES_HOME',
        status: 'warn',
        detail: `${home} does not exist yet`,
        fix: 'It is created on first write (e.g. `hermes-memory memory add ...` or `hermes-memory setup`).',
      };
    }
    return {
      id: 'home',
      title: 'HERMES_HOME',
      status: 'fail',
      detail: `${home} is not readable and writable (${code})`,
      fix: `Fix ownership or permissions of ${home}.`,
    };
  }
}

export function checkConfig(home: string): CheckResult {
  const file = homePaths(home).config;
  if (!fs.existsSync(file))
    return { id: 'config', title: 'config.yaml', status: 'ok', detail: 'not present (defaults apply)' };
  try {
    const config = loadHermesConfig(home);
    if (config.memory.problems.length > 0)
      return {
        id: 'config',
        title: 'config.yaml',
        status: 'fail',
        detail: `invalid values (their defaults are used): ${config.memory.problems.map((p) => p.message).join('; ')}`,
        fix: `Fix them in ${file}.`,
      };
    return {
      id: 'config',
      title: 'config.yaml',
      status: 'ok',
      detail: `parses (memory.provider: ${config.memory.provider || '"" — built-in only'})`,
    };
  } catch (error) {
    return {
      id: 'config',
      title: 'config.yaml',
      status: 'fail',
      detail: error instanceof Error ? error.message.split('\n')[0]! : String(error),
      fix: `Fix the YAML syntax in ${file} (or move it aside to start from the defaults).`,
    };
  }
}

/** Built-in files that hold memory or secrets must be private to the user (0600). */
export function checkPermissions(home: string): CheckResult {
  const p = homePaths(home);
  return privateFilesCheck({
    id: 'permissions',
    title: 'File permissions (0600)',
    files: [p.memory, p.user, p.env, ...sqliteFiles(p.stateDb)],
    home,
    okDetail: 'memory, database and .env files are private',
  });
}

/**
 * Lock files left by a crashed writer of the fallback lock (`<file>.lock.excl`, used where flock is
 * unavailable) and temp files left by an interrupted write. A fallback lock is judged by the
 * builtin lock's own rule (`judgeLock`): stale only when its holder pid is gone on this host.
 * `--fix` decides again at repair time, through the same breaker protocol writers use
 * (`breakAbandonedLock`), so a lock a writer took since the check is never removed. `<file>.lock`
 * itself is the flock sidecar shared with the Python agent: persistent, possibly held by a process
 * we cannot see, never reported or removed (deleting it would let two writers lock different
 * files). See docs/decisions/0304.
 */
export function checkLocks(home: string): CheckResult {
  const title = 'Stale lock and temp files';
  const dir = homePaths(home).memoriesDir;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return { id: 'locks', title, status: 'ok', detail: 'no memories folder yet' };
  }
  const locks: Array<{ file: string; token: string }> = [];
  for (const name of names) {
    if (!name.endsWith('.lock.excl') && !name.endsWith('.lock.excl.break')) continue;
    const file = path.join(dir, name);
    const seen = judgeLock(file);
    if (seen.state === 'abandoned') locks.push({ file, token: seen.token });
  }
  const temps = { prefix: MEMORY_TEMP_PREFIX, olderThanMs: 60_000 };
  const stale = [...locks.map((l) => l.file), ...findStaleTempFiles(dir, temps)];
  if (stale.length === 0) return { id: 'locks', title, status: 'ok', detail: 'none' };
  return {
    id: 'locks',
    title,
    status: 'fail',
    detail: `left by a crashed process: ${stale.map((f) => path.relative(home, f)).join(', ')}`,
    fix: `Remove them (no process holds them): rm ${stale.map((f) => JSON.stringify(f)).join(' ')}   (or: hermes-memory doctor --fix)`,
    repair: () => {
      const removed =
        locks.filter((l) => breakAbandonedLock(l.file, l.token)).length +
        removeStaleTempFiles(dir, temps).length;
      return `removed ${removed} stale file(s)`;
    },
  };
}

/**
 * Memory never follows a symbolic link inside HERMES_HOME: a linked memory file, lock, backup,
 * temp or spill file, config.yaml or .env, or a linked memories / cache folder is refused. Report
 * each one so the user can replace it; SQLite does follow links to its databases (a warning).
 */
export function checkSymlinks(home: string): CheckResult {
  const title = 'Symbolic links';
  const p = homePaths(home);
  const spill = spillDir(home);
  const refused = [p.config, p.env, p.memoriesDir, path.dirname(spill), spill]
    .concat(listDir(p.memoriesDir), listDir(spill))
    .filter(isLink);
  const followed = [p.stateDb].filter(isLink);
  if (refused.length === 0 && followed.length === 0)
    return { id: 'symlinks', title, status: 'ok', detail: 'none inside HERMES_HOME' };
  const describe = (files: string[]) =>
    files.map((f) => `${path.relative(home, f)} → ${fs.readlinkSync(f)}`).join(', ');
  if (refused.length === 0) {
    return {
      id: 'symlinks',
      title,
      status: 'warn',
      detail: `databases reached through a link: ${describe(followed)}`,
      fix: 'Make sure each link points at your own database; SQLite follows it.',
    };
  }
  return {
    id: 'symlinks',
    title,
    status: 'fail',
    detail: `refused, never followed: ${describe(refused)}${followed.length ? `; databases through a link: ${describe(followed)}` : ''}`,
    fix: `Replace each link with a regular file or folder ('rm' on a link removes only the link, not its target): ${refused.map((f) => JSON.stringify(f)).join(' ')}`,
  };
}

function listDir(dir: string): string[] {
  try {
    if (!fs.lstatSync(dir).isDirectory()) return [];
    return fs.readdirSync(dir).map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** `PRAGMA integrity_check` on the built-in session database, opened read-only, when it exists. */
export function checkDatabases(home: string, sqlite: ReturnType<typeof loadSqlite>): CheckResult[] {
  const file = homePaths(home).stateDb;
  if (!fs.existsSync(file))
    return [{ id: 'integrity', title: 'Database integrity', status: 'ok', detail: 'no databases yet' }];
  const Database = sqlite.Database;
  if (!Database)
    return [
      {
        id: 'integrity',
        title: `Database integrity: ${path.relative(home, file)}`,
        status: 'skip',
        detail: 'needs better-sqlite3',
      },
    ];
  return [
    sqliteIntegrityCheck({
      file,
      home,
      open: (f) => new Database(f, { readonly: true, fileMustExist: true }),
    }),
  ];
}
