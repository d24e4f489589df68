import { createHash, randomUUID } from 'node:crypto';
import {
  type Clock,
  type ClockTimer,
  type Logger,
  describeError,
  silentLogger,
  systemClock,
} from '@hermes-memory/core';
import type Database from 'better-sqlite3';
import type { RetaindbMessage } from '../client';
import {
  type QueueDatabase,
  type WriterIdentity,
  openQueueDatabase,
  ownerIsDead,
  writerIdentity,
} from './queue-db';
import { WriterLease } from './writer-lease';

/** One queued turn. */
export interface QueueRow {
  id: number;
  userId: string;
  sessionId: string;
  messages: RetaindbMessage[];
  createdAt: string;
  lastError: string | null;
  idempotencyKey: string;
  attempts: number;
}

/** Sends one row; resolves when the service stored it. */
export type QueueSender = (row: QueueRow, signal: AbortSignal) => Promise<void>;

/** How a failed send is classified: retry later, or never going to work as is. */
export interface FailurePolicy {
  permanent(error: unknown): boolean;
  /** A delay the server asked for (Retry-After), in ms. */
  retryAfterMs(error: unknown): number | undefined;
}

export interface DurableQueueOptions {
  clock?: Clock;
  logger?: Logger;
  /** Lease of a row claim and of the writer lock. Default 60 000 ms. */
  leaseMs?: number;
  /** First delay after a failure (doubled per attempt of the row). Default 2 000 ms. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Rows read per batch, oldest first (the reference replays 200 at start). Default 200. */
  batchSize?: number;
  /** How often an idle writer looks for rows other processes queued. Default 1 000 ms. */
  pollMs?: number;
  failures?: FailurePolicy;
}

export interface QueueStats {
  sent: number;
  failures: number;
  /** Rows this writer took over from a writer that died or whose claim lapsed. */
  recovered: number;
}

interface RawRow {
  id: number;
  user_id: string | null;
  session_id: string | null;
  messages_json: string | null;
  created_at: string | null;
  last_error: string | null;
  claimed_at: number | null;
  claimed_by: string | null;
  idempotency_key: string | null;
  attempts: number | null;
  next_attempt_at: number | null;
}

const NEVER_PERMANENT: FailurePolicy = { permanent: () => false, retryAfterMs: () => undefined };

/**
 * The durable write-behind queue: `enqueue` commits the turn to SQLite (WAL, synchronous=FULL)
 * before it returns, and a background writer drains the table to the service.
 *
 * Exactly once, as far as this side can make it (decision 0960):
 * - a row is claimed (`claimed_at`, `claimed_by`) before it is sent and deleted only after the
 *   service answered; a claim is another writer's until its lease lapses or its process is gone;
 * - one writer per database across processes (`writer_lease`): others only enqueue;
 * - every attempt of a row carries the row's idempotency key, so a row resent after a crash
 *   between "the service stored it" and "we deleted it" is stored once by a service that
 *   de-duplicates by key (the fake does; see the decision for the real API).
 *
 * Failures leave the row with `last_error`, count an attempt and back off (2 s, doubling, capped;
 * Retry-After wins); a permanent failure (a 4xx the service will always give) parks the row for
 * the longest backoff without holding the rows behind it. Nothing is dropped: what is not sent by
 * shutdown is sent by the next start.
 */
export class DurableQueue {
  readonly file: string;
  readonly stats: QueueStats = { sent: 0, failures: 0, recovered: 0 };
  private readonly db: QueueDatabase;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly leaseMs: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly batchSize: number;
  private readonly pollMs: number;
  private readonly failures: FailurePolicy;
  private readonly me: WriterIdentity;
  private readonly lease: WriterLease;
  private readonly insert: Database.Statement<unknown[]>;
  private sender: QueueSender | null = null;
  private closed = false;
  private stopped = false;
  private running: Promise<void> | null = null;
  private readonly stop = new AbortController();
  private wakeUp: (() => void) | null = null;
  private inFlight = 0;
  /** Until this writer first holds the lease: then rows a previous run left are replayed at once. */
  private replayed = false;
  private readonly settledListeners = new Set<() => void>();

  constructor(file: string, options: DurableQueueOptions = {}) {
    this.file = file;
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? silentLogger;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.backoffMs = options.backoffMs ?? 2000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.batchSize = options.batchSize ?? 200;
    this.pollMs = options.pollMs ?? 1000;
    this.failures = options.failures ?? NEVER_PERMANENT;
    this.db = openQueueDatabase(file);
    this.me = writerIdentity(randomUUID().slice(0, 8));
    this.lease = new WriterLease(this.db, this.me, this.leaseMs, this.clock);
    this.insert = this.db.prepare(
      `INSERT INTO pending (user_id, session_id, messages_json, created_at, idempotency_key, attempts)
       VALUES (?, ?, ?, ?, ?, 0)`,
    );
  }

