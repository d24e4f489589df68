/**
 * Turns held while the Hindsight breaker is open (decision 0953). They stay where they are — in
 * their session's log, past its `retained` watermark — so a retain that runs once the breaker
 * closes sends them in order to the right document. This keeps the logs of earlier sessions that
 * still have turns to deliver, and bounds what an outage of days can hold: the newest turns within
 * `HeldLimits` are kept, the oldest beyond are dropped (counted, one warning per outage).
 */
import { HeldLosses, type Logger } from '@hermes-memory/core';
import type { SessionLog } from './retain';

/** The most held while the breaker is open: the newest turns within both limits are kept. */
export interface HeldLimits {
  /** Turns (a user message and the reply). */
  turns: number;
  /** Characters of the turns' JSON. */
  chars: number;
}

/** 1000 turns (2000 messages, honcho's cap) or 2 000 000 characters. */
export const DEFAULT_HELD_LIMITS: HeldLimits = { turns: 1_000, chars: 2_000_000 };

/** Turns of `log` the server does not hold yet. */
export function undelivered(log: SessionLog): number {
  return Math.max(0, log.turns.length - log.retained);
}

export class HeldTurns {
  /** Earlier sessions' logs with turns still to deliver, oldest first. */
  private earlier: SessionLog[] = [];
  /** What the cap dropped: counted, one warning per outage, a line when a retain goes through again. */
  readonly losses: HeldLosses;
  /** Per log: `sums[k]` is the characters of `turns[from .. from + k)` (see `heldChars`). */
  private readonly sums = new WeakMap<SessionLog, { from: number; sums: number[] }>();

  constructor(
    private readonly limits: HeldLimits,
    logger: () => Logger,
    /** Called for each log the cap moved the watermark of (its dropped turns leave the outbox). */
    private readonly released: (log: SessionLog) => void = () => undefined,
  ) {
    this.losses = new HeldLosses({
      name: 'Hindsight',
      unit: 'turn',
      max: limits.turns,
      maxChars: limits.chars,
      logger,
    });
  }

  /** Held turns dropped over the cap since the provider started. */
  get dropped(): number {
    return this.losses.total;
  }

  /** Keep an earlier session's `log` until its turns are delivered (`take` hands it back). */
  hold(log: SessionLog): void {
    if (undelivered(log) > 0 && !this.earlier.includes(log)) this.earlier.push(log);
  }

  /** The earlier sessions' logs to send, oldest first, forgotten here (a failed send holds them again). */
  take(): SessionLog[] {
    const logs = this.earlier.filter((log) => undelivered(log) > 0);
    this.earlier = [];
    return logs;
  }

  /** Turns not delivered, across earlier sessions and `current`. */
  count(current: SessionLog): number {
    let n = undelivered(current);
    for (const log of this.earlier) if (log !== current) n += undelivered(log);
    return n;
  }

  /**
   * Drop the oldest undelivered turns beyond the limits. Only logs that append (or have not sent
   * yet) can lose turns: an old server's document is replaced by the whole session each time, so
   * dropping from it would erase what it already holds. The totals come from each log's running
   * sums, so a turn held while the breaker is open costs O(logs), not a walk of up to 1000 turns;
   * only the turns dropped are visited.
   */
  cap(current: SessionLog): void {
    const logs = [...this.earlier.filter((log) => log !== current), current].filter(
      (log) => log.appends !== false,
    );
    let turns = 0;
    let chars = 0;
    for (const log of logs) {
      turns += undelivered(log);
      chars += this.heldChars(log);
    }
    const over = () => turns > this.limits.turns || chars > this.limits.chars;
    let drop = 0;
    // The oldest go first, until the newest that fit in both limits are all that is left.
    for (const log of logs) {
      if (!over()) break;
      let i = log.retained;
      for (; i < log.turns.length && over(); i++) {
        turns -= 1;
        chars -= log.turns[i]!.length;
        // Released, and past the watermark: never sent (an empty turn is skipped when content is built).
        log.turns[i] = '';
      }
      drop += i - log.retained;
      const moved = i > log.retained;
      log.retained = i;
      if (moved) this.released(log);
      log.dispatched = Math.max(log.dispatched, i);
    }
    this.earlier = this.earlier.filter((log) => undelivered(log) > 0);
    this.losses.dropped(drop);
  }

  /**
   * Characters of `log`'s undelivered turns, from its running sums: extended by the turns appended
   * since the last call (each turn is measured once), started at the watermark the first time the
   * log is seen (nothing before it is ever held again: `retained` only grows, and only turns below
   * the new watermark are blanked).
   */
  private heldChars(log: SessionLog): number {
    let running = this.sums.get(log);
    if (!running) {
      running = { from: log.retained, sums: [0] };
      this.sums.set(log, running);
    }
    const { from, sums } = running;
    for (let i = from + sums.length - 1; i < log.turns.length; i++)
      sums.push(sums[sums.length - 1]! + log.turns[i]!.length);
    return sums[log.turns.length - from]! - sums[log.retained - from]!;
  }

  /** A retain went through: the outage (if any) is over; say what it cost. */
  delivered(): void {
    this.losses.delivered();
  }
}
