import { APICallError, CircuitOpenError, TimeoutError } from '../errors/memory-error';
import type { Logger } from '../logging/logger';
import { abortReason, type Clock, systemClock } from './clock';
import { isClientError } from './retry';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive counted failures that open the breaker. Default 5. */
  threshold?: number;
  /** How long it stays open before letting one trial call through. Default 120 000 ms. */
  cooldownMs?: number;
  /**
   * Whether an error counts toward the threshold. Default: everything except client errors
   * ({@link isClientError}: 4xx other than 408/409/429, invalid arguments) — the backend answered.
   */
  isFailure?: (error: unknown) => boolean;
  /** Names the backend in the `CircuitOpenError` message. */
  name?: string;
  clock?: Clock;
  /** Called on every state change (for health and logs). */
  onStateChange?: (state: BreakerState, previous: BreakerState) => void;
  /**
   * Says when it opens (a warning: the failures and the pause) and when calls resume (info),
   * naming the backend.
   */
  logger?: Logger;
}

/** Statuses that still say the backend is in trouble although it answered. */
const TROUBLE_STATUSES = new Set([408, 409, 429]);

/**
 * What a provider's breaker counts: server errors, timeouts, resets, malformed bodies, and
 * answered 408/409/429 — not other client errors (the backend is up; the request or the key was
 * wrong), however the request's retry policy classed them.
 */
export function isBackendFailure(error: unknown): boolean {
  if (APICallError.isInstance(error) && TROUBLE_STATUSES.has(error.statusCode ?? 0)) return true;
  return !isClientError(error);
}

/**
 * Whether an abort reason is a deadline running out — core's `TimeoutError` (`createDeadline`,
 * `withDeadline`, the manager's budgets) or `AbortSignal.timeout()`'s DOMException — rather than a
 * caller that stopped (a cancelled turn, a session switch, a shutdown).
 */
export function isDeadlineExpiry(reason: unknown): boolean {
  if (TimeoutError.isInstance(reason)) return true;
  return (
    typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError'
  );
}

export interface BreakerRunOptions {
  /**
   * The caller's signal. A call that fails after it aborted is judged by why: a deadline expiring
   * ({@link isDeadlineExpiry}) means the backend did not answer in time and counts as a failure; any
   * other abort (the caller stopped) is no evidence about the backend and is `release`d.
   */
  signal?: AbortSignal;
  /** The error a refused call throws (a message naming the backend); default a `CircuitOpenError`. */
  refusal?: () => Error;
}

/**
 * Stops calling a backend that keeps failing. Closed: calls pass and consecutive failures are
 * counted (any success resets the count). Open (after `threshold` failures): calls are refused
 * with a `CircuitOpenError` until `cooldownMs` passed. Half-open: one trial call passes; its
 * success closes the breaker, its failure opens it for another cooldown.
 */
