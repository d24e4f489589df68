/**
 * Caches filled at ingest (token statistics and scoring rows of the facts just written) must leave
 * search results exactly as a cold store computes them, and stay current through our own count
 * writes and other connections' writes.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FactStore } from './store';
import { tempDir, tempStore } from './test-helpers';

const people = ['Ann', 'Bo', 'Cy', 'Di'];
const topics = ['the garden', 'a pottery class', 'the night train', 'sourdough bread', 'the chess club'];
const turns = Array.from({ length: 120 }, (_, i) => ({
  content: `${people[i % 4]}: I went to ${topics[i % 5]} last week, note ${i}`,
  tags: i % 7 === 0 ? 'weekly' : '',
}));
const queries = ['What did Ann say about the garden?', 'pottery class', 'When did Cy take the night train?'];

function ranking(store: FactStore, query: string) {
  return store
    .search(query, { limit: 10, minTrust: 0 })
    .map((r) => ({ id: r.fact_id, score: r.score, content: r.content }));
}

describe('caches filled at ingest', () => {
  it('rank exactly like a cold store reading the same file', () => {
    const dbPath = path.join(tempDir(), 'memory_store.db');
    const warm = tempStore({ dbPath });
    warm.addMany(turns);
    const warmResults = queries.map((q) => ranking(warm, q));
    warm.flushRetrievalCounts();
    // A second instance has its own retriever: nothing primed, every fact tokenized at search.
    const cold = tempStore({ dbPath });
    const coldResults = queries.map((q) => ranking(cold, q));
    expect(warmResults.every((r) => r.length > 0)).toBe(true);
    expect(coldResults).toEqual(warmResults);
  });

  it('return current retrieval counts after the write-behind flush', () => {
    const dbPath = path.join(tempDir(), 'memory_store.db');
    const store = tempStore({ dbPath });
    store.addMany(turns);
    const first = store.search('pottery class', { limit: 3, minTrust: 0 });
    store.flushRetrievalCounts();
    store.search('pottery class', { limit: 3, minTrust: 0 });
    store.flushRetrievalCounts();
    const third = store.search('pottery class', { limit: 3, minTrust: 0 });
    const reader = new Database(dbPath, { readonly: true });
    try {
      for (const r of third) {
        const row = reader.prepare('SELECT retrieval_count FROM facts WHERE fact_id = ?').get(r.fact_id) as {
          retrieval_count: number;
        };
        // Results show the count as of the read: two earlier retrievals, both written.
        expect(r.retrieval_count).toBe(row.retrieval_count);
      }
      expect(third.map((r) => r.fact_id)).toEqual(first.map((r) => r.fact_id));
      expect(third.every((r) => r.retrieval_count === 2)).toBe(true);
    } finally {
      reader.close();
    }
  });

  it('see another connection’s edits to facts primed at ingest', () => {
    const dbPath = path.join(tempDir(), 'memory_store.db');
    const store = tempStore({ dbPath });
    const [id] = store.addMany([{ content: 'Ann likes the blue kettle' }, { content: 'Bo fixed the shed' }]);
    // (The neighbouring fact may follow on borrowed context; the match ranks first.)
    expect(store.search('kettle', { minTrust: 0 })[0]?.fact_id).toBe(id);
    const other = new Database(dbPath);
    try {
      other
        .prepare('UPDATE facts SET content = ?, trust_score = 0.9 WHERE fact_id = ?')
        .run('Ann likes the red lamp', id);
    } finally {
      other.close();
    }
    expect(store.search('kettle', { minTrust: 0 }).map((r) => r.content)).not.toContain(
      'Ann likes the blue kettle',
    );
    const top = store.search('lamp', { minTrust: 0 })[0];
    expect([top?.fact_id, top?.content, top?.trust_score]).toEqual([id, 'Ann likes the red lamp', 0.9]);
  });
});
