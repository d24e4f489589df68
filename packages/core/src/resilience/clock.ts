/**
 * Time, injectable. Everything in core that waits (retry backoff, deadlines, breaker cooldowns,
 * polling, health "since") reads the time and schedules timers through a `Clock`, so tests drive
 * it with a `ManualClock` and never sleep.
 */
export interface Clock {
  /** Milliseconds, comparable with each other (the system clock uses `Date.now()`). */
  now(): number;
  /** Run `callback` once after `ms`. */
  setTimeout(callback: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer): void;
}

/** An opaque timer handle (only the clock that made it can use it). */
export type ClockTimer = object;

/** The real clock: `Date.now()` and Node's timers. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (callback: () => void, ms: number) => setTimeout(callback, Math.max(0, ms)),
  clearTimeout: (timer: ClockTimer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
});

/**
 * Resolve after `ms` on `clock`; reject with the abort reason when `signal` fires first. The
 * timer is cleared on abort, so an aborted sleep holds nothing.
 */
export function sleep(ms: number, options: { signal?: AbortSignal; clock?: Clock } = {}): Promise<void> {
  const { signal } = options;
  const clock = options.clock ?? systemClock;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The reason a signal was aborted with, or a DOMException `AbortError` when it has none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

interface ManualTimer {
  readonly __clockTimer: true;
  at: number;
  seq: number;
  callback: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when told to. `advance(ms)` fires due timers in time order and lets
 * promise chains run between them (each firing is followed by a turn of the event loop), so code
 * that sleeps, retries or times out can be tested in microseconds.
 *
 * ```ts
 * const clock = new ManualClock();
 * const call = retry(() => flaky(), { clock, maxRetries: 2 });
 * await clock.advance(10_000); // both backoff sleeps elapse
 * await call;
 * ```
 */
export class ManualClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: ManualTimer[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): ClockTimer {
    const timer: ManualTimer = {
      __clockTimer: true,
      at: this.time + Math.max(0, Number.isFinite(ms) ? ms : 0),
      seq: this.seq++,
      callback,
      cancelled: false,
    };
    this.timers.push(timer);
    return timer;
  }

  clearTimeout(timer: ClockTimer): void {
    const t = timer as ManualTimer;
    t.cancelled = true;
    this.timers = this.timers.filter((x) => x !== t);
  }

  /** Timers scheduled and not yet fired or cleared. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** When the next timer fires, or undefined when none is scheduled. */
  get nextTimerAt(): number | undefined {
    return this.sorted()[0]?.at;
  }

  /**
   * Move time forward by `ms`, firing every timer that falls due on the way (including timers
   * those callbacks schedule inside the window), in time order.
   */
  async advance(ms: number): Promise<void> {
    const target = this.time + Math.max(0, ms);
    await settle();
    while (true) {
      const next = this.sorted()[0];
      if (!next || next.at > target) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.time = Math.max(this.time, next.at);
      if (!next.cancelled) next.callback();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** Fire timers until none is left (at most `limit`), advancing time to each. */
  async runAll(limit = 1000): Promise<void> {
    for (let i = 0; i < limit; i++) {
      await settle();
      const at = this.nextTimerAt;
      if (at === undefined) return;
      await this.advance(at - this.time);
    }
    throw new Error(
      `ManualClock.runAll: more than ${limit} timers fired; is something rescheduling forever?`,
    );
  }

  private sorted(): ManualTimer[] {
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq);
  }
}

/** Let pending promise callbacks and I/O callbacks of this turn run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