  /** This writer's identity (`host:pid:nonce`). */
  get owner(): string {
    return this.me.owner;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Commit one turn; when this returns the row is on disk. Returns the row id, or null after
   * shutdown (an enqueue after shutdown is ignored, as in the reference).
   */
  enqueue(userId: string, sessionId: string, messages: readonly RetaindbMessage[]): number | null {
    if (this.closed) return null;
    const result = this.insert.run(
      userId,
      sessionId,
      JSON.stringify(messages),
      new Date(this.clock.now()).toISOString(),
      `rdb-${randomUUID()}`,
    );
    this.wake();
    return Number(result.lastInsertRowid);
  }

  /** Who sends the rows (the provider's client). The writer waits while there is none. */
  setSender(sender: QueueSender | null): void {
    this.sender = sender;
    if (sender) this.wake();
  }

  /** Start the background writer (idempotent). */
  start(): void {
    if (this.running || this.stopped) return;
    this.running = this.run().catch((error: unknown) => {
      this.logger.error(`RetainDB writer stopped: ${describeError(error)}`);
    });
  }

  /** Rows still in the table (queued, in flight or backing off). */
  pendingCount(): number {
    if (!this.db.open) return 0;
    return (this.db.prepare('SELECT COUNT(*) AS n FROM pending').get() as { n: number }).n;
  }

  /** Resolve true once no row is left or in flight, false at `timeoutMs` or when `signal` aborts. */
  async drain(timeoutMs = Number.POSITIVE_INFINITY, signal?: AbortSignal): Promise<boolean> {
    const deadline = this.clock.now() + timeoutMs;
    while (this.pendingCount() > 0 || this.inFlight > 0) {
      if (signal?.aborted || this.clock.now() >= deadline || this.stopped) return false;
      await new Promise<void>((resolve) => {
        let timer: ClockTimer | null = null;
        const done = () => {
          this.settledListeners.delete(done);
          signal?.removeEventListener('abort', done);
          if (timer) this.clock.clearTimeout(timer);
          resolve();
        };
        this.settledListeners.add(done);
        signal?.addEventListener('abort', done, { once: true });
        if (Number.isFinite(deadline))
          timer = this.clock.setTimeout(done, Math.max(0, deadline - this.clock.now()));
      });
    }
    return true;
  }

  /**
   * Refuse new turns, send what is queued within `timeoutMs`, then stop: a send still running is
   * aborted and its row released for the next start (never lost, never marked sent). Safe twice.
   */
  async shutdown(options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<{ left: number }> {
    if (this.stopped) return { left: 0 };
    this.closed = true;
    if (this.running && this.sender && this.lease.held())
      await this.drain(options.timeoutMs ?? 10_000, options.signal);
    this.stopped = true;
    this.stop.abort(new Error('RetainDB queue shut down.'));
    this.wake();
    await this.running;
    const left = this.pendingCount();
    try {
      this.db
        .prepare('UPDATE pending SET claimed_at = NULL, claimed_by = NULL WHERE claimed_by = ?')
        .run(this.me.owner);
      this.lease.release();
    } finally {
      this.db.close();
    }
    this.notifySettled();
    return { left };
  }

  // --- the writer -------------------------------------------------------------------------------

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.step();
      } catch (error) {
        // A busy or failing database must not end the writer: log, wait, go on.
        this.logger.warn(`RetainDB writer: ${describeError(error)}; retrying in ${this.pollMs} ms`);
        await this.wait(this.pollMs, false);
      }
    }
  }

  /** One pass: hold the lease, read a batch, send it (or wait for work). */
  private async step(): Promise<void> {
    const sender = this.sender;
    if (!sender || !this.lease.ensure()) {
      this.notifySettled();
      await this.wait(sender ? Math.min(this.leaseMs / 2, 5000) : this.pollMs, true);
      return;
    }
    if (!this.replayed) {
      // A new writer replays what is left (a crash, an exit, another process's rows) now and
      // oldest first, whatever backoff the previous writer had them waiting out.
      this.db.prepare('UPDATE pending SET next_attempt_at = NULL WHERE next_attempt_at IS NOT NULL').run();
      this.replayed = true;
    }
    const batch = this.loadBatch();
    if (batch.length === 0) {
      this.notifySettled();
      await this.wait(this.nextDueIn() ?? this.pollMs, true);
      return;
    }
    for (const raw of batch) {
      if (this.stopped || this.sender !== sender) break;
      if (!this.lease.ensure()) break;
      const row = this.claim(raw);
      if (!row) continue;
      const backoff = await this.send(sender, row);
      if (backoff !== null) {
        await this.wait(backoff, false);
        break;
      }
    }
  }

  /** Oldest rows first that are due and not held by a live claim. */
  private loadBatch(): RawRow[] {
    const now = this.clock.now() / 1000;
    const rows = this.db
      .prepare(
        `SELECT * FROM pending WHERE next_attempt_at IS NULL OR next_attempt_at <= ? ORDER BY id ASC LIMIT ?`,
      )
      .all(now, this.batchSize) as RawRow[];
    return rows.filter((row) => this.claimable(row, now));
  }

  private claimable(row: RawRow, now: number): boolean {
    if (row.claimed_at === null || row.claimed_by === this.me.owner) return true;
    return row.claimed_at < now - this.leaseMs / 1000 || ownerIsDead(row.claimed_by);
  }

  /** Compare-and-set on the claim we read: only one writer wins a row. */
  private claim(raw: RawRow): QueueRow | null {
    const key = raw.idempotency_key ?? legacyKey(raw);
    const changed = this.db
      .prepare(
        `UPDATE pending SET claimed_at = ?, claimed_by = ?, idempotency_key = COALESCE(idempotency_key, ?)
         WHERE id = ? AND claimed_at IS ? AND claimed_by IS ?`,
      )
      .run(this.clock.now() / 1000, this.me.owner, key, raw.id, raw.claimed_at, raw.claimed_by).changes;
    if (changed !== 1) return null;
    if (raw.claimed_at !== null && raw.claimed_by !== this.me.owner) this.stats.recovered++;
    let messages: RetaindbMessage[] = [];
    try {
      const parsed = JSON.parse(raw.messages_json ?? '[]') as unknown;
      if (Array.isArray(parsed)) messages = parsed as RetaindbMessage[];
    } catch {
      // A torn or foreign row: sent as empty would lose nothing we can read; park it instead.
      this.park(raw.id, 'messages_json is not valid JSON', this.maxBackoffMs);
      return null;
    }
    return {
      id: raw.id,
      userId: raw.user_id ?? 'default',
      sessionId: raw.session_id ?? '',
      messages,
      createdAt: raw.created_at ?? '',
      lastError: raw.last_error,
      idempotencyKey: key,
      attempts: raw.attempts ?? 0,
    };
  }

  /** Send one row: null on success, else how long to back off before the next. */
  private async send(sender: QueueSender, row: QueueRow): Promise<number | null> {
    this.inFlight++;
    try {
      await sender(row, this.stop.signal);
      this.db.prepare('DELETE FROM pending WHERE id = ? AND claimed_by = ?').run(row.id, this.me.owner);
      this.stats.sent++;
      return null;
    } catch (error) {
      if (this.stopped) return 0; // interrupted by shutdown: released for the next start, not a failure
      this.stats.failures++;
      const message = describeError(error);
      const attempts = row.attempts + 1;
      if (this.failures.permanent(error)) {
        this.logger.warn(
          `RetainDB ingest of queued turn ${row.id} refused (kept, retried later): ${message}`,
        );
        this.park(row.id, message, this.maxBackoffMs, attempts);
        return null;
      }
      const delay = Math.min(
        this.failures.retryAfterMs(error) ?? this.backoffMs * 2 ** Math.min(attempts - 1, 20),
        this.maxBackoffMs,
      );
      this.logger.warn(`RetainDB ingest failed (will retry): ${message}`);
      this.park(row.id, message, delay, attempts);
      return delay;
    } finally {
      this.inFlight--;
      this.notifySettled();
    }
  }

  /** Record a failure and release the claim; the row is due again after `delayMs`. */
  private park(id: number, error: string, delayMs: number, attempts?: number): void {
    this.db
      .prepare(
        `UPDATE pending SET last_error = ?, attempts = COALESCE(?, attempts), next_attempt_at = ?,
           claimed_at = NULL, claimed_by = NULL WHERE id = ?`,
      )
      .run(error.slice(0, 2000), attempts ?? null, (this.clock.now() + delayMs) / 1000, id);
  }

  /** Ms until the earliest parked row is due, if any. */
  private nextDueIn(): number | undefined {
    const row = this.db.prepare('SELECT MIN(next_attempt_at) AS due FROM pending').get() as {
      due: number | null;
    };
    if (row.due === null) return undefined;
    return Math.max(0, Math.min(this.pollMs, row.due * 1000 - this.clock.now()));
  }

  /** Sleep `ms` on the clock; an enqueue ends it early when `wakeable`; shutdown always does. */
  private wait(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        this.clock.clearTimeout(timer);
        this.stop.signal.removeEventListener('abort', done);
        if (this.wakeUp === done) this.wakeUp = null;
        resolve();
      };
      const timer = this.clock.setTimeout(done, ms);
      this.stop.signal.addEventListener('abort', done, { once: true });
      if (wakeable) this.wakeUp = done;
    });
  }

  private wake(): void {
    this.wakeUp?.();
  }

  private notifySettled(): void {
    for (const listener of [...this.settledListeners]) listener();
  }
}

/** A stable key for a row the Python plugin queued (it has none): the same on every attempt. */
function legacyKey(row: RawRow): string {
  const hash = createHash('sha256')
    .update([row.id, row.user_id, row.session_id, row.created_at, row.messages_json].join('\u0000'))
    .digest('hex');
  return `rdb-legacy-${hash.slice(0, 32)}`;
}
