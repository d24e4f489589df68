import type { Logger } from '../logging/logger';
import { silentLogger } from '../logging/logger';
import { type Clock, type ClockTimer, systemClock } from '../resilience/clock';
import { createDeadline } from '../resilience/deadline';
import { describeError } from '../tools/results';

export interface PrefetchSlotOptions {
  /**
   * A result fired more than this many turns before the current turn is stale and never served
   * (Honcho drops a dialectic fired more than `cadence × 2` turns ago). Default: no limit.
   */
  maxAgeTurns?: number;
  /**
   * A request still running after this long counts as hung: it no longer blocks a new one, its
   * signal is aborted and its late result is dropped (Honcho: `timeout × 2`). Default: never.
   */
  hungAfterMs?: number;
  /**
   * `single` (default): one request at a time; a start while another runs is refused.
   * `per-key`: requests for different keys run side by side (Mem0's per-query searches).
   */
  concurrency?: 'single' | 'per-key';
  /** Results kept at once (oldest dropped first). Default 8. */
  maxResults?: number;
  clock?: Clock;
  /** Failed requests are logged here at DEBUG. */
  logger?: Logger;
  /** Called when a request settles (for cadence backoff and health). Not called for dropped results. */
  onSettled?: (outcome: PrefetchOutcome) => void;
}

export interface PrefetchOutcome {
  key: string;
  /** The turn it was started on. */
  firedTurn: number;
  ok: boolean;
  /** The error of a failed request. */
  error?: unknown;
  durationMs: number;
}

export type StartResult = 'started' | 'joined' | 'busy';

interface Flight {
  key: string;
  generation: number;
  firedTurn: number;
  startedAt: number;
  controller: AbortController;
  done: Promise<void>;
  /** Set when abandoned (session switch, hung, closed): its late result is dropped. */
  abandoned: boolean;
}

interface Stored<T> {
  value: T;
  generation: number;
  firedTurn: number;
}

/**
 * Where background recall waits for the turn that consumes it — the part every remote provider's
 * `queuePrefetch`/`prefetch` pair shares:
 *
 * - **session generations**: `newGeneration()` (on a session switch) aborts what runs and drops
 *   every result from before it, including ones that arrive later;
 * - **max age in turns**: `setTurn(n)` each turn; a result fired more than `maxAgeTurns` turns ago
 *   is never served;
 * - **keyed single-flight**: starting work for a key already in flight joins it instead;
 * - **bounded join**: `join(key, ms)` waits at most `ms` for a running request (turn 1's
 *   synchronous first fetch), never longer;
 * - **hung-request detection**: a request older than `hungAfterMs` stops blocking new ones.
 *
 * Serving (`peek`, `take`) never waits and does no I/O, so a warm `prefetch` stays on the hot path.
 */
export class PrefetchSlot<T> {
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly options: PrefetchSlotOptions;
  private readonly flights = new Map<string, Flight>();
  private readonly results = new Map<string, Stored<T>>();
  private currentTurn = 0;
  private currentGeneration = 0;

  constructor(options: PrefetchSlotOptions = {}) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** The turn results are stamped with and aged against (1-based, from `onTurnStart`). */
  get turn(): number {
    return this.currentTurn;
  }

  setTurn(turn: number): void {
    if (Number.isFinite(turn)) this.currentTurn = Math.trunc(turn);
  }

  get generation(): number {
    return this.currentGeneration;
  }

  /**
   * A new session generation: running requests are aborted and abandoned, stored results are
   * dropped, and results that arrive later from before this call are dropped too.
   */
  newGeneration(): number {
    this.currentGeneration += 1;
    for (const flight of this.flights.values()) this.abandon(flight, 'session switched');
    this.flights.clear();
    this.results.clear();
    return this.currentGeneration;
  }

  /** Whether a (non-hung) request for `key` — or, without a key, any request — is running. */
  isInFlight(key?: string): boolean {
    this.reapHung();
    return key === undefined ? this.flights.size > 0 : this.flights.has(key);
  }

  /** How long the running request for `key` (or the oldest one) has been running, in ms. */
  inFlightAgeMs(key?: string): number | undefined {
    const flights = key === undefined ? [...this.flights.values()] : [this.flights.get(key)].filter(Boolean);
    if (flights.length === 0) return undefined;
    return this.clock.now() - Math.min(...flights.map((f) => f!.startedAt));
  }

