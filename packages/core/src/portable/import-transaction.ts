import { CliError } from '../provider-cli/args';
import { type BusyRetryOptions, isSqliteBusy, retryWhileBusy } from '../sqlite/busy-retry';

/** How long an import waits for an agent's writes to let go of a database (default). */
export const IMPORT_LOCK_WAIT_MS = 60_000;

/**
 * Run an import's writes in one transaction that takes the write lock first (BEGIN IMMEDIATE),
 * waiting out an agent's writes with the stores' busy retry instead of failing with "database is
 * locked"; once the lock is held nothing inside can be refused as busy. A failure rolls everything
 * back; a lock still held at the deadline is a `CliError` naming `file`, with nothing written.
 */
export function importTransaction<T>(
  db: { exec(sql: string): unknown },
  file: string,
  fn: () => T,
  options: BusyRetryOptions = {},
): T {
  const timeoutMs = options.timeoutMs ?? IMPORT_LOCK_WAIT_MS;
  try {
    retryWhileBusy(() => db.exec('BEGIN IMMEDIATE'), { ...options, timeoutMs });
  } catch (error) {
    if (!isSqliteBusy(error)) throw error;
    throw new CliError(
      `${file} stayed locked by another process for ${Math.round(timeoutMs / 1000)} s; nothing was imported into it. Retry when the agent is idle.`,
      { cause: error },
    );
  }
  try {
    const value = fn();
    db.exec('COMMIT');
    return value;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}
