import { APICallError, type Clock, describeError, type Logger, withDeadline } from '@hermes-memory/core';
import type { OpenvikingClient, VikingMessage } from '../client';
import type { Connection } from '../connection';
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

  constructor(options: SessionSyncOptions) {
    this.options = options;
  }

  /** Writers and finalisers still running (the conformance harness waits for them). */
  get pending(): number {
    let n = this.finalizers.size;
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
    // A server known to be down takes nothing; one still being probed (the first turns after
    // start) gets the turn once the probe answers.
    if (!connection.current() && !connection.pendingProbe) return false;
    this.turns.set(sessionId, this.turnCount(sessionId) + 1);
    this.track(sessionId, this.upload(sessionId, messages, plain));
    return true;
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
    if (current.trim() !== '' && (this.turnCount(current) > 0 || this.writers.get(current)?.size)) {
      if (await this.drain(current, left(), signal)) {
        done = await this.withinBudget(() => this.commitIfNeeded(current, signal), left(), signal);
      } else done = false;
    }
    this.closing = true;
    const rest = [...this.finalizers.values(), ...[...this.writers.values()].flatMap((set) => [...set])];
    if (rest.length > 0)
      done =
        (await this.withinBudget(() => Promise.allSettled(rest).then(() => true), left(), signal)) && done;
    return done;
  }

  /** Wait for every writer and finaliser, at most `timeoutMs` (tests and `flush`). */
  async drainAll(timeoutMs: number): Promise<boolean> {
    const running = [...this.finalizers.values(), ...[...this.writers.values()].flatMap((set) => [...set])];
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
    const client = await this.options.connection.ensure(signal);
    if (!client) return false;
    const call = signal ? { signal } : {};
    let needed = this.turnCount(sessionId) > 0;
    if (!needed) {
      try {
        needed = Number((await client.getSession(sessionId, call)).pending_tokens ?? 0) > 0;
      } catch (error) {
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

  private track(sessionId: string, work: Promise<void>): void {
    const set = this.writers.get(sessionId) ?? new Set<Promise<void>>();
    this.writers.set(sessionId, set);
    const tracked = work
      .catch((error) =>
        this.options.logger.warn(
          `OpenViking: writing a turn of ${sessionId} failed: ${describeError(error)}`,
        ),
      )
      .finally(() => {
        set.delete(tracked);
        if (set.size === 0 && this.writers.get(sessionId) === set) this.writers.delete(sessionId);
      });
    set.add(tracked);
  }

  /**
   * The writer: the marker first (only while this run holds its lock), then the batches. A
   * refused first batch falls back to the plain two-message text; a failure is retried once with
   * a fresh client from where it stopped; what still fails is posted one message at a time.
   */
  private async upload(
    sessionId: string,
    messages: readonly VikingMessage[],
    plain: readonly VikingMessage[],
  ): Promise<void> {
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
    try {
      await sendBatches(client, sessionId, messages, plain, progress);
      return;
    } catch (error) {
      this.options.logger.debug?.(
        `OpenViking: turn upload to ${sessionId} failed, retrying: ${describeError(error)}`,
      );
    }
    const fresh = this.options.connection.fresh() ?? client;
    const rest = messages.slice(progress.sent);
    const retry = { sent: 0 };
    try {
      await sendBatches(fresh, sessionId, rest, [], retry);
      return;
    } catch {}
    for (const message of rest.slice(retry.sent)) await fresh.addMessage(sessionId, message);
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
  for (let at = 0; at < messages.length; at += BATCH_SIZE) {
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

/** No answer at all (refused, reset, timed out): the plain form would fail the same way. */
function isTransport(error: unknown): boolean {
  return !APICallError.isInstance(error) || error.statusCode === undefined;
}
