import { describe, expect, it } from 'vitest';
import { LOCOMO_FILE_REL, sharedPath } from '../paths';
import { createBm25Retriever } from '../retrievers/bm25';
import { loadLocomo } from './loader';
import { groupByCategory, K_VALUES } from './metrics';
import { runLocomo } from './protocol';
import type { LocomoTurn, Retriever } from './types';

const conv30 = loadLocomo(sharedPath(...LOCOMO_FILE_REL)).filter((c) => c.conversationId === 'conv-30');

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
});
