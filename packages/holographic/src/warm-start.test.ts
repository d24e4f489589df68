/**
 * A restarted process's caches: the background warm-up (`FactStore.warmUp`) must leave rankings
 * exactly as a cold store computes them, and the cached rows and token statistics must follow
 * writes by this store (only the rows it wrote are read again) and by other connections or
 * processes (nothing is scored with a stale row or stale text).
 */
import { silentLogger } from '@hermes-memory/core';
import { runPythonJson } from '@hermes-memory/testkit';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HolographicProvider } from './provider';
import { RowCache } from './row-cache';
import type { FactStore } from './store';
import { tempDir, tempStore } from './test-helpers';

const people = ['Ann', 'Bo', 'Cy', 'Di'];
const topics = ['the garden', 'a pottery class', 'the night train', 'sourdough bread', 'the chess club'];
const turns = Array.from({ length: 150 }, (_, i) => ({
  content: `${people[i % 4]}: I went to ${topics[i % 5]} last week, note ${i}${i % 3 ? '.' : '?'}`,
  tags: i % 7 === 0 ? 'weekly' : '',
  occurredAt: Date.UTC(2024, 0, 1) + Math.floor(i / 10) * 7_200_000 + (i % 10) * 60_000,
}));
const queries = [
  'What did Ann say about the garden?',
  'pottery class',
  'When did Cy take the night train?',
  'weekly chess',
];

function ranking(store: FactStore, query: string) {
  return store
    .search(query, { limit: 10, minTrust: 0, countRetrievals: false })
    .map((r) => ({ id: r.fact_id, score: r.score, relevance: r.relevance, content: r.content }));
}

/** A file with `turns` written by a store that is then closed (the importing process is gone). */
function importedFile(): string {
  const dbPath = path.join(tempDir(), 'memory_store.db');
  const writer = tempStore({ dbPath });
  writer.addMany(turns);
  writer.close();
  return dbPath;
}

