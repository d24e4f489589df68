import path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHolographicProvider } from './provider';
import { FactStore, RETRIEVAL_FLUSH_MS, type FactStoreOptions } from './store';
import { tempDir, tempStore } from './test-helpers';

function makeStore(dbPath: string, options: Partial<FactStoreOptions> = {}): FactStore {
  return tempStore({ dbPath, ...options });
}
afterEach(() => {
  vi.useRealTimers();
});

/** retrieval_count as another process sees it: a separate connection to the same file. */
function countOnDisk(dbPath: string, factId: number): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (
      db.prepare('SELECT retrieval_count FROM facts WHERE fact_id = ?').get(factId) as {
        retrieval_count: number;
      }
    ).retrieval_count;
  } finally {
    db.close();
  }
}

describe('write-behind retrieval counts', () => {
  it('buffers increments in memory, shows them to this process, writes them on flush', () => {
    const dbPath = path.join(tempDir(), 'm.db');
    const store = makeStore(dbPath);
    const a = store.add('Alpha project ships in May');
    const b = store.add('Beta project ships in June');
    const first = store.search('alpha project');
    expect(first[0]!.fact_id).toBe(a);
    expect(first[0]!.retrieval_count).toBe(0);
    // The second search reports the first retrieval (as if it had been written at once).
    expect(store.search('alpha project')[0]!.retrieval_count).toBe(1);
    expect(store.get(a)!.retrieval_count).toBe(2);
    expect(store.list().find((f) => f.fact_id === a)!.retrieval_count).toBe(2);
    expect(countOnDisk(dbPath, a)).toBe(0);
    expect(store.flushRetrievalCounts()).toBe(true);
    expect(countOnDisk(dbPath, a)).toBe(2);
    expect(store.get(a)!.retrieval_count).toBe(2);
    const before = store.get(b)!.retrieval_count;
    store.search('zzzz nothing matches');
    store.flushRetrievalCounts();
    expect(store.get(b)!.retrieval_count).toBe(before);
  });

  it('flushes on a later macrotask without an explicit call', () => {
    vi.useFakeTimers();
    const dbPath = path.join(tempDir(), 'm.db');
    const store = makeStore(dbPath);
    const a = store.add('Gamma release notes are drafted');
    store.search('gamma release');
    expect(countOnDisk(dbPath, a)).toBe(0);
    vi.advanceTimersByTime(RETRIEVAL_FLUSH_MS);
    expect(countOnDisk(dbPath, a)).toBe(1);
  });

  it('close() writes them, and a restart sees them', () => {
    const dbPath = path.join(tempDir(), 'm.db');
    const store = new FactStore({ dbPath });
    const a = store.add('Delta team meets on Tuesdays');
    store.search('delta team');
    store.search('delta meets');
    store.close();
    const reopened = makeStore(dbPath);
    expect(reopened.get(a)!.retrieval_count).toBe(2);
  });

  it('probe / reason results are counted the same way', () => {
    const dbPath = path.join(tempDir(), 'm.db');
    const store = makeStore(dbPath);
    const a = store.add('Jane Doe prefers Neovim');
    const hit = store.probe('Jane Doe');
    expect(hit.some((r) => r.fact_id === a)).toBe(true);
    store.flushRetrievalCounts();
    expect(countOnDisk(dbPath, a)).toBe(1);
  });

  it('read-only contexts count nothing', () => {
    const dbPath = path.join(tempDir(), 'm.db');
    const writer = makeStore(dbPath);
    const a = writer.add('Epsilon budget was approved');
    const reader = makeStore(dbPath, { trackRetrievals: false });
    reader.search('epsilon budget');
    expect(reader.pendingRetrievalCount(a)).toBe(0);
    reader.close();
    expect(countOnDisk(dbPath, a)).toBe(0);
  });

  it('the provider flush hook writes them (MemoryManager.flushPending)', async () => {
    const home = tempDir();
    const p = createHolographicProvider({ embeddings: false });
    p.initialize('s1', { hermesHome: home, platform: 'cli', agentContext: 'primary', logger: silentLogger });
    try {
      const added = JSON.parse(
        await p.handleToolCall('fact_store', { action: 'add', content: 'Zeta uses PostgreSQL 16' }),
      ) as { fact_id: number };
      await p.handleToolCall('fact_store', { action: 'search', query: 'zeta postgresql' });
      const dbPath = p.factStore!.dbPath;
      expect(countOnDisk(dbPath, added.fact_id)).toBe(0);
      expect(await p.flush(1000)).toBe(true);
      expect(countOnDisk(dbPath, added.fact_id)).toBe(1);
    } finally {
      p.shutdown();
    }
  });
});

describe('row cache invalidation', () => {
  it('sees a change written by another connection (another process) on the next search', () => {
    const dbPath = path.join(tempDir(), 'm.db');
    const store = makeStore(dbPath);
    const a = store.add('Kappa service runs on port 8080');
    expect(store.search('kappa service', { minTrust: 0.3 }).map((r) => r.fact_id)).toEqual([a]);
    const other = new Database(dbPath);
    other.prepare('UPDATE facts SET trust_score = 0.1 WHERE fact_id = ?').run(a);
    other.close();
    // Trust below the floor: the cached row must not be used.
    expect(store.search('kappa service', { minTrust: 0.3 })).toEqual([]);
  });

  it('sees a write by another store sharing the connection', () => {
    const dbPath = path.join(tempDir(), 'm.db');
    const one = makeStore(dbPath);
    const two = makeStore(dbPath);
    const a = one.add('Lambda queue drains nightly', { category: 'project' });
    expect(one.search('lambda queue', { category: 'project' }).map((r) => r.fact_id)).toEqual([a]);
    two.update(a, { category: 'tool' });
    expect(one.search('lambda queue', { category: 'project' })).toEqual([]);
    expect(one.search('lambda queue', { category: 'tool' }).map((r) => r.fact_id)).toEqual([a]);
  });

  it('keeps rankings and returns current counts across a statistics flush', () => {
    const dbPath = path.join(tempDir(), 'm.db');
    const store = makeStore(dbPath);
    store.addMany([
      { content: 'Mu cluster has three nodes' },
      { content: 'Mu cluster upgrade is planned' },
      { content: 'Nu cluster is retired' },
    ]);
    const first = store.search('mu cluster').map((r) => r.fact_id);
    store.flushRetrievalCounts();
    const again = store.search('mu cluster');
    expect(again.map((r) => r.fact_id)).toEqual(first);
    expect(again.every((r) => r.retrieval_count === 1)).toBe(true);
  });
});
