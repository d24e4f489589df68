import { type Clock, sleep, systemClock } from './clock';
import { isRetryableError } from './retry';

export interface PollOptions<T> {
  /** Time between the end of one check and the start of the next. Default 500 ms. */
  intervalMs?: number;
  /** Give up after this long (measured on `clock`). Required: polling is always bounded. */
  timeoutMs: number;
  /** Whether a value is final. Default: any value other than `undefined`. */
  isDone?: (value: T) => boolean;
  /**
   * Whether an error means "not yet" (keep polling) rather than "stop". Default
   * {@link isRetryableError} (network errors, timeouts, 5xx); other errors are thrown.
   */
  isTransient?: (error: unknown) => boolean;
  signal?: AbortSignal;
  clock?: Clock;
}

export type PollResult<T> =
  | { status: 'done'; value: T; attempts: number }
  | { status: 'timeout'; last: T | undefined; attempts: number };

/**
 * Check `probe` until it reports a final value or `timeoutMs` passes. Never unbounded: the result
 * says whether it finished, so a caller can drop what did not (Hindsight's read-after-write wait
 * drops unresolved operations at its deadline to keep later turns fast).
 */
export async function pollUntil<T>(
  probe: (attempt: number) => Promise<T> | T,
  options: PollOptions<T>,
): Promise<PollResult<T>> {
  const clock = options.clock ?? systemClock;
  const interval = Math.max(0, options.intervalMs ?? 500);
  const isDone = options.isDone ?? ((value: T) => value !== undefined);
  const isTransient = options.isTransient ?? isRetryableError;
  const deadline = clock.now() + Math.max(0, options.timeoutMs);
  let last: T | undefined;
  for (let attempt = 0; ; attempt++) {
    if (options.signal?.aborted) throw options.signal.reason;
    try {
      const value = await probe(attempt);
      if (isDone(value)) return { status: 'done', value, attempts: attempt + 1 };
      last = value;
    } catch (error) {
      if (options.signal?.aborted || !isTransient(error)) throw error;
    }
    const left = deadline - clock.now();
    if (left <= 0) return { status: 'timeout', last, attempts: attempt + 1 };
    await sleep(Math.min(interval, left), {
      clock,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
}
