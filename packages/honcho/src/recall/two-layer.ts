/**
 * The two-layer injection's state: the base context (layer 1) and the dialectic supplement
 * (layer 2), each prepared in the background in a core `PrefetchSlot` and served without waiting,
 * except on the first turn, which may wait its two budgets. Cadences, the empty-streak backoff,
 * stale and cross-session results and hung requests are decided here; what is fetched is the
 * provider's business (`fetchBase`, `runDialectic`).
 */
import { type Clock, PrefetchSlot, systemClock } from '@hermes-memory/core';

export interface TwoLayerOptions {
  contextCadence: number;
  dialecticCadence: number;
  /** `first-turn`: layer 1 only on turn 1. */
  injectionFrequency: 'every-turn' | 'first-turn';
  /** Turn-1 waits, in ms. */
  firstTurnBaseWaitMs: number;
  firstTurnDialecticWaitMs: number;
  /** A request older than this no longer blocks new ones (the request timeout × 2). */
  hungAfterMs: number;
  clock?: Clock;
  fetchBase: (query: string, signal: AbortSignal) => Promise<string>;
  runDialectic: (
    query: string,
    options: { cold: boolean; signal: AbortSignal; prompt?: string },
  ) => Promise<string>;
  /** Whether a failure must not widen the backoff (authentication errors). */
  isAuthFailure?: (error: unknown) => boolean;
}

export interface Snapshot {
  turn: number;
  lastDialecticTurn: number | undefined;
  lastDialecticFiredTurn: number | undefined;
  emptyStreak: number;
  effectiveCadence: number;
  threadAlive: boolean;
  threadAgeMs: number | undefined;
}

const BASE = 'base';
const DIALECTIC = 'dialectic';

export class TwoLayerRecall {
  private readonly base: PrefetchSlot<string>;
  private readonly dialectic: PrefetchSlot<string>;
  private latestBase: string | undefined;
  private lastContextTurn: number | undefined;
  /** The turn the last non-empty dialectic was fired on (or an explicit honcho_reasoning call). */
  private lastDialecticTurn: number | undefined;
  /** The turn the last automatic dialectic was fired on (cadence gaps count from here). */
  private lastFiredTurn: number | undefined;
  private emptyStreak = 0;
  private delivered = false;
  /** Turn 1 waited already: a host that never calls onTurnStart must not wait on every turn. */
  private waited = false;

  constructor(private readonly options: TwoLayerOptions) {
    const clock = options.clock ?? systemClock;
    this.base = new PrefetchSlot<string>({ hungAfterMs: options.hungAfterMs, clock });
    this.dialectic = new PrefetchSlot<string>({
      maxAgeTurns: options.dialecticCadence * 2,
      hungAfterMs: options.hungAfterMs,
      clock,
    });
  }

  get turn(): number {
    return this.dialectic.turn;
  }

  setTurn(turn: number): void {
    this.base.setTurn(turn);
    this.dialectic.setTurn(turn);
  }

  /** Dialectic gap after empty results: cadence + streak, at most cadence × 8. */
  get effectiveCadence(): number {
    const cadence = this.options.dialecticCadence;
    return Math.min(cadence + this.emptyStreak, cadence * 8);
  }

  /** An explicit dialectic (honcho_reasoning) ran now: automatic ones wait for their cadence. */
  noteExplicitDialectic(): void {
    this.lastDialecticTurn = this.turn;
    this.lastFiredTurn = this.turn;
  }

  /**
   * Start a dialectic for `query` unless one runs (and is not hung); `prompt` asks that instead of
   * the depth passes (the session-start prewarm). Returns whether it started.
   */
  fireDialectic(query: string, prompt?: string): boolean {
    const generation = this.dialectic.generation;
    const firedTurn = this.turn;
    const started = this.dialectic.start(DIALECTIC, async (signal) => {
      try {
        const text = (
          await this.options.runDialectic(query, {
            cold: this.latestBase === undefined,
            signal,
            ...(prompt ? { prompt } : {}),
          })
        ).trim();
        if (generation === this.dialectic.generation) {
          if (text) {
            this.lastDialecticTurn = firedTurn;
            this.emptyStreak = 0;
          } else {
            this.emptyStreak += 1;
          }
        }
        return text;
      } catch (error) {
        // A failure from an older session never widens the new session's backoff.
        if (generation === this.dialectic.generation && !this.options.isAuthFailure?.(error))
          this.emptyStreak += 1;
        throw error;
      }
    });
    if (started === 'started') this.lastFiredTurn = firedTurn;
    return started === 'started';
  }

