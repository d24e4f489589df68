import {
  APICallError,
  type CircuitBreaker,
  CircuitOpenError,
  type Clock,
  describeError,
  isRetryableStatus,
  type Logger,
  type Outbox,
  type UndeliveredWrites,
  withDeadline,
} from '@hermes-memory/core';
import type { OpenvikingClient, VikingMessage } from '../client';
import type { Connection } from '../connection';
import type { StoredTurn } from './outbox';
import { DEFAULT_HELD_LIMITS, type HeldLimits, type HeldTurn, HeldTurns } from './held-turns';
import { removeMarker, writeMarker } from './markers';
import type { RunLock } from './run-lock';

/** A batch holds at most this many messages (the server's limit). */
export const BATCH_SIZE = 100;
/** `onSessionEnd` waits this long for the session's writers before it gives up the commit. */
export const END_DRAIN_MS = 10_000;
/** The background finaliser of a switched-away session waits this long for its writers. */
export const FINALIZE_DRAIN_MS = 65_000;

export interface SessionSyncOptions {
  connection: Connection;
  hermesHome: string;
  runLock: RunLock;
  clock: Clock;
  logger: Logger;
  /** The provider's breaker: while it is open turns are held and commits wait (decision 0982). */
  breaker?: CircuitBreaker;
  /** The cap on what an outage holds (default 2000 messages, 2 000 000 characters). */
  heldLimits?: HeldLimits;
  /** Where turns that were neither stored nor held are counted (the provider's ledger). */
  undelivered?: UndeliveredWrites;
  /** Journals every taken turn until it reached the server (decision 0115). */
  outbox?: Outbox<StoredTurn> | undefined;
}

export interface SwitchOptions {
  rewound?: boolean;
  reason?: string;
}

/**
 * OpenViking sessions, the way the reference keeps them: every turn is posted to the session it
 * belonged to when `syncTurn` was called (a tracked writer per session id), and a session is
 * committed — the server then extracts memories — at its end or when the agent switches away,
 * only after its writers drained (a hung writer leaves it uncommitted, "dirty", rather than
 * committing half a turn). A commit happens when turns were written or the server reports
 * pending tokens, and once per session (a latch), except after in-place compression. Sessions with
 * turns carry a pending marker until committed, so a crash leaves a trace the next run commits.
 *
 * While the provider's breaker is open turns are held (each in its session and place, capped) and
 * commits are deferred; `resume` — the breaker closed — posts the held turns oldest first, then
 * commits the deferred sessions, so no session is committed before its turns arrived.
 */
export class SessionSync {
  sessionId = '';
  private readonly options: SessionSyncOptions;
  private readonly turns = new Map<string, number>();
  private readonly committed = new Set<string>();
  private readonly writers = new Map<string, Set<Promise<void>>>();
  private readonly finalizers = new Map<string, Promise<void>>();
  private readonly marked = new Set<string>();
  private closing = false;
  /** Turns waiting for the breaker to close, and the sessions whose commit waits for them. */
  readonly held: HeldTurns;
  private readonly deferred = new Set<string>();
  /** Every turn's place, so held and refused turns go out in the order they were written. */
  private seq = 0;
  /** Held turns going out (`resume`). */
  private delivering: Promise<void> | null = null;
  /**
   * Journaled turns that failed outright or were not taken (server down), by outbox id: held
   * again, in their places, once the server answers in this run (a turn stored, the breaker
   * closing, a reconnect), so a long-running agent does not wait for its restart. At most the
   * held cap's message count are kept here; the rest wait on disk for the next start.
   */
  private readonly failed = new Map<string, HeldTurn>();
  /** Work of the session sync this one replaced (a re-initialize) that held turns wait for. */
  private before: Promise<unknown> | undefined;

  constructor(options: SessionSyncOptions) {
    this.options = options;
    // What the cap drops is dropped on purpose (counted, told): it leaves the outbox too, so the
    // journal stays as bounded as the memory and a later start does not re-hold it.
    this.held = new HeldTurns(options.heldLimits ?? DEFAULT_HELD_LIMITS, options.logger, (turn) => {
      if (turn.outboxId !== undefined) options.outbox?.ack([turn.outboxId]);
    });
  }

  /** Writers, finalisers and a delivery of held turns still running (the conformance harness waits for them). */
  get pending(): number {
    let n = this.finalizers.size + (this.delivering ? 1 : 0);
    for (const set of this.writers.values()) n += set.size;
    return n;
  }

  turnCount(sessionId = this.sessionId): number {
    return this.turns.get(sessionId) ?? 0;
  }