describe('warm-up of a restarted store', () => {
  it('reads every fact in and ranks exactly like a store that did not', async () => {
    const dbPath = importedFile();
    const cold = tempStore({ dbPath });
    const coldResults = queries.map((q) => ranking(cold, q));
    cold.close();
    const warm = tempStore({ dbPath });
    expect(warm.retriever.cacheSizes()).toEqual({ tokens: 0, rows: 0 });
    const started = warm.warmUp();
    expect(warm.warmUp()).toBe(started);
    await started;
    expect(warm.retriever.cacheSizes()).toEqual({ tokens: turns.length, rows: turns.length });
    const warmResults = queries.map((q) => ranking(warm, q));
    expect(coldResults.every((r) => r.length > 0)).toBe(true);
    expect(warmResults).toEqual(coldResults);
  });

  it('is started by the provider and never runs inside initialize', async () => {
    const dbPath = importedFile();
    const provider = new HolographicProvider({ dbPath, embeddings: false });
    provider.initialize('s1', {
      hermesHome: tempDir(),
      platform: 'cli',
      agentContext: 'primary',
      logger: silentLogger,
    });
    try {
      const store = provider.factStore!;
      expect(store.retriever.cacheSizes().rows).toBe(0);
      await store.warmUp();
      expect(store.retriever.cacheSizes().rows).toBe(turns.length);
    } finally {
      provider.shutdown();
    }
  });

  it('stops when the store closes, and does nothing in reference mode', async () => {
    const dbPath = importedFile();
    const closing = tempStore({ dbPath });
    const pending = closing.warmUp();
    closing.close();
    await pending;
    const reference = tempStore({ dbPath, retrieval: 'reference' });
    await reference.warmUp();
    expect(reference.retriever.cacheSizes()).toEqual({ tokens: 0, rows: 0 });
  });

  it('scores a fact another connection rewrote (text, tags, trust) with what it holds now', async () => {
    const dbPath = importedFile();
    const store = tempStore({ dbPath });
    await store.warmUp();
    const kettle = store.add('Ann likes the blue kettle');
    const shed = store.add('Bo fixed the garden shed door');
    expect(ranking(store, 'kettle')[0]?.id).toBe(kettle);
    // Another process (the Python plugin, a second agent) edits rows this store has cached.
    const other = new Database(dbPath);
    try {
      other
        .prepare('UPDATE facts SET content = ?, trust_score = 0.9 WHERE fact_id = ?')
        .run('Ann likes the red lamp', kettle);
      other.prepare("UPDATE facts SET tags = 'carpentry' WHERE fact_id = ?").run(shed);
      other.prepare('DELETE FROM facts WHERE fact_id = 1').run();
    } finally {
      other.close();
    }
    expect(ranking(store, 'kettle').map((r) => r.content)).not.toContain('Ann likes the blue kettle');
    const lamp = store.search('lamp', { minTrust: 0 })[0];
    expect([lamp?.fact_id, lamp?.content, lamp?.trust_score]).toEqual([
      kettle,
      'Ann likes the red lamp',
      0.9,
    ]);
    // The tags are part of a fact's token statistics: the new tag finds it, as in a cold store.
    expect(ranking(store, 'carpentry')[0]?.id).toBe(shed);
    expect(ranking(store, 'note 0').map((r) => r.id)).not.toContain(1);
    const cold = tempStore({ dbPath });
    for (const q of [...queries, 'lamp', 'carpentry']) expect(ranking(store, q)).toEqual(ranking(cold, q));
  });

  it('scores what a Python process (the reference plugin) wrote while every row was cached', async () => {
    const dbPath = importedFile();
    const store = tempStore({ dbPath });
    await store.warmUp();
    const [before] = ranking(store, 'sourdough bread');
    const target = before!.id;
    // The plugin's writes are plain SQL on the shared schema; our triggers queue them for the side index.
    const script = path.join(tempDir(), 'edit.py');
    fs.writeFileSync(
      script,
      [
        'import json, sqlite3, sys',
        'db = sqlite3.connect(sys.argv[1])',
        'db.execute("UPDATE facts SET content = ?, trust_score = 0.95, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?",',
        '           ("Di: the harbour ferry was late again", int(sys.argv[2])))',
        `db.execute("INSERT INTO facts (content, category) VALUES ('Ann: the harbour lighthouse reopened', 'general')")`,
        'db.commit()',
        'print(json.dumps({"facts": db.execute("SELECT COUNT(*) FROM facts").fetchone()[0]}))',
      ].join('\n'),
    );
    expect(await runPythonJson(script, dbPath, String(target))).toEqual({ facts: turns.length + 1 });
    const harbour = store.search('harbour', { minTrust: 0, countRetrievals: false });
    expect(harbour.map((r) => r.content).sort()).toEqual([
      'Ann: the harbour lighthouse reopened',
      'Di: the harbour ferry was late again',
    ]);
    expect(harbour.find((r) => r.fact_id === target)?.trust_score).toBe(0.95);
    expect(ranking(store, 'sourdough bread').map((r) => r.content)).not.toContain(before!.content);
    const cold = tempStore({ dbPath });
    for (const q of [...queries, 'harbour', 'sourdough bread'])
      expect(ranking(store, q)).toEqual(ranking(cold, q));
  });

  it("keeps the other cached rows through this store's own update, feedback and remove", async () => {
    const dbPath = importedFile();
    const store = tempStore({ dbPath });
    await store.warmUp();
    const all = turns.length;
    const [a, b, c] = ranking(store, 'pottery class').map((r) => r.id);
    expect(store.retriever.cacheSizes().rows).toBe(all);
    store.update(a!, { content: 'Ann: I dropped the pottery class for a tango course', trustDelta: 0.2 });
    // Only the written row leaves the cache (before: every row, read again by the next searches).
    expect(store.retriever.cacheSizes().rows).toBe(all - 1);
    store.feedback(b!, false);
    store.remove(c!);
    expect(store.retriever.cacheSizes().rows).toBe(all - 3);
    const after = store.search('tango course', { minTrust: 0, countRetrievals: false })[0];
    expect([after?.fact_id, after?.trust_score]).toEqual([a, 0.7]);
    const pottery = store.search('pottery class', { limit: 50, minTrust: 0, countRetrievals: false });
    expect(pottery.find((r) => r.fact_id === b)?.trust_score).toBeCloseTo(0.4, 12);
    expect(pottery.map((r) => r.fact_id)).not.toContain(c);
    // A store that never cached anything computes the same.
    const cold = tempStore({ dbPath });
    for (const q of [...queries, 'tango course']) expect(ranking(store, q)).toEqual(ranking(cold, q));
  });

  it('returns retrieval counts as stored after the write-behind flush keeps the warmed rows', async () => {
    const dbPath = importedFile();
    const store = tempStore({ dbPath });
    await store.warmUp();
    const first = store.search('night train', { limit: 3, minTrust: 0 });
    store.flushRetrievalCounts();
    expect(store.retriever.cacheSizes().rows).toBe(turns.length);
    const again = store.search('night train', { limit: 3, minTrust: 0 });
    expect(again.map((r) => r.fact_id)).toEqual(first.map((r) => r.fact_id));
    expect(again.every((r) => r.retrieval_count === 1)).toBe(true);
  });
});

