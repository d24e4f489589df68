import { describe, expect, it } from 'vitest';
import {
  aggregate,
  fracRecall,
  groupByCategory,
  recallAll,
  recallAny,
  reciprocalRank,
  scoreQuestion,
  toSessions,
} from './metrics';

const ranked = ['D1:1', 'D2:5', 'D1:3', 'D3:2', 'D2:1'];

describe('LoCoMo metrics (hand-computed)', () => {
  it('recall_any@k is 1 once any gold id is inside the top k', () => {
    expect(recallAny(ranked, ['D1:3', 'D9:9'], 2)).toBe(0);
    expect(recallAny(ranked, ['D1:3', 'D9:9'], 3)).toBe(1);
    expect(recallAny(ranked, ['D7:7'], 50)).toBe(0);
  });

  it('recall_all@k needs every gold id', () => {
    expect(recallAll(ranked, ['D1:1', 'D3:2'], 3)).toBe(0);
    expect(recallAll(ranked, ['D1:1', 'D3:2'], 4)).toBe(1);
    expect(recallAll(ranked, [], 4)).toBe(0);
  });

  it('frac_recall@k is the fraction of gold found', () => {
    expect(fracRecall(ranked, ['D1:1', 'D3:2', 'D9:9'], 5)).toBeCloseTo(2 / 3, 10);
    expect(fracRecall(ranked, ['D1:1', 'D3:2', 'D9:9'], 1)).toBeCloseTo(1 / 3, 10);
    expect(fracRecall(['D1:1', 'D1:1'], ['D1:1', 'D2:2'], 2)).toBe(0.5);
  });

  it('MRR uses the first gold hit within the depth', () => {
    expect(reciprocalRank(ranked, ['D3:2', 'D2:1'])).toBe(0.25);
    expect(reciprocalRank(ranked, ['D3:2'], 3)).toBe(0);
    expect(reciprocalRank([], ['D1:1'])).toBe(0);
  });

  it('maps turns to sessions in first-seen order', () => {
    expect(toSessions(ranked)).toEqual(['S1', 'S2', 'S3']);
  });

  it('pools categories 1–4 and keeps cat 5 apart', () => {
    const scores = [
      scoreQuestion(1, ranked, ['D1:1', 'D3:2']), // any@1 1, all@5 1, rr 1
      scoreQuestion(2, ranked, ['D2:5']), // any@1 0, rr 0.5
      scoreQuestion(4, ranked, ['D9:9']), // nothing, rr 0
      scoreQuestion(5, ranked, ['D2:1']), // rr 0.2
    ];
    const g = groupByCategory(scores);
    expect(g['cat1-4'].n).toBe(3);
    expect(g['cat1-4'].mrr).toBeCloseTo((1 + 0.5 + 0) / 3, 10);
    expect(g['cat1-4'].recallAny[1]).toBeCloseTo(1 / 3, 10);
    expect(g['cat1-4'].recallAny[5]).toBeCloseTo(2 / 3, 10);
    expect(g['cat1-4'].recallAll[3]).toBeCloseTo(1 / 3, 10); // cat1 needs D3:2 at rank 4
    expect(g['cat1-4'].recallAll[5]).toBeCloseTo(2 / 3, 10);
    expect(g.cat5.n).toBe(1);
    expect(g.cat5.mrr).toBeCloseTo(0.2, 10);
    expect(g.cat3.n).toBe(0);
    expect(Number.isNaN(g.cat3.mrr)).toBe(true);
    expect(g['cat1-4'].sessionRecallAll[1]).toBeCloseTo(0, 10);
    expect(aggregate([]).n).toBe(0);
  });
});

describe('token-budget recall (hand-computed)', () => {
  it('keeps ranked items while ⌈chars/4⌉ fits the budget', async () => {
    const { withinTokenBudget } = await import('./metrics');
    const text: Record<string, string> = { a: 'x'.repeat(400), b: 'x'.repeat(1601), c: 'x'.repeat(4) };
    // a = 100 tokens, b = 401 tokens, c = 1 token
    expect(withinTokenBudget(['a', 'b', 'c'], (id) => text[id] ?? '', 500)).toEqual(['a']);
    expect(withinTokenBudget(['a', 'b', 'c'], (id) => text[id] ?? '', 501)).toEqual(['a', 'b']);
    expect(withinTokenBudget(['a', 'b', 'c'], (id) => text[id] ?? '', 1000)).toEqual(['a', 'b', 'c']);
    const s = scoreQuestion(1, ['a', 'b', 'c'], ['c'], (id) => text[id] ?? '');
    expect(s.budgetAny?.[500]).toBe(0);
    expect(s.budgetAny?.[1000]).toBe(1);
    expect(aggregate([s, scoreQuestion(2, ['c'], ['c'])]).budgetAny[1000]).toBe(1); // no-text item excluded
  });
});
