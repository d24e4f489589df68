import { APICallError, InvalidArgumentError, TimeoutError } from '../errors/memory-error';
import { type Clock, sleep, systemClock } from './clock';

export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number;
  /** First backoff; doubles per retry. Default 500 ms. */
  baseDelayMs?: number;
  /** Cap of one exponential backoff. Default 8000 ms. */
  maxDelayMs?: number;
  /**
   * Cap of a server's `Retry-After`. A longer wait is not honoured: the error is thrown at once,
   * since a caller inside a turn cannot wait that long. Default 30 000 ms.
   */
  maxRetryAfterMs?: number;
  /**
   * Spread of the backoff: `equal` (default) waits between half and all of it, `full` between 0
   * and all of it, `none` exactly it.
   */
  jitter?: 'equal' | 'full' | 'none';
  /** Whether an error may be retried. Default {@link isRetryableError}. */
  isRetryable?: (error: unknown, attempt: number) => boolean;
  /** A server-requested delay for this error, in ms. Default {@link retryAfterMs}. */
  retryAfter?: (error: unknown) => number | undefined;
  /** Stops waiting and retrying; the abort reason is thrown. */
  signal?: AbortSignal;
  clock?: Clock;
  /** Uniform [0, 1) source for the jitter (tests pass a constant). Default Math.random. */
  random?: () => number;
  /** Called before each backoff sleep (for logging and metrics). */
  onRetry?: (info: RetryInfo) => void;
}

export interface RetryInfo {
  /** The attempt that failed, 0-based. */
  attempt: number;
  delayMs: number;
  error: unknown;
}

/**
 * Whether an error is worth another attempt: an `APICallError` says so itself (network errors,
 * timeouts, 408/409/429/5xx); a `TimeoutError` is; anything else (bugs, invalid arguments, aborts)
 * is not.
 */
export function isRetryableError(error: unknown): boolean {
  if (APICallError.isInstance(error)) return error.isRetryable;
  return TimeoutError.isInstance(error);
}

/**
 * Whether an error is the caller's fault rather than the backend's: 4xx responses other than
 * 408/409/429, invalid arguments, "not found". Circuit breakers do not count these, since the
 * backend answered correctly.
 */
export function isClientError(error: unknown): boolean {
  if (InvalidArgumentError.isInstance(error)) return true;
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    return status !== undefined && status >= 400 && status < 500 && !error.isRetryable;
  }
  return false;
}

/**
 * Parse a `Retry-After` (seconds or an HTTP date) or `retry-after-ms` value into milliseconds.
 * Accepts a header value, a `Headers` object or a lower-cased header record.
 */
export function parseRetryAfter(
  source: string | null | undefined | Headers | Readonly<Record<string, string | undefined>>,
  now: number = Date.now(),
): number | undefined {
  let ms: string | null | undefined;
  let value: string | null | undefined;
  if (source === null || source === undefined || typeof source === 'string') {
    value = source;
  } else if (typeof (source as Headers).get === 'function') {
    ms = (source as Headers).get('retry-after-ms');
    value = (source as Headers).get('retry-after');
  } else {
    const record = source as Readonly<Record<string, string | undefined>>;
    ms = record['retry-after-ms'];
    value = record['retry-after'];
  }
  if (ms !== null && ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms))) {
    return Math.max(0, Number(ms));
  }
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The delay an `APICallError`'s response asked for (`Retry-After`, `retry-after-ms`), if any. */
export function retryAfterMs(error: unknown, now: number = Date.now()): number | undefined {
  if (!APICallError.isInstance(error) || !error.responseHeaders) return undefined;
  return parseRetryAfter(error.responseHeaders, now);
}

/** The exponential backoff before retry number `attempt + 1` (0-based), with jitter applied. */
export function backoffDelay(
  attempt: number,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'jitter' | 'random'> = {},
): number {
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 8000;
  const full = Math.min(cap, base * 2 ** Math.max(0, attempt));
  const random = options.random ?? Math.random;
  switch (options.jitter ?? 'equal') {
    case 'none':
      return full;
    case 'full':
      return random() * full;
    default:
      return full / 2 + (random() * full) / 2;
  }
}

/**
 * Run `attempt` until it succeeds, a non-retryable error occurs, or the retries are used up (the
 * last error is thrown). Backoff is exponential with jitter; a server's `Retry-After` replaces it
 * (up to `maxRetryAfterMs`). All waiting goes through `clock`, and `signal` stops it.
 */
export async function retry<T>(
  attempt: (attemptNumber: number) => Promise<T> | T,
  options: RetryOptions = {},
): Promise<T> {
  const clock = options.clock ?? systemClock;
  const maxRetries = Math.max(0, Math.trunc(options.maxRetries ?? 2));
  const isRetryable = options.isRetryable ?? ((error: unknown) => isRetryableError(error));
  const retryAfter = options.retryAfter ?? ((error: unknown) => retryAfterMs(error, clock.now()));
  const maxRetryAfter = options.maxRetryAfterMs ?? 30_000;
  for (let n = 0; ; n++) {
    if (options.signal?.aborted) throw options.signal.reason;
    try {
      return await attempt(n);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error;
      if (n >= maxRetries || !isRetryable(error, n)) throw error;
      const asked = retryAfter(error);
      if (asked !== undefined && asked > maxRetryAfter) throw error;
      const delayMs = asked ?? backoffDelay(n, options);
      options.onRetry?.({ attempt: n, delayMs, error });
      await sleep(delayMs, { clock, ...(options.signal ? { signal: options.signal } : {}) });
    }
  }
}
