import fs from 'node:fs';
import path from 'node:path';
import { MemoryStore, SessionStore } from '@hermes-memory/builtin';
import { loadHermesConfig } from '@hermes-memory/core';
import { CliError, oneLine } from './errors';
import { homePaths } from './paths';

export type Target = 'memory' | 'user';

export function parseTarget(value: string | undefined): Target {
  if (value === undefined || value === 'memory') return 'memory';
  if (value === 'user') return 'user';
  throw new CliError(`Invalid target '${value}'. Use 'memory' or 'user'.`, { exitCode: 2 });
}

/**
 * MEMORY.md / USER.md with the limits from config.yaml, loaded (snapshot + live entries).
 * Read-only commands pass `create: false`, so listing a fresh home creates nothing.
 */
export function openMemoryStore(home: string, options: { create?: boolean } = {}): MemoryStore {
  const config = loadHermesConfig(home);
  return new MemoryStore({
    hermesHome: home,
    memoryCharLimit: config.memory.memoryCharLimit,
    userCharLimit: config.memory.userCharLimit,
  }).load({ createDir: options.create !== false });
}

/**
 * The session database, for reading: `sessions list|search|show` never write to it. Undefined when
 * there is none yet (a fresh home stays empty). Opened read-only, so a Python agent's state.db is
 * left as it is (no schema migration, no second search index, no journal-mode switch), whatever
 * schema version the agent left it at, and a read-only home can be listed.
 */
export function openSessionStore(home: string): SessionStore | undefined {
  const file = homePaths(home).stateDb;
  if (!fs.existsSync(file)) return undefined;
  try {
    return new SessionStore({ hermesHome: home, readonly: true });
  } catch (error) {
    throw unreadable(file, error);
  }
}

function unreadable(file: string, error: unknown): CliError {
  const hint = !accessible(file, fs.constants.R_OK)
    ? '; check its owner and permissions'
    : !accessible(path.dirname(file), fs.constants.W_OK)
      ? `; SQLite writes ${path.basename(file)}-wal / -shm beside a database in WAL mode, even to read it, so its folder must be writable`
      : '';
  return new CliError(`Cannot read ${file}: ${oneLine(error)}${hint}.`);
}

function accessible(file: string, mode: number): boolean {
  try {
    fs.accessSync(file, mode);
    return true;
  } catch {
    return false;
  }
}

/** A store result that failed becomes a one-line CLI error carrying the store's own message. */
export function failIfUnsuccessful(result: { success: boolean; [key: string]: unknown }): void {
  if (!result.success) throw new CliError(String(result.error ?? 'The write was refused.'));
}
