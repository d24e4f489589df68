import fs from 'node:fs';
import { MemoryStore, SessionStore } from '@hermes-memory/builtin';
import { loadHermesConfig } from '@hermes-memory/core';
import { CliError } from './errors';
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
 * The session database. Read-only commands pass `create: false` so listing an empty home does not
 * create `state.db`; they get `undefined` instead.
 */
export function openSessionStore(home: string, options: { create: boolean }): SessionStore | undefined {
  const file = homePaths(home).stateDb;
  if (!options.create && !fs.existsSync(file)) return undefined;
  return new SessionStore({ hermesHome: home });
}

/** A store result that failed becomes a one-line CLI error carrying the store's own message. */
export function failIfUnsuccessful(result: { success: boolean; [key: string]: unknown }): void {
  if (!result.success) throw new CliError(String(result.error ?? 'The write was refused.'));
}