  isCommitted(sessionId = this.sessionId): boolean {
    return this.committed.has(sessionId);
  }

  /** Post one turn in the background; false when it was not taken (no server, no session, closing). */
  syncTurn(messages: readonly VikingMessage[], plain: readonly VikingMessage[]): boolean {
    const { connection } = this.options;
    const sessionId = this.sessionId;
    if (this.closing || sessionId.trim() === '' || messages.length === 0) return false;
    const outboxId = this.journal({ sessionId, messages: [...messages], plain: [...plain] });
    // A server known to be down takes nothing now (the outbox keeps it for the next start); one
    // still being probed (the first turns after start) gets the turn once the probe answers.
    if (!connection.current() && !connection.pendingProbe) {
      this.options.undelivered?.lost(1, 'turn not taken: the OpenViking server is not connected');
      this.failedOnce({
        seq: ++this.seq,
        sessionId,
        messages: [...messages],
        plain: [...plain],
        outboxId,
        uncounted: true,
      });
      return false;
    }
    this.turns.set(sessionId, this.turnCount(sessionId) + 1);
    const turn: HeldTurn = {
      seq: ++this.seq,
      sessionId,
      messages: [...messages],
      plain: [...plain],
      outboxId,
    };
    // While the breaker is open, or held turns are still to go out, the turn waits its place.
    if (this.breakerOpen || this.held.size > 0 || this.delivering) {
      this.held.hold(turn);
      // Half-open with nothing under way: the held turns themselves are the trial.
      if (!this.breakerOpen) this.resume();
      return true;
    }
    this.track(sessionId, this.upload(turn), turn);
    return true;
  }

  private journal(turn: StoredTurn): string | undefined {
    const outbox = this.options.outbox;
    if (!outbox) return undefined;
    try {
      return outbox.add([turn])[0]?.id;
    } catch {
      return undefined;
    }
  }

  /**
   * Turns an earlier run left in the outbox go first: held in their order, each to its own
   * session, which is committed once they are out. Sent when the server is connected (`resume`).
   */
  replay(entries: ReadonlyArray<{ id: string; data: StoredTurn }>): void {
    for (const { id, data } of entries) {
      this.held.hold({ seq: ++this.seq, ...data, outboxId: id });
      this.deferred.add(data.sessionId);
    }
  }

  /**
   * The breaker closed: post the held turns, oldest first, each to its own session, then commit
   * the sessions whose commit waited (a switched-away or ended session). Refused again, the rest
   * waits for the next close.
   */
  resume(): void {
    if (this.closing) return;
    // What failed earlier in this run goes out too, each in its place (oldest first).
    for (const turn of this.failed.values()) this.held.hold({ ...turn, again: true });
    this.failed.clear();
    if (this.delivering || (this.held.size === 0 && this.deferred.size === 0)) return;
    this.delivering = this.deliver()
      .catch((error) =>
        this.options.logger.warn(`OpenViking: delivering held turns failed: ${describeError(error)}`),
      )
      .finally(() => {
        this.delivering = null;
        // A turn held after the last one went out (while this settled) is not left behind.
        if (!this.breakerOpen && this.held.size > 0) this.resume();
      });
  }

  /**
   * Initialized again: the replaced sync's posts still running may carry turns this one replays
   * from the taken-over journal. Held turns go out after they ended (bounded by `work`), and one
   * they delivered meanwhile — crossed off the outbox — is not posted again.
   */
  after(work: Promise<unknown>): void {
    this.before = work.catch(() => undefined);
  }

  private async deliver(): Promise<void> {
    // Only after a re-initialize: otherwise the held turns are shifted on this turn of the loop.
    if (this.before) await this.before;
    const { outbox } = this.options;
    for (let turn = this.held.shift(); turn; turn = this.held.shift()) {
      // Crossed off meanwhile: posted by an upload from before a re-initialize (its ack passed to
      // this outbox), so not posted twice.
      if (outbox && turn.outboxId !== undefined && !outbox.has(turn.outboxId)) continue;
      await this.track(turn.sessionId, this.upload(turn), turn);
      if (this.breakerOpen) return;
    }
    const deferred = [...this.deferred];
    this.deferred.clear();
    for (const sessionId of deferred) this.finalize(sessionId);
  }

  private get breakerOpen(): boolean {
    return this.options.breaker?.state === 'open';
  }

