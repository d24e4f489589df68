import { TimeoutError } from '../errors/memory-error';
import { abortReason, type Clock, type ClockTimer, systemClock } from './clock';

export interface DeadlineOptions {
  /** Budget in milliseconds; `Infinity` means no time limit (the parent signal still applies). */
  timeoutMs: number;
  /** A caller's signal: aborting it aborts the deadline's signal with the same reason. */
  signal?: AbortSignal;
  /** Names the operation in the TimeoutError message ("prefetch 'honcho'"). */
  label?: string;
  clock?: Clock;
}

/** A signal that aborts with a `TimeoutError` when the budget runs out (or when the parent aborts). */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Milliseconds left (0 once expired, Infinity without a limit). */
  remainingMs(): number;
  /** Clear the timer and detach from the parent signal. Idempotent. */
  dispose(): void;
}

/**
 * Start a deadline. Pass `deadline.signal` to the work (fetch, an SDK call, a child process) so it
 * is cancelled, not merely abandoned, when the budget runs out; `dispose()` when the work is done.
 */
export function createDeadline(options: DeadlineOptions): Deadline {
  const clock = options.clock ?? systemClock;
  const controller = new AbortController();
  const label = options.label ?? 'operation';
  const limited = Number.isFinite(options.timeoutMs);
  const timeoutMs = Math.max(0, options.timeoutMs);
  const expiresAt = clock.now() + (limited ? timeoutMs : 0);
  let timer: ClockTimer | undefined;
  const parent = options.signal;
  const onParentAbort = () => {
    dispose();
    controller.abort(abortReason(parent!));
  };
  const dispose = () => {
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
    parent?.removeEventListener('abort', onParentAbort);
  };
  if (parent?.aborted) {
    controller.abort(abortReason(parent));
  } else {
    parent?.addEventListener('abort', onParentAbort, { once: true });
    if (limited) {
      timer = clock.setTimeout(() => {
        timer = undefined;
        parent?.removeEventListener('abort', onParentAbort);
        controller.abort(new TimeoutError(`${label} timed out after ${timeoutMs} ms`, timeoutMs));
      }, timeoutMs);
    }
  }
  return {
    signal: controller.signal,
    remainingMs: () =>
      controller.signal.aborted
        ? 0
        : limited
          ? Math.max(0, expiresAt - clock.now())
          : Number.POSITIVE_INFINITY,
    dispose,
  };
}

/**
 * Run `work` with a signal that aborts at its budget, and settle no later than that: with the
 * work's result, its error, or the abort reason (a `TimeoutError` when the budget ran out, the
 * parent's reason when the caller aborted). Work that ignores the signal is abandoned, never
 * awaited past the deadline. Synchronous throws become rejections.
 */
export function withDeadline<T>(
  work: (signal: AbortSignal) => T | PromiseLike<T>,
  options: DeadlineOptions,
): Promise<T> {
  const deadline = createDeadline(options);
  const { signal } = deadline;
  if (signal.aborted) {
    deadline.dispose();
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      signal.removeEventListener('abort', onAbort);
      deadline.dispose();
    };
    let running: PromiseLike<T> | T;
    try {
      running = work(signal);
    } catch (error) {
      finish();
      reject(error);
      return;
    }
    Promise.resolve(running).then(
      (value) => {
        finish();
        resolve(value);
      },
      (error: unknown) => {
        finish();
        reject(error);
      },
    );
  });
}
