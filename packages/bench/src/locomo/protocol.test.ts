import { describe, expect, it } from 'vitest';
import { LOCOMO_FILE_REL, sharedPath } from '../paths';
import { createBm25Retriever } from '../retrievers/bm25';
import { loadLocomo } from './loader';
import { groupByCategory, K_VALUES } from './metrics';
import { runLocomo } from './protocol';
import type { LocomoTurn, Retriever } from './types';

const all = loadLocomo(sharedPath(...LOCOMO_FILE_REL));
const conv30 = all.filter((c) => c.conversationId === 'conv-30');

describe('LoCoMo protocol on the smoke subset (conv-30)', () => {
  it('scores every question with gold through a fresh BM25 store', async () => {
    const run = await runLocomo(createBm25Retriever({ inMemory: true }), conv30);
    expect(run.conversations).toBe(1);
    expect(run.turns).toBe(369);
    expect(run.dropped).toBe(0);
    expect(run.scores).toHaveLength(105);
    const g = groupByCategory(run.scores);
    expect([g.cat1.n, g.cat2.n, g.cat3.n, g.cat4.n, g.cat5.n]).toEqual([11, 26, 0, 44, 24]);
    expect(g['cat1-4'].n).toBe(81);
    // recall can only grow with k, and all ≤ any ≤ 1
    for (let i = 1; i < K_VALUES.length; i++) {
      expect(g['cat1-4'].recallAny[K_VALUES[i]!]).toBeGreaterThanOrEqual(
        g['cat1-4'].recallAny[K_VALUES[i - 1]!],
      );
    }
    expect(g['cat1-4'].recallAll[10]).toBeLessThanOrEqual(g['cat1-4'].recallAny[10]);
    // a working lexical baseline finds evidence for most single-hop questions
    expect(g.cat4.recallAny[50]).toBeGreaterThan(0.5);
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
    const run = await runLocomo(spy, conv30);
    expect(events).toEqual(['open conv-30', 'ingest', 'close']);
    expect(ingested.map((t) => t.turnIndex)).toEqual(ingested.map((_, i) => i));
    expect(run.scores).toHaveLength(105);
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
            return ['conv-26/D1:3', 'D1:3'];
          },
          async close() {},
        };
      },
    };
    const pool = all.filter((c) => ['conv-26', 'conv-30', 'conv-41'].includes(c.conversationId));
    const run = await runLocomo(spy, conv30, { haystack: pool });
    const others = pool.filter((c) => c.conversationId !== 'conv-30');
    const hay = others.reduce((n, c) => n + c.turns.length, 0);
    expect(ingested).toHaveLength(hay + conv30[0]!.turns.length);
    expect(ingested.slice(0, hay).every((t) => /^conv-(26|41)\/D\d+:\d+$/.test(t.diaId))).toBe(true);
    expect(ingested.slice(hay).map((t) => t.diaId)).toEqual(conv30[0]!.turns.map((t) => t.diaId));
    // Haystack sessions never share a number with the conversation's own.
    const own = new Set(conv30[0]!.turns.map((t) => t.sessionIndex));
    expect(ingested.slice(0, hay).some((t) => own.has(t.sessionIndex))).toBe(false);
    expect(run.turns).toBe(hay + conv30[0]!.turns.length);
    // Rank 1 is always the haystack copy: never a hit, whatever the question's gold.
    expect(run.scores.every((q) => q.recallAny[1] === 0)).toBe(true);
    expect(run.scores.some((q) => q.mrr === 0.5)).toBe(true);
  });
});
