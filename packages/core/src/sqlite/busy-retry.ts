/**
 * SQLite answers SQLITE_BUSY / SQLITE_LOCKED ("database is locked") when another connection holds
 * the lock longer than the busy timeout, and at once when a deferred transaction's snapshot went
 * stale. Writers that must not fail under concurrent agent writes take the write lock up front
 * (BEGIN IMMEDIATE) and retry that, as the reference's session store does.
 */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')))
    return true;
  const message = error instanceof Error ? error.message.toLowerCase() : '';
  return message.includes('database is locked') || message.includes('database table is locked');
}

export interface BusyRetryOptions {
  /** Give up after this many attempts (default: until `timeoutMs`). */
  attempts?: number;
  /** Give up once this long has passed since the first attempt (default 30 s). */
  timeoutMs?: number;
  /** Pause between attempts, jittered in this range (default 20–150 ms, the reference's). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Injected clock and synchronous sleep (tests). */
  now?: () => number;
  sleep?: (ms: number) => void;
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));

/** Block this thread for `ms` (better-sqlite3 is synchronous, so its callers wait synchronously too). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, Math.max(0, ms));
}

/**
 * Run a synchronous SQLite step (typically `BEGIN IMMEDIATE`, or a whole `.immediate()`
 * transaction, which applies nothing when it fails), retrying with jitter while the database is
 * busy. Each attempt also waits the connection's own busy timeout. Other errors, and the last busy
 * one, are thrown.
 */
export function retryWhileBusy<T>(fn: () => T, options: BusyRetryOptions = {}): T {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepSync;
  const min = options.minDelayMs ?? 20;
  const max = Math.max(min, options.maxDelayMs ?? 150);
  const deadline = now() + (options.timeoutMs ?? 30_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return fn();
    } catch (error) {
      const exhausted =
        options.attempts !== undefined ? attempt >= options.attempts : now() >= deadline;
      if (!isSqliteBusy(error) || exhausted) throw error;
      sleep(min + Math.random() * (max - min));
    }
  }
}
