import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ManualClock, silentLogger } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RetaindbClient, type RetaindbMessage, isPermanentFailure, retryAfterMs } from '../client';
import { createRetaindbProvider } from '../index';
import { FAKE_RETAINDB_KEY, startFakeRetaindb } from '../testing';
import { DurableQueue, type DurableQueueOptions, type QueueSender } from './durable-queue';
import { QUEUE_FILE, openQueueDatabase } from './queue-db';
import { acquireQueue, openQueueCount } from './registry';

const backend = await startFakeRetaindb();
afterAll(() => backend.close());
let home: string;
let clock: ManualClock;
const open: DurableQueue[] = [];
beforeEach(() => {
  backend.reset();
  backend.clearFaults();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-retaindb-queue-'));
  clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
});
afterEach(async () => {
  for (const q of open.splice(0)) await q.shutdown({ timeoutMs: 0 });
  fs.rmSync(home, { recursive: true, force: true });
});

const client = new RetaindbClient({ baseURL: backend.url, apiKey: FAKE_RETAINDB_KEY, project: 'p' });
const send: QueueSender = (row, signal) =>
  client
    .ingestSession({ userId: row.userId, sessionId: row.sessionId }, row.messages, row.idempotencyKey, signal)
    .then(() => undefined);
const dbFile = () => path.join(home, QUEUE_FILE);
const turn = (text: string): RetaindbMessage[] => [
  { role: 'user', content: text, timestamp: '2026-01-01T00:00:00.000Z' },
  { role: 'assistant', content: 'ok', timestamp: '2026-01-01T00:00:00.000Z' },
];
function queue(options: DurableQueueOptions = {}): DurableQueue {
  const q = new DurableQueue(dbFile(), {
    clock,
    failures: { permanent: isPermanentFailure, retryAfterMs },
    ...options,
  });
  open.push(q);
  return q;
}
const sentTexts = () => backend.dump().ingests.map((i) => i.messages[0]?.content);
const until = (check: () => void) => vi.waitFor(check, { timeout: 5000, interval: 5 });

