import { type Logger, MemoryError } from '@hermes-memory/core';

export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Fallback lock only: an unparseable lock file (a half-written one) older than this is stale (default 1 s). */
  foreignStaleMs?: number;
  /** Told once per process when flock is unavailable and the fallback is used. */
  logger?: Logger;
}

export class LockTimeoutError extends MemoryError {
  constructor(message: string) {
    super(message);
    this.name = 'LockTimeoutError';
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