  /**
   * Start `work` for `key` in the background. `joined` when the same key is already running
   * (single-flight), `busy` when another key runs and concurrency is `single`. `work` gets a signal
   * that aborts when the request is abandoned (session switch, hung, `timeoutMs`).
   */
  start(
    key: string,
    work: (signal: AbortSignal) => Promise<T> | T,
    options: { timeoutMs?: number } = {},
  ): StartResult {
    this.reapHung();
    if (this.flights.has(key)) return 'joined';
    if ((this.options.concurrency ?? 'single') === 'single' && this.flights.size > 0) return 'busy';
    const controller = new AbortController();
    const deadline =
      options.timeoutMs !== undefined
        ? createDeadline({ timeoutMs: options.timeoutMs, clock: this.clock, label: `prefetch '${key}'` })
        : undefined;
    deadline?.signal.addEventListener('abort', () => controller.abort(deadline.signal.reason), {
      once: true,
    });
    const flight: Flight = {
      key,
      generation: this.currentGeneration,
      firedTurn: this.currentTurn,
      startedAt: this.clock.now(),
      controller,
      abandoned: false,
      done: Promise.resolve(),
    };
    flight.done = Promise.resolve()
      .then(() => work(controller.signal))
      .then(
        (value) => this.settle(flight, { ok: true, value }),
        (error: unknown) => this.settle(flight, { ok: false, error }),
      )
      .finally(() => deadline?.dispose());
    this.flights.set(key, flight);
    return 'started';
  }

  /** The fresh result for `key` (or, without a key, the newest fresh one), left in place. */
  peek(key?: string): T | undefined {
    return this.fresh(key)?.[1].value;
  }

  /** Like `peek`, and forgets the result so it is served once. */
  take(key?: string): T | undefined {
    const found = this.fresh(key);
    if (!found) return undefined;
    this.results.delete(found[0]);
    return found[1].value;
  }

  /**
   * Wait at most `timeoutMs` for the request running for `key`, then `take` its result. Resolves
   * at once when a result is ready or nothing runs. Never waits past `timeoutMs` or `signal`.
   */
  async join(key: string, timeoutMs: number, signal?: AbortSignal): Promise<T | undefined> {
    const ready = this.take(key);
    if (ready !== undefined) return ready;
    this.reapHung();
    const flight = this.flights.get(key);
    if (!flight) return undefined;
    let timer: ClockTimer | undefined;
    await new Promise<void>((resolve) => {
      const finish = () => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        resolve();
      };
      timer = this.clock.setTimeout(finish, Math.max(0, timeoutMs));
      signal?.addEventListener('abort', finish, { once: true });
      if (signal?.aborted) finish();
      flight.done.then(finish, finish);
    });
    return this.take(key);
  }

  /** Drop stored results (running requests keep running). */
  clear(): void {
    this.results.clear();
  }

  /** Abort and abandon every running request, drop every result (at shutdown). */
  close(): void {
    for (const flight of this.flights.values()) this.abandon(flight, 'closed');
    this.flights.clear();
    this.results.clear();
  }

  /** Wait until every running request settled (for `flush`/`shutdown`), at most `timeoutMs`. */
  async idle(timeoutMs: number): Promise<boolean> {
    const pending = [...this.flights.values()].map((f) => f.done);
    if (pending.length === 0) return true;
    let timer: ClockTimer | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = this.clock.setTimeout(() => resolve(false), Math.max(0, timeoutMs));
    });
    const result = await Promise.race([Promise.all(pending).then(() => true), timedOut]);
    if (timer !== undefined) this.clock.clearTimeout(timer);
    return result;
  }

  private fresh(key?: string): [string, Stored<T>] | undefined {
    const maxAge = this.options.maxAgeTurns ?? Number.POSITIVE_INFINITY;
    const candidates =
      key === undefined ? [...this.results.entries()].reverse() : [[key, this.results.get(key)] as const];
    for (const [k, stored] of candidates) {
      if (!stored) continue;
      if (stored.generation !== this.currentGeneration || this.currentTurn - stored.firedTurn > maxAge) {
        this.results.delete(k);
        continue;
      }
      return [k, stored];
    }
    return undefined;
  }

  private settle(flight: Flight, outcome: { ok: true; value: T } | { ok: false; error: unknown }): void {
    if (this.flights.get(flight.key) === flight) this.flights.delete(flight.key);
    if (flight.abandoned || flight.generation !== this.currentGeneration) return;
    const durationMs = this.clock.now() - flight.startedAt;
    if (outcome.ok) {
      this.results.delete(flight.key);
      this.results.set(flight.key, {
        value: outcome.value,
        generation: flight.generation,
        firedTurn: flight.firedTurn,
      });
      const max = Math.max(1, this.options.maxResults ?? 8);
      while (this.results.size > max) this.results.delete(this.results.keys().next().value as string);
    } else {
      this.logger.debug(`Prefetch '${flight.key}' failed: ${describeError(outcome.error)}`);
    }
    this.options.onSettled?.({
      key: flight.key,
      firedTurn: flight.firedTurn,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { error: outcome.error }),
      durationMs,
    });
  }

  private abandon(flight: Flight, why: string): void {
    flight.abandoned = true;
    flight.controller.abort(new Error(`prefetch '${flight.key}' abandoned: ${why}`));
  }

  private reapHung(): void {
    const hungAfter = this.options.hungAfterMs;
    if (hungAfter === undefined) return;
    const now = this.clock.now();
    for (const [key, flight] of this.flights) {
      if (now - flight.startedAt < hungAfter) continue;
      this.logger.debug(
        `Prefetch '${key}' still running after ${now - flight.startedAt} ms: treated as hung.`,
      );
      this.abandon(flight, 'hung');
      this.flights.delete(key);
    }
  }
}