describe('durable queue', () => {
  it('§4.9.9 the queue DB is created at $HERMES_HOME/retaindb_queue.db with the table pending and its columns, mode 0600', () => {
    queue();
    expect(fs.statSync(dbFile()).mode & 0o777).toBe(0o600);
    const db = new Database(dbFile(), { readonly: true });
    const columns = (db.prepare('PRAGMA table_info(pending)').all() as Array<{ name: string }>).map(
      (c) => c.name,
    );
    db.close();
    for (const c of [
      'id',
      'user_id',
      'session_id',
      'messages_json',
      'created_at',
      'last_error',
      'claimed_at',
    ]) {
      expect(columns).toContain(c);
    }
    expect(columns).toEqual(
      expect.arrayContaining(['claimed_by', 'idempotency_key', 'attempts', 'next_attempt_at']),
    );
  });

  it('§4.9.11 a successful ingest deletes the row: 0 pending rows after the drain', async () => {
    const q = queue();
    q.enqueue('u1', 's1', turn('first'));
    q.enqueue('u1', 's1', turn('second'));
    expect(q.pendingCount()).toBe(2);
    q.setSender(send);
    q.start();
    expect(await q.drain(5000)).toBe(true);
    expect(q.pendingCount()).toBe(0);
    expect(sentTexts()).toEqual(['first', 'second']);
    const ingest = backend.dump().ingests[0];
    expect(ingest).toMatchObject({ project: 'p', user_id: 'u1', session_id: 's1' });
    expect(ingest?.idempotency_key).toMatch(/^rdb-/);
  });

  it('§4.9.12 a failed ingest leaves the row with last_error set and waits about 2 s before the next item', async () => {
    const q = queue({ backoffMs: 2000 });
    q.enqueue('u1', 's1', turn('first'));
    q.enqueue('u1', 's1', turn('second'));
    backend.fail({ type: 'status', status: 500, path: '/v1/memory/ingest/session' });
    q.setSender(send);
    q.start();
    await until(() => expect(q.stats.failures).toBe(1));
    const row = () =>
      openQueueDatabase(dbFile(), { readonly: true })
        .prepare('SELECT last_error, attempts FROM pending ORDER BY id LIMIT 1')
        .get() as { last_error: string; attempts: number };
    expect(row().last_error).toMatch(/POST \/v1\/memory\/ingest\/session.*500/);
    expect(row().attempts).toBe(1);
    await clock.advance(1999);
    expect(backend.requestsTo('/v1/memory/ingest/session')).toHaveLength(1); // still waiting
    await clock.advance(1);
    await until(() => expect(q.pendingCount()).toBe(0));
    expect(sentTexts()).toEqual(['first', 'second']); // order kept
  });

  it('backs off exponentially per row, and honours Retry-After', async () => {
    const q = queue({ backoffMs: 1000, maxBackoffMs: 60_000 });
    q.enqueue('u1', 's1', turn('only'));
    backend.fail({ type: 'status', status: 503, retryAfter: 7, path: '/v1/memory/ingest/session' });
    q.setSender(send);
    q.start();
    await until(() => expect(q.stats.failures).toBe(1));
    await clock.advance(6999);
    expect(backend.requestsTo('/v1/memory/ingest/session')).toHaveLength(1);
    await clock.advance(1);
    await until(() => expect(q.pendingCount()).toBe(0));
  });

  it('§4.9.13 crash recovery: rows left by a failed run are replayed by a new queue, oldest first, 200 per batch', async () => {
    const first = queue();
    for (let i = 0; i < 250; i++) first.enqueue('u1', 's1', turn(`row ${i}`));
    await first.shutdown({ timeoutMs: 0 }); // never had a sender: all 250 stay
    const second = queue();
    second.setSender(send);
    second.start();
    expect(await second.drain(20_000)).toBe(true);
    expect(sentTexts()).toEqual(Array.from({ length: 250 }, (_, i) => `row ${i}`));
  }, 30_000);

  it('§4.9.13 replays rows the Python plugin left (its schema, no idempotency key) with a stable key', async () => {
    const db = new Database(dbFile());
    db.exec(
      'CREATE TABLE pending (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT, session_id TEXT, messages_json TEXT, created_at TEXT, last_error TEXT)',
    );
    db.prepare('INSERT INTO pending (user_id, session_id, messages_json, created_at) VALUES (?,?,?,?)').run(
      'u1',
      's-py',
      JSON.stringify(turn('from python — ünïcode')),
      '2026-01-01T00:00:00.000000+00:00',
    );
    db.close();
    const q = queue();
    q.setSender(send);
    q.start();
    expect(await q.drain(5000)).toBe(true);
    const ingest = backend.dump().ingests[0];
    expect(ingest?.messages[0]?.content).toBe('from python — ünïcode');
    expect(ingest?.idempotency_key).toMatch(/^rdb-legacy-[0-9a-f]{32}$/);
  });

  it('§4.9.14 shutdown drains within its deadline, and enqueue after shutdown is a no-op', async () => {
    const q = queue();
    q.setSender(send);
    q.start();
    for (let i = 0; i < 5; i++) q.enqueue('u1', 's1', turn(`turn ${i}`));
    const { left } = await q.shutdown({ timeoutMs: 10_000 });
    expect(left).toBe(0);
    expect(sentTexts()).toHaveLength(5);
    expect(q.enqueue('u1', 's1', turn('late'))).toBeNull();
    const db = openQueueDatabase(dbFile(), { readonly: true });
    expect((db.prepare('SELECT COUNT(*) AS n FROM pending').get() as { n: number }).n).toBe(0);
    db.close();
  });

  it('§4.9.14 a hung service: shutdown keeps its deadline, aborts the send and keeps the row for the next start', async () => {
    const q = queue();
    backend.fail({ type: 'timeout', path: '/v1/memory/ingest/session' });
    q.setSender(send);
    q.start();
    q.enqueue('u1', 's1', turn('stuck'));
    await until(() => expect(backend.requestsTo('/v1/memory/ingest/session')).toHaveLength(1));
    const shutdown = q.shutdown({ timeoutMs: 100 });
    await clock.advance(100);
    expect((await shutdown).left).toBe(1);
    backend.clearFaults();
    const next = queue();
    next.setSender(send);
    next.start();
    expect(await next.drain(5000)).toBe(true); // the released claim is taken at once
    expect(sentTexts()).toEqual(['stuck']);
  });

  it('§4.9.15 two providers on one HERMES_HOME share one queue and writer; releasing one keeps the other working; the last release stops it', async () => {
    const link = path.join(home, 'linked.db');
    const a = acquireQueue(dbFile(), send, { clock });
    fs.symlinkSync(dbFile(), link);
    const b = acquireQueue(link, send, { clock });
    expect(b.queue).toBe(a.queue);
    expect(openQueueCount()).toBe(1);
    await a.release();
    await a.release(); // repeated release does not drop the sibling's share
    b.queue.enqueue('u1', 's1', turn('after sibling left'));
    expect(await b.queue.drain(5000)).toBe(true);
    expect(sentTexts()).toEqual(['after sibling left']);
    await b.release();
    expect(b.queue.isClosed).toBe(true);
    expect(openQueueCount()).toBe(0);
  });

  it('§4.9.15 providers share the queue through the registry', async () => {
    const make = () => createRetaindbProvider({ baseURL: backend.url, apiKey: FAKE_RETAINDB_KEY });
    const ctx = {
      hermesHome: home,
      platform: 'cli',
      agentContext: 'primary' as const,
      env: {},
      logger: silentLogger,
    };
    const one = make();
    const two = make();
    await one.initialize('s1', ctx);
    await two.initialize('s2', ctx);
    expect(one.queue).toBe(two.queue);
    await one.shutdown();
    two.syncTurn('still here', 'yes');
    await two.idle(5000);
    expect(sentTexts()).toContain('still here');
    await two.shutdown();
    expect(openQueueCount()).toBe(0);
  });

  it('§4.9.16 two queues opened on one DB send each row exactly once (one writer per database)', async () => {
    const a = queue();
    const b = queue();
    a.setSender(send);
    a.start();
    b.setSender(send);
    b.start();
    for (let i = 0; i < 20; i++) (i % 2 ? a : b).enqueue('u1', 's1', turn(`row ${i}`));
    await until(() => expect(a.pendingCount()).toBe(0));
    expect([...sentTexts()].sort()).toEqual(Array.from({ length: 20 }, (_, i) => `row ${i}`).sort());
    expect(a.stats.sent + b.stats.sent).toBe(20);
    expect(Math.min(a.stats.sent, b.stats.sent)).toBe(0); // only the lease holder wrote
  });

  it("§4.9.16 a stale claim is retried after its lease; a live writer's claim is not resent", async () => {
    const q = queue({ leaseMs: 60_000, pollMs: 1000 });
    q.enqueue('u1', 's1', turn('claimed elsewhere'));
    // Another host's writer claimed it just now (its liveness cannot be checked from here).
    const db = new Database(dbFile());
    db.prepare('UPDATE pending SET claimed_at = ?, claimed_by = ?').run(
      clock.now() / 1000,
      'other-host:4242:abcd',
    );
    db.close();
    q.setSender(send);
    q.start();
    await clock.advance(30_000);
    expect(sentTexts()).toEqual([]); // held by a live claim
    await clock.advance(31_000);
    await until(() => expect(sentTexts()).toEqual(['claimed elsewhere']));
    expect(q.stats.recovered).toBe(1);
  });

  it('§4.9.16 a claim by a process of this host that is gone is taken over at once', async () => {
    const q = queue({ leaseMs: 60_000 });
    q.enqueue('u1', 's1', turn('orphaned'));
    const db = new Database(dbFile());
    db.prepare('UPDATE pending SET claimed_at = ?, claimed_by = ?').run(
      clock.now() / 1000,
      `${os.hostname()}:2147483646:dead`,
    );
    db.close();
    q.setSender(send);
    q.start();
    await until(() => expect(sentTexts()).toEqual(['orphaned']));
  });

  it('a resent row carries the same idempotency key and the service stores it once', async () => {
    const q = queue({ backoffMs: 10 });
    q.enqueue('u1', 's1', turn('once'));
    // The service stores the ingest but the answer is lost (reset after the handler ran is not
    // expressible; a truncated answer is): the writer sees a failure and resends.
    backend.fail({ type: 'truncated', path: '/v1/memory/ingest/session' });
    q.setSender(send);
    q.start();
    await until(() => expect(q.stats.failures).toBe(1));
    await clock.advance(10);
    await until(() => expect(q.pendingCount()).toBe(0));
    const state = backend.dump();
    expect(state.ingests).toHaveLength(1);
    expect(state.duplicatesSuppressed).toBe(1);
    const keys = backend.requestsTo('/v1/memory/ingest/session').map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBe(keys[1]);
  });

  it('a permanent refusal (422) parks the row without holding the rows behind it', async () => {
    const q = queue({ maxBackoffMs: 60_000 });
    q.enqueue('u1', 's1', turn('refused'));
    q.enqueue('u1', 's1', turn('fine'));
    backend.fail({ type: 'status', status: 422, path: '/v1/memory/ingest/session' });
    q.setSender(send);
    q.start();
    await until(() => expect(q.stats.sent).toBe(1));
    expect(sentTexts()).toEqual(['fine']);
    expect(q.pendingCount()).toBe(1);
    await clock.advance(60_000);
    await until(() => expect(q.pendingCount()).toBe(0));
  });

  it('a failed migration surfaces; the benign race (column already added) does not', async () => {
    const { migrate } = await import('./queue-db');
    const db = new Database(':memory:');
    db.exec('CREATE TABLE pending (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id TEXT)');
    migrate(db);
    migrate(db); // second pass: every column already there
    const broken = new Database(':memory:');
    broken.exec('CREATE VIEW pending AS SELECT 1 AS id');
    expect(() => migrate(broken)).toThrow(/migration failed adding 'claimed_at'/);
  });
});
