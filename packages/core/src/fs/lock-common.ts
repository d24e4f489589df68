import { MemoryError } from '../errors/memory-error';
import type { Logger } from '../logging/logger';

export interface FileLockOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Fallback lock only: an unparseable lock file (a half-written one) older than this is stale (default 1 s). */
  foreignStaleMs?: number;
  /** Told once per process when flock is unavailable and the fallback is used. */
  logger?: Logger;
  /** Names the lock in a timeout error (default "file lock"; builtin says "memory file lock"). */
  description?: string;
}

export class LockTimeoutError extends MemoryError {
  constructor(message: string) {
    super(message);
    this.name = 'LockTimeoutError';
  }
}

/** Real time on purpose: the other holder is another process, not something a test clock drives. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