  /** The session ends: drain its writers (≤10 s), then commit it if needed. */
  async endSession(signal?: AbortSignal): Promise<boolean> {
    const sessionId = this.sessionId;
    if (sessionId.trim() === '') return false;
    if (!(await this.drain(sessionId, END_DRAIN_MS, signal))) {
      this.options.logger.warn(
        `OpenViking: a turn of session ${sessionId} is still being written; not committing it now (it stays pending).`,
      );
      return false;
    }
    return this.commitIfNeeded(sessionId, signal);
  }

  /**
   * Rotate to `newId` at once and finalise the old session in the background (drain ≤65 s, then
   * commit). A rewind to the same id only resets nothing here (the provider drops its prefetch);
   * compression resets the turn count, and in place (same id) re-arms the commit.
   */
  switchSession(newId: string, options: SwitchOptions = {}): void {
    if (newId.trim() === '') return;
    const old = this.sessionId;
    const same = newId === old;
    if (same && options.rewound) return;
    this.sessionId = newId;
    if (options.reason === 'compression') {
      this.turns.set(newId, 0);
      if (same) this.committed.delete(newId);
    }
    if (!same && old.trim() !== '') this.finalize(old);
  }

  /** Finalise `sessionId` off the caller's path, once per id at a time. */
  finalize(sessionId: string): void {
    if (this.closing || this.finalizers.has(sessionId)) return;
    const run = (async () => {
      if (!(await this.drain(sessionId, FINALIZE_DRAIN_MS))) {
        this.options.logger.warn(
          `OpenViking: session ${sessionId} still has a writer after ${FINALIZE_DRAIN_MS / 1000} s; not committed (it stays pending).`,
        );
        return;
      }
      await this.commitIfNeeded(sessionId);
    })()
      .catch((error) =>
        this.options.logger.warn(`OpenViking: finalising ${sessionId} failed: ${describeError(error)}`),
      )
      .finally(() => this.finalizers.delete(sessionId));
    this.finalizers.set(sessionId, run);
  }

  /**
   * Shutdown: refuse new work, finish the current session as `onSessionEnd` would (the
   * reference's exit hook), and wait for writers and finalisers — all within `timeoutMs`.
   */
  async close(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (this.closing) return true;
    const { clock } = this.options;
    const deadline = clock.now() + timeoutMs;
    const left = () => Math.max(0, deadline - clock.now());
    const current = this.sessionId;
    let done = true;
    // Turns that failed earlier in this run get one more try while the server answers (their
    // sessions' commits wait for them): a one-task process has no later turn to send them with.
    if (this.failed.size > 0 && !this.breakerOpen && this.options.connection.current()) this.resume();
    const delivering = this.delivering;
    if (delivering) done = await this.withinBudget(() => delivering.then(() => true), left(), signal);
    if (current.trim() !== '' && (this.turnCount(current) > 0 || this.writers.get(current)?.size)) {
      if (await this.drain(current, left(), signal)) {
        done = (await this.withinBudget(() => this.commitIfNeeded(current, signal), left(), signal)) && done;
      } else done = false;
    }
    this.closing = true;
    if (this.held.size > 0) {
      // Their sessions keep their pending markers: the next start commits what the server has.
      this.options.logger.warn(
        `OpenViking: ${this.held.messages} held message(s) were not sent before shutdown (${this.options.breaker?.unavailableMessage() ?? 'the server is unavailable'}).`,
      );
      done = false;
    }
    const rest = [...this.finalizers.values(), ...[...this.writers.values()].flatMap((set) => [...set])];
    if (rest.length > 0)
      done =
        (await this.withinBudget(() => Promise.allSettled(rest).then(() => true), left(), signal)) && done;
    return done;
  }

  /** Wait for every writer and finaliser, at most `timeoutMs` (tests and `flush`). */
  async drainAll(timeoutMs: number): Promise<boolean> {
    const running = [
      ...(this.delivering ? [this.delivering] : []),
      ...this.finalizers.values(),
      ...[...this.writers.values()].flatMap((set) => [...set]),
    ];
    if (running.length === 0) return true;
    return this.withinBudget(() => Promise.allSettled(running).then(() => true), timeoutMs);
  }

  /** Wait until `sessionId` has no writer (new ones included), at most `timeoutMs`. */
  async drain(sessionId: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const { clock } = this.options;
    const deadline = clock.now() + timeoutMs;
    for (;;) {
      const running = this.writers.get(sessionId);
      if (!running || running.size === 0) return true;
      const left = deadline - clock.now();
      if (left <= 0 || signal?.aborted) return false;
      const settled = await this.withinBudget(
        () => Promise.allSettled([...running]).then(() => true),
        left,
        signal,
      );
      if (!settled) return false;
    }
  }

