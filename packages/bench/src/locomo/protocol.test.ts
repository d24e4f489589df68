import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createBm25Retriever } from '../retrievers/bm25';
import { loadLocomo } from './loader';
import { groupByCategory, K_VALUES } from './metrics';
import { runLocomo } from './protocol';
import type { LocomoTurn, Retriever } from './types';

// A LoCoMo-shaped fixture written for the tests; the real development set is read only by `pnpm bench`.
const all = loadLocomo(path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'tiny.json'));
const convA = all.filter((c) => c.conversationId === 'conv-a');

describe('LoCoMo protocol (fixture conversation conv-a)', () => {
  it('scores every question with gold through a fresh BM25 store', async () => {
    const run = await runLocomo(createBm25Retriever({ inMemory: true }), convA);
    expect(run.conversations).toBe(1);
    expect(run.turns).toBe(7);
    expect(run.dropped).toBe(1); // evidence D9:9 names no turn
    expect(run.scores).toHaveLength(5);
    const g = groupByCategory(run.scores);
    expect([g.cat1.n, g.cat2.n, g.cat3.n, g.cat4.n, g.cat5.n]).toEqual([1, 1, 0, 2, 1]);
    expect(g['cat1-4'].n).toBe(4);
    // recall can only grow with k, and all ≤ any ≤ 1
    for (let i = 1; i < K_VALUES.length; i++) {
      expect(g['cat1-4'].recallAny[K_VALUES[i]!]).toBeGreaterThanOrEqual(
        g['cat1-4'].recallAny[K_VALUES[i - 1]!],
      );
    }
    expect(g['cat1-4'].recallAll[10]).toBeLessThanOrEqual(g['cat1-4'].recallAny[10]);
    // a working lexical baseline ranks first the one turn that names Tomas's dog (qa[2])
    expect(run.scores[2]!.category).toBe(4);
    expect(run.scores[2]!.recallAny[1]).toBe(1);
  });

  it('opens one store per conversation, ingests once in order and closes it', async () => {
    const events: string[] = [];
    let ingested: LocomoTurn[] = [];
    const spy: Retriever = {
      name: 'recording',
      async open(id) {
        events.push(`open ${id}`);
        return {
          async ingest(turns) {
            events.push('ingest');
            ingested = turns;
          },
          async search() {
            return ['D1:1', 'D1:1', 'D1:2'];
          },
          async close() {
            events.push('close');
          },
        };
      },
    };
    const run = await runLocomo(spy, convA);
    expect(events).toEqual(['open conv-a', 'ingest', 'close']);
    expect(ingested.map((t) => t.turnIndex)).toEqual(ingested.map((_, i) => i));
    expect(run.scores).toHaveLength(5);
  });

  it('haystack: stores the other conversations first, under ids that can never be gold', async () => {
    let ingested: LocomoTurn[] = [];
    const spy: Retriever = {
      name: 'recording',
      async open() {
        return {
          async ingest(turns) {
            ingested = turns;
          },
          async search() {
            // The haystack copy of a gold-looking id must not count; the conversation's own does.
            return ['conv-b/D1:3', 'D1:3'];
          },
          async close() {},
        };
      },
    };
    const run = await runLocomo(spy, convA, { haystack: all });
    const others = all.filter((c) => c.conversationId !== 'conv-a');
    const hay = others.reduce((n, c) => n + c.turns.length, 0);
    expect(hay).toBe(5);
    expect(ingested).toHaveLength(hay + convA[0]!.turns.length);
    expect(ingested.slice(0, hay).every((t) => /^conv-(b|c)\/D\d+:\d+$/.test(t.diaId))).toBe(true);
    expect(ingested.slice(hay).map((t) => t.diaId)).toEqual(convA[0]!.turns.map((t) => t.diaId));
    // Haystack sessions never share a number with the conversation's own.
    const own = new Set(convA[0]!.turns.map((t) => t.sessionIndex));
    expect(ingested.slice(0, hay).some((t) => own.has(t.sessionIndex))).toBe(false);
    expect(run.turns).toBe(hay + convA[0]!.turns.length);
    // Rank 1 is always the haystack copy: never a hit, whatever the question's gold.
    expect(run.scores.every((q) => q.recallAny[1] === 0)).toBe(true);
    expect(run.scores.some((q) => q.mrr === 0.5)).toBe(true);
  });
});
