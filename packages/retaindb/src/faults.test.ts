import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryManager } from '@hermes-memory/core';
import { collectLogs } from '@hermes-memory/testkit';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createRetaindbProvider } from './index';
import { FAKE_RETAINDB_KEY, startFakeRetaindb } from './testing';

const backend = await startFakeRetaindb();
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-retaindb-faults-'));
afterAll(async () => {
  await backend.close();
  fs.rmSync(home, { recursive: true, force: true });
});

const FAULTS = [
  { type: 'status', status: 503, retryAfter: 1 },
  { type: 'status', status: 500 },
  { type: 'timeout' },
  { type: 'reset' },
  { type: 'malformed' },
  { type: 'truncated' },
  { type: 'delay', ms: 300 },
] as const;
const PREFETCH_BUDGET_MS = 400;
const TOOL_BUDGET_MS = 800;
const TURNS = 21;

describe('fault run', () => {
  it('through 5xx with Retry-After, hangs, resets, malformed and truncated bodies: every turn in budget, tools JSON, no write lost or doubled, the key never leaks', async () => {
    const logs = collectLogs();
    const manager = new MemoryManager({
      logger: logs.logger,
      externalPrefetchTimeoutMs: PREFETCH_BUDGET_MS,
      toolCallTimeoutMs: TOOL_BUDGET_MS,
      redactEgress: false,
    });
    const provider = createRetaindbProvider({
      baseURL: backend.url,
      apiKey: FAKE_RETAINDB_KEY,
      timeoutMs: 300,
      backoffMs: 20,
      maxBackoffMs: 100,
    });
    manager.addProvider(provider);
    await manager.initializeAll('fault-run', { hermesHome: home, platform: 'cli', env: {} });
    const slowest = { prefetch: 0, sync: 0, tool: 0 };
    for (let turn = 0; turn < TURNS; turn++) {
      const fault = FAULTS[turn % FAULTS.length]!;
      backend.fail({ ...fault, count: 6 });
      await manager.onTurnStart(turn + 1, `question ${turn}`);
      let started = performance.now();
      const recall = await manager.prefetchAll(`what about lighthouse ${turn}?`);
      slowest.prefetch = Math.max(slowest.prefetch, performance.now() - started);
      expect(typeof recall).toBe('string');
      started = performance.now();
      const answer = await manager.handleToolCall('retaindb_search', { query: `lighthouse ${turn}` });
      slowest.tool = Math.max(slowest.tool, performance.now() - started);
      expect(() => JSON.parse(answer), `${fault.type}: ${answer}`).not.toThrow();
      started = performance.now();
      manager.syncAll(`Turn ${turn}: the lighthouse marker f${turn}x is noted.`, `Noted f${turn}x.`);
      manager.queuePrefetchAll(`lighthouse ${turn}`);
      slowest.sync = Math.max(slowest.sync, performance.now() - started);
    }
    backend.clearFaults();
    expect(await manager.flushPending(20_000)).toBe(true);
    await provider.flush(20_000);
    const markers = backend
      .dump()
      .ingests.map((i) => /marker (f\d+x)/.exec(i.messages[0]?.content ?? '')?.[1])
      .filter(Boolean);
    expect([...markers].sort()).toEqual(Array.from({ length: TURNS }, (_, i) => `f${i}x`).sort());
    // Budgets: prefetch never waits on the service; tools keep the manager's budget; sync is a
    // local commit. Slack for a loaded 2-core machine.
    expect(slowest.prefetch).toBeLessThan(PREFETCH_BUDGET_MS + 500);
    expect(slowest.tool).toBeLessThan(TOOL_BUDGET_MS + 500);
    expect(slowest.sync).toBeLessThan(500);
    expect(manager.getProviderHealth('retaindb')?.status).toBeDefined();
    await manager.shutdownAll();
    const everything = [JSON.stringify(backend.requests), logs.messages().join('\n')].join('\n');
    expect(everything).not.toContain(FAKE_RETAINDB_KEY);
  }, 120_000);
});

describe('shutdown during an outage', () => {
  it('§4.9.14 through the manager, a backend that keeps failing: shutdown leaves the turns on disk within its own deadline, so the manager never reports it timed out', async () => {
    const logs = collectLogs();
    const outageHome = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-retaindb-outage-'));
    const manager = new MemoryManager({ logger: logs.logger, shutdownTimeoutMs: 600 });
    const provider = createRetaindbProvider({ baseURL: backend.url, apiKey: FAKE_RETAINDB_KEY, backoffMs: 60_000 });
    manager.addProvider(provider);
    backend.fail({ type: 'status', status: 503, path: '/v1/memory/ingest/session', count: 1000 });
    const attempts = () => backend.requestsTo('/v1/memory/ingest/session').length;
    const before = attempts();
    try {
      await manager.initializeAll('outage', { hermesHome: outageHome, platform: 'cli', env: {} });
      manager.syncAll('The harbour marker h1x is noted.', 'Noted h1x.');
      // The one attempt failed: the row now waits out its backoff.
      await vi.waitFor(() => expect(attempts()).toBe(before + 1));
      expect(provider.queue?.pendingCount()).toBe(1);
      const state = await manager.shutdownAll();
      expect(state.timedOutProviders).toEqual([]);
      expect(logs.messages().join('\n')).not.toMatch(/shutdown failed/);
      // The turn waits on disk for the next start, and the queue was closed (its writer lease freed).
      const db = new Database(path.join(outageHome, 'retaindb_queue.db'), { readonly: true });
      expect((db.prepare('SELECT COUNT(*) AS n FROM pending').get() as { n: number }).n).toBe(1);
      expect((db.prepare('SELECT COUNT(*) AS n FROM writer_lease').get() as { n: number }).n).toBe(0);
      db.close();
    } finally {
      backend.clearFaults();
      fs.rmSync(outageHome, { recursive: true, force: true });
    }
  }, 20_000);
});