  /** Commit unless latched; needed when turns were written or the server holds pending tokens. */
  async commitIfNeeded(sessionId: string, signal?: AbortSignal): Promise<boolean> {
    if (this.committed.has(sessionId)) return true;
    // Not before its held turns arrived, nor before the turns that failed in this run were sent
    // again (a commit first would latch the session and leave them uncommitted until the next
    // start), and not into a breaker that refuses it: after `resume`, which sends them first.
    if (this.breakerOpen || this.held.has(sessionId) || this.hasFailed(sessionId)) {
      this.deferred.add(sessionId);
      return false;
    }
    const client = await this.options.connection.ensure(signal);
    if (!client) return false;
    const call = signal ? { signal } : {};
    let needed = this.turnCount(sessionId) > 0;
    if (!needed) {
      try {
        needed = Number((await client.getSession(sessionId, call)).pending_tokens ?? 0) > 0;
      } catch (error) {
        if (CircuitOpenError.isInstance(error)) return this.defer(sessionId);
        if (!isNotFound(error)) {
          this.options.logger.warn(
            `OpenViking: could not read session ${sessionId}: ${describeError(error)}`,
          );
          return false;
        }
      }
    }
    if (!needed) return true;
    try {
      await client.commit(sessionId, call);
    } catch (error) {
      if (CircuitOpenError.isInstance(error)) return this.defer(sessionId);
      if (!isNotFound(error)) {
        this.options.logger.warn(
          `OpenViking: committing session ${sessionId} failed (it stays pending): ${describeError(error)}`,
        );
        return false;
      }
    }
    this.committed.add(sessionId);
    this.turns.set(sessionId, 0);
    removeMarker(this.options.hermesHome, sessionId);
    this.marked.delete(sessionId);
    return true;
  }

  /** Refused by the breaker: committed after `resume`. */
  private defer(sessionId: string): false {
    this.deferred.add(sessionId);
    return false;
  }

  /**
   * A turn of `sessionId` failed and was not sent again yet. One that failed again when sent
   * again (a persistent 5xx) no longer holds the commit back: it stays on disk and is posted
   * later (in the run, and by the next start, whose replay commits its session again).
   */
  private hasFailed(sessionId: string): boolean {
    for (const turn of this.failed.values()) if (turn.sessionId === sessionId && !turn.again) return true;
    return false;
  }

  /** Kept for a redelivery in this run (bounded; past the bound it waits on disk). */
  private failedOnce(turn: HeldTurn): void {
    const max = (this.options.heldLimits ?? DEFAULT_HELD_LIMITS).messages;
    if (turn.outboxId === undefined || this.failed.size >= max) return;
    this.failed.set(turn.outboxId, turn);
  }

  private track(sessionId: string, work: Promise<void>, turn?: HeldTurn): Promise<void> {
    const set = this.writers.get(sessionId) ?? new Set<Promise<void>>();
    this.writers.set(sessionId, set);
    const tracked = work
      .catch((error) => {
        if (turn?.again && refusedForGood(error)) return this.dropRefused(turn, error);
        if (turn) this.failedOnce(turn);
        if (turn?.again) return;
        this.options.undelivered?.lost(1, `turn: ${describeError(error)}`);
        this.options.logger.warn(
          `OpenViking: writing a turn of ${sessionId} failed: ${describeError(error)}`,
        );
      })
      .finally(() => {
        set.delete(tracked);
        if (set.size === 0 && this.writers.get(sessionId) === set) this.writers.delete(sessionId);
      });
    set.add(tracked);
    return tracked;
  }

