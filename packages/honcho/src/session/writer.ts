/**
 * Where a turn's messages wait until they reach Honcho, under the four write frequencies:
 * - `async`: each save queues a flush on a background writer; a failed flush is retried once
 *   after 2 s, then its batch is dropped (and counted);
 * - `turn`: each save flushes before it resolves;
 * - `session`: nothing is sent until `flushAll` (session end, shutdown);
 * - N: every Nth save flushes.
 * A flush sends only messages not yet sent, per session, in order; on error they stay unsent.
 * While the provider's circuit breaker is open nothing is sent: turns are held and a batch the
 * breaker refused goes back to the buffer (nothing reached the server). What is held is bounded
 * (`HeldLimits`): past the cap the oldest messages go, counted, with one warning per outage, so a
 * long outage cannot grow the process without end.
 * With an outbox (decision 0115) every buffered message is also journaled on disk in the
 * background and acknowledged once Honcho accepted it (or the cap or the async writer's give-up
 * dropped it), so what a shutdown, crash or kill -9 leaves unsent goes out from the next process.
 */
import {
  CircuitOpenError,
  type Clock,
  HeldLosses,
  type Logger,
  type Outbox,
  type OutboxEntry,
  SerialQueue,
  silentLogger,
  sleep,
  systemClock,
} from '@hermes-memory/core';
import type { WriteFrequency } from '../config/types';

export interface OutgoingMessage {
  sessionId: string;
  peerId: string;
  content: string;
  /** The session's user and AI peers, so a later process can open the session before replaying. */
  sessionPeers?: readonly [user: string, ai: string];
  /** Its outbox entry, once journaled (in memory only; not part of what is stored). */
  outboxId?: string;
}

/** What the outbox stores per message. */
export type StoredMessage = Omit<OutgoingMessage, 'outboxId'>;

export type SendBatch = (
  sessionId: string,
  messages: readonly OutgoingMessage[],
  signal: AbortSignal | undefined,
) => Promise<void>;

export interface MessageWriterOptions {
  frequency: WriteFrequency;
  send: SendBatch;
  /** Resolves when the session exists on the server (init done); rejects when it never will or `signal` aborts. */
  ready: (signal?: AbortSignal) => Promise<void>;
  clock?: Clock;
  logger?: Logger;
  /** The async writer's wait before its one retry (default 2000 ms). */
  retryDelayMs?: number;
  /** The cap on messages held while the breaker is open (default `DEFAULT_HELD_LIMITS`). */
  heldLimits?: HeldLimits;
  /** Where buffered messages are journaled until Honcho has them (absent: memory only). */
  outbox?: Outbox<StoredMessage>;
  /**
   * The writer this one replaced (a re-initialize), closed with `finishSending`: before sending,
   * this one waits for its request in flight and leaves out what that delivered (acknowledged in
   * the outbox), so a message both hold is not sent twice.
   */
  previous?: MessageWriter;
}

/** The most held while the breaker is open: the newest messages within both limits are kept. */
export interface HeldLimits {
  messages: number;
  chars: number;
}

/** 2000 messages or 2 000 000 characters (a few MB): a longer outage keeps its newest turns. */
export const DEFAULT_HELD_LIMITS: HeldLimits = { messages: 2_000, chars: 2_000_000 };

/** The async writer retries a failed flush once after this long. */
export const ASYNC_RETRY_DELAY_MS = 2_000;

export class MessageWriter {
  private unsent: OutgoingMessage[] = [];
  /** Characters in `unsent`, kept as it changes so holding a turn does not walk the buffer. */
  private unsentChars = 0;
  private saves = 0;
  private readonly queue: SerialQueue;
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** Aborted by `close()`: background sends stop waiting (for the session, for a retry). */
  private readonly lifetime = new AbortController();
  /** Aborted by `close()` unless it lets the request in flight finish (a re-initialize). */
  private readonly requests = new AbortController();
  /** Set by `close()`: no request starts any more. */
  private closed = false;
  /** The request in flight, if any (settled: never rejects). */
  private sending: Promise<void> | undefined;
  private previous: MessageWriter | undefined;
  /** Messages the async writer gave up on (after its retry). */
  dropped = 0;
  private readonly heldLimits: HeldLimits;
  /** What the cap dropped: counted, one warning per outage, a line when a send goes through again. */
  readonly heldLosses: HeldLosses;

  constructor(private readonly options: MessageWriterOptions) {
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.heldLimits = options.heldLimits ?? DEFAULT_HELD_LIMITS;
    this.heldLosses = new HeldLosses({
      name: 'Honcho',
      unit: 'message',
      max: this.heldLimits.messages,
      maxChars: this.heldLimits.chars,
      logger: () => this.logger,
    });
    this.queue = new SerialQueue({ name: 'honcho writer', logger: this.logger, clock: this.clock });
    this.previous = options.previous;
  }

