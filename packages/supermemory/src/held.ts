/**
 * What Supermemory holds undelivered during an outage — the session buffer, turns whose ingest
 * failed, turns an earlier run left on disk — is bounded like Honcho's and Hindsight's held writes
 * (decision 0115): the newest turns within `HeldLimits` are kept, the oldest beyond are dropped
 * (counted through core's `HeldLosses`, one warning per outage) and crossed off the outbox so they
 * are not replayed. While Supermemory answers, a session's own buffer is never cut.
 */
import { HeldLosses, type Logger } from '@hermes-memory/core';

/** The most held undelivered: the newest turns within both limits are kept. */
export interface HeldLimits {
  /** Turns (a user message and the reply). */
  turns: number;
  /** Characters of the turns' text. */
  chars: number;
}

/** 1000 turns or 2 000 000 characters (Hindsight's cap; Honcho's is 2000 messages). */
export const DEFAULT_HELD_LIMITS: HeldLimits = { turns: 1_000, chars: 2_000_000 };

export class HeldTurns {
  /** Undelivered turns by key (outbox id, or a memory-only key), oldest first, with their size. */
  private readonly held = new Map<string, number>();
  private chars = 0;
  /** What the cap dropped: counted, one warning per outage, a line when an ingest goes through again. */
  readonly losses: HeldLosses;

  constructor(
    private readonly limits: HeldLimits,
    logger: () => Logger,
  ) {
    this.losses = new HeldLosses({
      name: 'Supermemory',
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

  /** Turns held undelivered. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Hold a turn of `chars` characters under `key`; the keys of the oldest turns the cap dropped to
   * make room (possibly this one, if it alone is over the character limit). O(1) within the cap.
   * With `cap: false` (Supermemory answering) nothing is dropped: a healthy session's buffer is its
   * conversation, ingested whole at its end; the cap bounds what an outage piles up.
   */
  add(key: string, chars: number, { cap = true }: { cap?: boolean } = {}): string[] {
    this.release([key]);
    this.held.set(key, chars);
    this.chars += chars;
    const dropped: string[] = [];
    if (!cap) return dropped;
    for (const [oldest, size] of this.held) {
      if (this.held.size <= this.limits.turns && this.chars <= this.limits.chars) break;
      this.held.delete(oldest);
      this.chars -= size;
      dropped.push(oldest);
    }
    this.losses.dropped(dropped.length);
    return dropped;
  }

  /** Delivered (or not worth sending): no longer held. */
  release(keys: Iterable<string>): void {
    for (const key of keys) {
      const size = this.held.get(key);
      if (size === undefined) continue;
      this.held.delete(key);
      this.chars -= size;
    }
  }

  /** An ingest went through: the outage (if any) is over; say what it cost. */
  delivered(): void {
    this.losses.delivered();
  }
}