  /**
   * The writer: the marker first (only while this run holds its lock), then the batches. A
   * refused first batch falls back to the plain two-message text; a failure is retried once with
   * a fresh client from where it stopped; what still fails is posted one message at a time. What
   * the breaker refused is held, from the first message not sent, in the turn's place.
   */
  private async upload(turn: HeldTurn): Promise<void> {
    const { sessionId, messages, plain } = turn;
    await Promise.resolve(); // never on the caller's stack
    const client = this.options.connection.current() ?? (await this.options.connection.ensure());
    if (!client) throw new Error('the OpenViking server is not connected; the turn was not stored');
    if (this.options.runLock.isHeld && !this.marked.has(sessionId)) {
      try {
        writeMarker(this.options.hermesHome, sessionId, this.options.runLock.runId);
        this.marked.add(sessionId);
      } catch (error) {
        this.options.logger.warn(
          `OpenViking: could not write the pending marker of ${sessionId}: ${describeError(error)}`,
        );
      }
    }
    const progress = { sent: 0 };
    const refused = (error: unknown, from: number) => {
      if (!CircuitOpenError.isInstance(error)) return false;
      this.held.hold({ ...turn, messages: messages.slice(from), plain: from === 0 ? plain : [] });
      return true;
    };
    try {
      await sendBatches(client, sessionId, messages, plain, progress);
      this.stored(turn);
      return;
    } catch (error) {
      if (refused(error, progress.sent)) return;
      this.options.logger.debug?.(
        `OpenViking: turn upload to ${sessionId} failed, retrying: ${describeError(error)}`,
      );
    }
    const fresh = this.options.connection.fresh() ?? client;
    const retry = { sent: progress.sent };
    try {
      await sendBatches(fresh, sessionId, messages, [], retry);
      this.stored(turn);
      return;
    } catch (error) {
      if (refused(error, retry.sent)) return;
    }
    for (let at = retry.sent; at < messages.length; at++) {
      try {
        await fresh.addMessage(sessionId, messages[at]!);
      } catch (error) {
        if (refused(error, at)) return;
        throw error;
      }
    }
    this.stored(turn);
  }

  /**
   * The server refused a turn again when it was sent again (a 4xx that no retry changes): it
   * leaves the outbox instead of being tried after every later turn and at every start, and it
   * no longer holds its session's commit back. It was counted as undelivered when it first failed.
   */
  private dropRefused(turn: HeldTurn, error: unknown): void {
    if (turn.outboxId !== undefined) this.options.outbox?.ack([turn.outboxId]);
    this.options.logger.warn(
      `OpenViking: a turn of ${turn.sessionId} was refused again (${describeError(error)}); it is dropped, not retried.`,
    );
  }

  /** A turn went out whole: the outage (held or lost turns) is over; it leaves the outbox. */
  private stored(turn: HeldTurn): void {
    // A turn not taken when written was not counted then; now it is in its session, which needs a commit.
    if (turn.uncounted) this.turns.set(turn.sessionId, this.turnCount(turn.sessionId) + 1);
    this.held.delivered();
    this.options.undelivered?.delivered();
    // Sent again after it was counted as undelivered in this run: it leaves the count.
    if (turn.again) this.options.undelivered?.recovered(1);
    if (turn.outboxId !== undefined) this.options.outbox?.ack([turn.outboxId]);
    if (this.failed.size > 0 && !this.breakerOpen) this.resume();
  }

  /** Run `work`, giving up (false) after `ms` or on abort; work that outlives it is not awaited. */
  private async withinBudget(
    work: () => Promise<boolean>,
    ms: number,
    signal?: AbortSignal,
  ): Promise<boolean> {
    try {
      return await withDeadline(() => work(), {
        timeoutMs: ms,
        clock: this.options.clock,
        label: 'OpenViking session work',
        ...(signal ? { signal } : {}),
      });
    } catch {
      return false;
    }
  }
}

async function sendBatches(
  client: OpenvikingClient,
  sessionId: string,
  messages: readonly VikingMessage[],
  plain: readonly VikingMessage[],
  progress: { sent: number },
): Promise<void> {
  // From where an earlier attempt stopped (`progress.sent`).
  for (let at = progress.sent; at < messages.length; at += BATCH_SIZE) {
    const batch = messages.slice(at, at + BATCH_SIZE);
    try {
      await client.addMessages(sessionId, batch);
    } catch (error) {
      if (at > 0 || plain.length === 0 || isTransport(error)) throw error;
      // The server refused the structured form: the turn as plain text is better than nothing.
      await client.addMessages(sessionId, plain);
      progress.sent = messages.length;
      return;
    }
    progress.sent = at + batch.length;
  }
}

export function isNotFound(error: unknown): boolean {
  return APICallError.isInstance(error) && (error.statusCode === 404 || error.statusCode === 410);
}

/**
 * An answer no retry changes: a 4xx other than 408, 409 and 429, and other than 401 and 403 (a
 * key the user fixes; the next start delivers the turn). Not `!isRetryable`: a POST's 5xx is not
 * retryable as a request, yet the server may take the turn once it recovers.
 */
function refusedForGood(error: unknown): boolean {
  if (!APICallError.isInstance(error) || error.statusCode === undefined) return false;
  const status = error.statusCode;
  return status >= 400 && status < 500 && !isRetryableStatus(status) && status !== 401 && status !== 403;
}

/** No answer at all (refused, reset, timed out): the plain form would fail the same way. */
function isTransport(error: unknown): boolean {
  return !APICallError.isInstance(error) || error.statusCode === undefined;
}
