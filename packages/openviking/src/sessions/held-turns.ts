/**
 * Turns held while the OpenViking breaker is open (decision 0982): each keeps the session it was
 * written in and its place (a sequence number), so delivery after the breaker closes posts every
 * session's messages in order, oldest first. What an outage can hold is bounded: the newest
 * messages within `HeldLimits` are kept, the oldest beyond are dropped (counted, one warning per
 * outage), as honcho does (decision 0925).
 */
import { HeldLosses, type Logger } from '@hermes-memory/core';
import type { VikingMessage } from '../client';

/** The most held while the breaker is open: the newest messages within both limits are kept. */
export interface HeldLimits {
  messages: number;
  /** Characters of the messages' JSON. */
  chars: number;
}

/** 2000 messages or 2 000 000 characters (a few MB), honcho's cap. */
export const DEFAULT_HELD_LIMITS: HeldLimits = { messages: 2_000, chars: 2_000_000 };

/** One turn waiting to be posted: its session, its place, its messages (and the plain fallback). */
export interface HeldTurn {
  seq: number;
  sessionId: string;
  messages: VikingMessage[];
  /** The two-message plain form, sent if the server refuses the structured one ([] once partly sent). */
  plain: VikingMessage[];
  /** Its entry in the outbox (crossed off once the whole turn reached the server). */
  outboxId?: string | undefined;
  /** Sent again in this run after it failed (a second failure is not counted again). */
  again?: boolean | undefined;
  /** Not taken when written (the server was down): not yet in its session's turn count. */
  uncounted?: boolean | undefined;
}

export class HeldTurns {
  /** Oldest first (by `seq`). */
  private turns: HeldTurn[] = [];
  /** Messages and characters held (kept as turns come and go, so capping is no walk). */
  private count = 0;
  private chars = 0;
  /** What the cap dropped: counted, one warning per outage, a line when a post goes through again. */
  readonly losses: HeldLosses;

  constructor(
    private readonly limits: HeldLimits,
    logger: Logger,
    /** A turn the cap dropped whole (its outbox entry is then crossed off: dropped on purpose). */
    private readonly onDropped?: (turn: HeldTurn) => void,
  ) {
    this.losses = new HeldLosses({
      name: 'OpenViking',
      unit: 'message',
      max: limits.messages,
      maxChars: limits.chars,
      logger: () => logger,
    });
  }

  /** Messages dropped over the cap since the provider started. */
  get dropped(): number {
    return this.losses.total;
  }

  get size(): number {
    return this.turns.length;
  }

  /** Messages held. */
  get messages(): number {
    return this.count;
  }

  has(sessionId: string): boolean {
    return this.turns.some((turn) => turn.sessionId === sessionId);
  }

  /** Keep `turn` in its place (a refused post comes back before turns held after it), then cap. */
  hold(turn: HeldTurn): void {
    if (turn.messages.length === 0) return;
    let at = this.turns.length;
    while (at > 0 && this.turns[at - 1]!.seq > turn.seq) at--;
    this.turns.splice(at, 0, turn);
    this.count += turn.messages.length;
    this.chars += charsOf(turn.messages);
    this.cap();
  }

  /** The oldest held turn, taken out. */
  shift(): HeldTurn | undefined {
    const turn = this.turns.shift();
    if (turn) {
      this.count -= turn.messages.length;
      this.chars -= charsOf(turn.messages);
    }
    return turn;
  }

  /** A post went through: the outage (if any) is over; say what it cost. */
  delivered(): void {
    this.losses.delivered();
  }

  /** Drop the oldest held messages beyond the cap; warn at the first drop of an outage. */
  private cap(): void {
    let drop = 0;
    while (this.count > this.limits.messages || this.chars > this.limits.chars) {
      const oldest = this.turns[0]!;
      const message = oldest.messages.shift()!;
      oldest.plain = [];
      this.count -= 1;
      this.chars -= charsOf([message]);
      drop += 1;
      if (oldest.messages.length === 0) {
        this.turns.shift();
        this.onDropped?.(oldest);
      }
    }
    this.losses.dropped(drop);
  }
}

/** The size a message counts for: its JSON (text, tool input and output alike). */
const sizes = new WeakMap<VikingMessage, number>();
function charsOf(messages: readonly VikingMessage[]): number {
  let n = 0;
  for (const message of messages) {
    let size = sizes.get(message);
    if (size === undefined) {
      size = JSON.stringify(message).length;
      sizes.set(message, size);
    }
    n += size;
  }
  return n;
}