  get frequency(): WriteFrequency {
    return this.options.frequency;
  }

  /** Messages not sent yet plus queued flushes. */
  get pending(): number {
    return this.unsent.length + this.queue.size + (this.queue.active ? 1 : 0);
  }

  /** Buffer `messages` and flush as the write frequency says. Resolves when that flush (if any) is done. */
  async save(messages: readonly OutgoingMessage[], signal?: AbortSignal): Promise<void> {
    if (messages.length === 0) return;
    this.append(messages);
    this.saves += 1;
    const frequency = this.options.frequency;
    if (frequency === 'session') return;
    if (frequency === 'async') {
      const batch = this.takeUnsent();
      this.queue.push(() => this.sendWithOneRetry(batch), 'flush');
      return;
    }
    if (frequency === 'turn' || this.saves % frequency === 0) await this.flush(signal);
  }

  /** Buffer `messages` without sending (the breaker is open): the first flush after it closes sends them. */
  hold(messages: readonly OutgoingMessage[]): void {
    this.append(messages);
    this.capHeld();
  }

  /**
   * Put what an earlier process left in the outbox in front of the buffer (already on disk, not
   * journaled again); the cap applies. `kick` or the next flush sends it.
   */
  replay(entries: readonly OutboxEntry<StoredMessage>[]): void {
    this.restore(entries.map((e) => ({ ...e.data, outboxId: e.id })));
    this.capHeld();
  }

  /** Send what is buffered in the background; a failure keeps it buffered (nothing is dropped). */
  kick(): void {
    if (this.unsent.length === 0) return;
    this.queue.push(
      () =>
        this.flush().catch((error: unknown) => {
          this.logger.warn(
            `Honcho: sending held messages failed, kept for the next flush: ${describe(error)}`,
          );
        }),
      'replay',
    );
  }

  /** Messages on disk not yet delivered (0 without an outbox). */
  get onDisk(): number {
    return this.options.outbox?.size ?? 0;
  }

  private append(messages: readonly OutgoingMessage[]): void {
    const journaled = this.journal(messages);
    this.unsent.push(...journaled);
    for (const m of journaled) this.unsentChars += m.content.length;
  }

  /** Journal `messages` (written in the background: the caller never waits on the disk). */
  private journal(messages: readonly OutgoingMessage[]): readonly OutgoingMessage[] {
    const outbox = this.options.outbox;
    if (!outbox) return messages;
    try {
      const entries = outbox.add(messages.map(({ outboxId: _, ...stored }) => stored));
      return messages.map((m, i) => ({ ...m, outboxId: entries[i]!.id }));
    } catch {
      return messages; // closed: memory only, as without an outbox
    }
  }

  /** Delivered or deliberately dropped: not replayed by a later process. */
  private settle(messages: readonly OutgoingMessage[]): void {
    const outbox = this.options.outbox;
    if (!outbox) return;
    const ids: string[] = [];
    for (const m of messages) if (m.outboxId !== undefined) ids.push(m.outboxId);
    outbox.ack(ids);
  }

  /** Put messages that did not go out back in front of the buffer, in order. */
  private restore(messages: readonly OutgoingMessage[]): void {
    this.unsent = [...messages, ...this.unsent];
    for (const m of messages) this.unsentChars += m.content.length;
  }

  /**
   * Drop the oldest held messages beyond the cap (what stays is the newest that fits both limits);
   * warn at the first drop of an outage. Within the cap it costs nothing; over it, the dropped only.
   */
  private capHeld(): void {
    const { messages: maxMessages, chars: maxChars } = this.heldLimits;
    let drop = 0;
    while (
      drop < this.unsent.length &&
      (this.unsent.length - drop > maxMessages || this.unsentChars > maxChars)
    ) {
      this.unsentChars -= this.unsent[drop]!.content.length;
      drop += 1;
    }
    if (drop === 0) return;
    this.settle(this.unsent.slice(0, drop));
    this.unsent = this.unsent.slice(drop);
    this.heldLosses.dropped(drop);
  }

  /** Held messages dropped (oldest first) because an outage outgrew the cap, since the writer began. */
  get heldDropped(): number {
    return this.heldLosses.total;
  }