describe('corpus statistics', () => {
  it("follow this store's inserts without a recount and rank like a store that recounted", () => {
    const dbPath = importedFile();
    const store = tempStore({ dbPath });
    ranking(store, 'pottery class');
    expect(store.retriever.corpusStatsCached).toBe(true);
    store.add('Bo: the pottery class moved to Thursdays 🏺', { tags: 'schedule,pottery' });
    store.addMany([{ content: 'Cy: a second pottery class opens in spring' }, { content: 'Di: ok' }]);
    // Kept (moved by the inserted lengths), where every add used to drop them.
    expect(store.retriever.corpusStatsCached).toBe(true);
    const warm = queries.concat('pottery schedule').map((q) => ranking(store, q));
    const recounted = tempStore({ dbPath });
    expect(queries.concat('pottery schedule').map((q) => ranking(recounted, q))).toEqual(warm);
    // Another connection's insert, update or delete is recounted.
    const other = new Database(dbPath);
    try {
      other.prepare("INSERT INTO facts (content) VALUES ('Ann: pottery again')").run();
    } finally {
      other.close();
    }
    store.add('Bo: pottery once more');
    expect(store.retriever.corpusStatsCached).toBe(false);
    expect(ranking(store, 'pottery')).toEqual(ranking(tempStore({ dbPath }), 'pottery'));
  });
});

describe('corpus statistics and other writers', () => {
  it('are recounted after facts another store wrote and indexed itself (no queued ids left)', () => {
    const dbPath = importedFile();
    const reader = tempStore({ dbPath });
    ranking(reader, 'zebra crossing');
    // A second agent's store (here sharing the connection; a second process looks the same through
    // data_version) inserts and indexes its facts in its own transaction: hm_dirty stays empty.
    const writer = tempStore({ dbPath });
    writer.addMany(Array.from({ length: 60 }, (_, i) => ({ content: `Ann: the zebra crossing ${i}` })));
    const seen = ranking(reader, 'zebra crossing');
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual(ranking(tempStore({ dbPath }), 'zebra crossing'));
  });
});

describe('RowCache', () => {
  it('evicts the oldest rows past its cap, never one a read asks for', () => {
    const store = tempStore();
    const ids = store.addMany(Array.from({ length: 12 }, (_, i) => ({ content: `row cache fact ${i}` })));
    const cache = new RowCache(store.db, 5);
    cache.validate();
    expect(cache.get(ids.slice(0, 4)).map((r) => r.fact_id)).toEqual(ids.slice(0, 4));
    // 3 more than fit: the oldest cached go, but ids[3] is asked for again and stays.
    const wanted = [ids[3]!, ids[4]!, ids[5]!, ids[6]!];
    expect(cache.get(wanted).map((r) => r.fact_id)).toEqual(wanted);
    expect(cache.size).toBe(5);
    expect(cache.full).toBe(true);
    expect(cache.get(ids.slice(7)).map((r) => r.content)).toEqual(
      ids.slice(7).map((_, i) => `row cache fact ${i + 7}`),
    );
    expect(cache.size).toBe(5);
  });
});