  private fireBase(query: string): void {
    this.lastContextTurn = this.turn;
    this.base.start(BASE, (signal) => this.options.fetchBase(query, signal));
  }

  /** After a turn: refresh what the next turn serves, on each layer's cadence. */
  queue(query: string): void {
    const turn = this.turn;
    if (
      this.options.injectionFrequency !== 'first-turn' &&
      (this.options.contextCadence <= 1 ||
        this.lastContextTurn === undefined ||
        turn - this.lastContextTurn >= this.options.contextCadence)
    ) {
      this.fireBase(query);
    }
    if (this.lastFiredTurn !== undefined && turn - this.lastFiredTurn < this.effectiveCadence) return;
    this.fireDialectic(query);
  }

  /**
   * Layer 1 + layer 2 for this turn. Only the first turn waits (at most its two budgets); later
   * turns serve what is ready. A trivial prompt starts nothing but still takes a waiting dialectic.
   */
  async serve(
    query: string,
    options: { trivial: boolean; signal?: AbortSignal },
  ): Promise<{ base: string; dialectic: string }> {
    const firstTurn = this.turn <= 1 && !this.waited;
    const fresh = this.base.take(BASE);
    if (fresh !== undefined) this.latestBase = fresh;
    let dialectic = this.dialectic.take(DIALECTIC);
    const waits: Array<Promise<void>> = [];
    if (firstTurn && !options.trivial) {
      if (dialectic === undefined && !this.delivered) {
        if (!this.dialectic.isInFlight(DIALECTIC)) this.fireDialectic(query);
        waits.push(
          this.dialectic
            .join(DIALECTIC, this.options.firstTurnDialecticWaitMs, options.signal)
            .then((value) => {
              dialectic = value;
            }),
        );
      }
      if (this.latestBase === undefined) {
        if (!this.base.isInFlight(BASE)) this.fireBase(query);
        waits.push(
          this.base.join(BASE, this.options.firstTurnBaseWaitMs, options.signal).then((value) => {
            if (value !== undefined) this.latestBase = value;
          }),
        );
      }
      this.waited = true;
      await Promise.all(waits);
    }
    if (dialectic) this.delivered = true;
    const skipBase = this.options.injectionFrequency === 'first-turn' && this.turn > 1;
    return { base: skipBase ? '' : (this.latestBase ?? ''), dialectic: dialectic ?? '' };
  }

  /** A new session: in-flight and published results of the old one are dropped, cadences restart. */
  newSession(): void {
    this.base.newGeneration();
    this.dialectic.newGeneration();
    this.latestBase = undefined;
    this.lastContextTurn = undefined;
    this.lastDialecticTurn = undefined;
    this.lastFiredTurn = undefined;
    this.emptyStreak = 0;
    this.delivered = false;
    this.waited = false;
  }

  get pending(): number {
    return (this.base.isInFlight() ? 1 : 0) + (this.dialectic.isInFlight() ? 1 : 0);
  }

  async idle(timeoutMs: number): Promise<boolean> {
    const [a, b] = await Promise.all([this.base.idle(timeoutMs), this.dialectic.idle(timeoutMs)]);
    return a && b;
  }

  close(): void {
    this.base.close();
    this.dialectic.close();
  }

  snapshot(): Snapshot {
    return {
      turn: this.turn,
      lastDialecticTurn: this.lastDialecticTurn,
      lastDialecticFiredTurn: this.lastFiredTurn,
      emptyStreak: this.emptyStreak,
      effectiveCadence: this.effectiveCadence,
      threadAlive: this.dialectic.isInFlight(DIALECTIC),
      threadAgeMs: this.dialectic.inFlightAgeMs(DIALECTIC),
    };
  }
}