export class CircuitBreaker {
  readonly threshold: number;
  readonly cooldownMs: number;
  private readonly isFailure: (error: unknown) => boolean;
  private readonly clock: Clock;
  private readonly name: string;
  private readonly onStateChange: CircuitBreakerOptions['onStateChange'];
  private readonly logger: Logger | undefined;
  private current: BreakerState = 'closed';
  private consecutive = 0;
  private openedAtMs = 0;
  private trialInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.threshold = Math.max(1, Math.trunc(options.threshold ?? 5));
    this.cooldownMs = Math.max(0, options.cooldownMs ?? 120_000);
    this.isFailure = options.isFailure ?? ((error) => !isClientError(error));
    this.clock = options.clock ?? systemClock;
    this.name = options.name ?? 'backend';
    this.onStateChange = options.onStateChange;
    this.logger = options.logger;
  }

  /** The state now (an open breaker whose cooldown passed reads as `half-open`). */
  get state(): BreakerState {
    if (this.current === 'open' && this.clock.now() >= this.retryAt) return 'half-open';
    return this.current;
  }

  /** Consecutive counted failures. */
  get failures(): number {
    return this.consecutive;
  }

  /** When the breaker opened last (clock ms), 0 if never. */
  get openedAt(): number {
    return this.openedAtMs;
  }

  /** When an open breaker lets a trial through. */
  get retryAt(): number {
    return this.openedAtMs + this.cooldownMs;
  }

  /** `<name> is unavailable after N consecutive failed requests; retry after S s.` (tools, health). */
  unavailableMessage(): string {
    const seconds = Math.ceil(Math.max(0, this.retryAt - this.clock.now()) / 1000);
    return `${this.name} is unavailable after ${this.consecutive} consecutive failed requests; retry after ${seconds} s.`;
  }

  /**
   * Whether a call may go out now. In half-open only one trial is admitted until it reports;
   * a caller that gets `true` must report with `recordSuccess` or `recordFailure`.
   */
  tryAcquire(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open') return false;
    if (this.trialInFlight) return false;
    if (this.current !== 'half-open') this.transition('half-open');
    this.trialInFlight = true;
    return true;
  }

  recordSuccess(): void {
    this.consecutive = 0;
    this.trialInFlight = false;
    if (this.current !== 'closed') this.transition('closed');
  }

  /** Report a failed call. Errors `isFailure` rejects only release a half-open trial. */
  recordFailure(error?: unknown): void {
    const counted = error === undefined || this.isFailure(error);
    const wasTrial = this.trialInFlight;
    this.trialInFlight = false;
    if (!counted) {
      // The backend answered (a client error): as good as a success for a trial.
      if (wasTrial) this.recordSuccess();
      return;
    }
    this.consecutive += 1;
    if (this.current === 'half-open' || (this.current === 'closed' && this.consecutive >= this.threshold)) {
      this.openedAtMs = this.clock.now();
      this.transition('open');
    }
  }

  /**
   * An admitted call ended without a verdict on the backend (its own caller aborted it): frees a
   * half-open trial slot for the next call and counts nothing — unlike a client error, which is
   * an answer and closes the breaker.
   */
  release(): void {
    this.trialInFlight = false;
  }

  /**
   * Run `call` through the breaker: refused while open (with `options.refusal()`, by default a
   * `CircuitOpenError`). A call that fails after `options.signal` aborted is decided here, once for
   * every provider: a caller that stopped (a cancelled turn, a session switch, a shutdown) says
   * nothing about the backend, so it is `release`d; a deadline that expired (a `TimeoutError` or
   * `AbortSignal.timeout()` reason) means the backend did not answer in time, so it counts — a
   * half-open trial cut short by it re-opens the breaker.
   */
  async run<T>(call: () => Promise<T> | T, options: BreakerRunOptions = {}): Promise<T> {
    options.signal?.throwIfAborted();
    if (!this.tryAcquire()) {
      throw (
        options.refusal?.() ??
        new CircuitOpenError(
          `${this.name} temporarily unavailable after ${this.consecutive} consecutive failures; retrying after ${Math.ceil(Math.max(0, this.retryAt - this.clock.now()) / 1000)} s.`,
          this.retryAt,
        )
      );
    }
    try {
      const value = await call();
      this.recordSuccess();
      return value;
    } catch (error) {
      const signal = options.signal;
      if (!signal?.aborted) this.recordFailure(error);
      else if (isDeadlineExpiry(abortReason(signal))) this.recordFailure(abortReason(signal));
      else this.release();
      throw error;
    }
  }

  /** Close the breaker and forget the failures. */
  reset(): void {
    this.consecutive = 0;
    this.trialInFlight = false;
    if (this.current !== 'closed') this.transition('closed');
  }

  private transition(next: BreakerState): void {
    const previous = this.current;
    this.current = next;
    if (next === 'open' && previous === 'closed')
      this.logger?.warn(
        `${this.name}: ${this.consecutive} consecutive requests failed; pausing ${this.name} calls for ${Math.round(this.cooldownMs / 1000)} s.`,
      );
    else if (next === 'closed') this.logger?.info(`${this.name}: reachable again; calls resumed.`);
    this.onStateChange?.(next, previous);
  }
}

export interface ProviderBreakerOptions {
  /** Names the backend in the refusal, `unavailableMessage()` and the log lines. */
  name: string;
  /** Consecutive counted failures that open it (a provider's `breakerThreshold`). Default 5. */
  threshold?: number | undefined;
  /** How long it stays open (a provider's `breakerCooldownMs`). Default 120 000 ms. */
  cooldownMs?: number | undefined;
  clock?: Clock;
  logger?: Logger;
  /**
   * Runs in a microtask once the breaker closed, so after the call that closed it reported: where
   * a provider sends what it held during the outage.
   */
  onClose?: () => void;
}

/**
 * A remote provider's breaker, the same numbers and rule everywhere (decisions 0925, 0953, 0982):
 * five failures in a row open it for 120 s, counted by {@link isBackendFailure}, its opening and
 * closing logged; run calls through `run(call, { signal, refusal })`.
 */
export function createProviderBreaker(options: ProviderBreakerOptions): CircuitBreaker {
  const { onClose } = options;
  return new CircuitBreaker({
    threshold: options.threshold ?? 5,
    cooldownMs: options.cooldownMs ?? 120_000,
    name: options.name,
    isFailure: isBackendFailure,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(onClose
      ? {
          onStateChange: (state: BreakerState) => {
            if (state === 'closed') queueMicrotask(onClose);
          },
        }
      : {}),
  });
}