  /** Send everything unsent (per session, in order) and wait for the async writer to drain, until `signal` aborts. */
  async flushAll(signal?: AbortSignal): Promise<void> {
    await this.flush(signal);
    if (this.queue.size === 0 && !this.queue.active) return;
    if (!signal) {
      await this.queue.drain();
      return;
    }
    signal.throwIfAborted();
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.drain().then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, reject);
    });
  }

  /** Wait for queued flushes, at most `timeoutMs`. */
  drain(timeoutMs?: number): Promise<boolean> {
    return this.queue.drain(timeoutMs);
  }

  /**
   * Stop; resolves to how many messages stay on disk for the next process (0 without an outbox).
   * With `finishSending` (a re-initialize) the request in flight is not aborted: it ends by its
   * own deadline and its acknowledgement reaches the outbox that took over; no other starts.
   */
  async close(options: { finishSending?: boolean } = {}): Promise<number> {
    this.closed = true;
    const reason = new Error('Honcho writer closed');
    this.lifetime.abort(reason);
    if (!options.finishSending) {
      this.requests.abort(reason);
      for (let w = this.previous; w; w = w.previous) w.requests.abort(reason);
    }
    this.queue.close();
    return (await this.options.outbox?.close()) ?? 0;
  }

  private takeUnsent(): OutgoingMessage[] {
    const batch = this.unsent;
    this.unsent = [];
    this.unsentChars = 0;
    return batch;
  }

  /** A synchronous flush: failed messages go back to the front of the buffer, unsent. */
  private async flush(signal?: AbortSignal): Promise<void> {
    const batch = this.takeUnsent();
    if (batch.length === 0) return;
    const sent = new Set<OutgoingMessage>();
    try {
      await this.sendAll(batch, sent, signal);
    } catch (error) {
      this.restore(batch.filter((m) => !sent.has(m)));
      throw error;
    }
  }

  /** Send per session in order; `sent` collects what the server accepted (a failure keeps the rest). */
  private async sendAll(
    all: readonly OutgoingMessage[],
    sent: Set<OutgoingMessage>,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.options.ready(signal ?? this.lifetime.signal);
    await this.previousSettled();
    const outbox = this.options.outbox;
    const batch: OutgoingMessage[] = [];
    for (const m of all) {
      // Acknowledged meanwhile (delivered by the replaced writer): done, not sent again.
      if (outbox && m.outboxId !== undefined && !outbox.has(m.outboxId)) sent.add(m);
      else batch.push(m);
    }
    const bySession = new Map<string, OutgoingMessage[]>();
    for (const m of batch) {
      const list = bySession.get(m.sessionId) ?? [];
      list.push(m);
      bySession.set(m.sessionId, list);
    }
    for (const [sessionId, list] of bySession) {
      // Honcho takes at most 100 messages per request.
      for (let i = 0; i < list.length; i += 100) {
        const part = list.slice(i, i + 100);
        if (this.closed) throw new Error('Honcho writer closed');
        const request = this.options.send(sessionId, part, signal ?? this.requests.signal);
        const settled = request.then(
          () => undefined,
          () => undefined,
        );
        this.sending = settled;
        try {
          await request;
        } finally {
          if (this.sending === settled) this.sending = undefined;
        }
        this.settle(part);
        this.heldLosses.delivered();
        for (const m of part) sent.add(m);
      }
    }
  }

  /**
   * Wait for the requests in flight of the writers this one replaced (what they send may be in
   * this batch too: their outbox handed it over); forget them once none is (closed, they start none).
   */
  private async previousSettled(): Promise<void> {
    while (this.previous) {
      const inFlight: Promise<void>[] = [];
      for (let w: MessageWriter | undefined = this.previous; w; w = w.previous)
        if (w.sending) inFlight.push(w.sending);
      if (inFlight.length === 0) this.previous = undefined;
      else await Promise.all(inFlight);
    }
  }

  private async sendWithOneRetry(batch: OutgoingMessage[]): Promise<void> {
    let remaining = batch;
    for (let attempt = 0; attempt < 2; attempt++) {
      const sent = new Set<OutgoingMessage>();
      try {
        await this.sendAll(remaining, sent);
        return;
      } catch (error) {
        remaining = remaining.filter((m) => !sent.has(m));
        if (CircuitOpenError.isInstance(error)) {
          // Refused before it went out: kept, in order, for the first flush after the breaker closes.
          this.restore(remaining);
          this.capHeld();
          return;
        }
        if (attempt === 0) {
          this.logger.warn(`Honcho: message flush failed (${describe(error)}); retrying once.`);
          await sleep(this.options.retryDelayMs ?? ASYNC_RETRY_DELAY_MS, {
            clock: this.clock,
            signal: this.lifetime.signal,
          });
        } else {
          this.dropped += remaining.length;
          this.settle(remaining);
          this.logger.warn(
            `Honcho: message flush failed again (${describe(error)}); ${remaining.length} message(s) dropped.`,
          );
        }
      }
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
