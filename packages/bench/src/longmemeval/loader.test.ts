import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadLongMemEval, ndcgAny, parseLongMemEval, turnRankingToSessions } from './loader';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'tiny.json');

describe('LongMemEval loader (hand-written fixture in the official format)', () => {
  const items = loadLongMemEval(fixture);

  it('builds user-only session documents and turn documents', () => {
    expect(items).toHaveLength(2);
    const a = items[0]!;
    expect(a.questionType).toBe('single-session-user');
    expect(a.sessionDocs.map((d) => d.id)).toEqual(['sharegpt_yywfIrx_0', 'answer_280352e9']);
    expect(a.sessionDocs[1]!.text).toBe(
      'I graduated with a degree in Business Administration and want a new job. Great, start with the summary section.',
    );
    expect(a.sessionDocs[1]!.date).toBe('2023/05/22 (Mon) 10:05');
    expect(a.turnDocs.map((d) => d.id)).toEqual([
      'sharegpt_yywfIrx_0_1',
      'answer_280352e9_1',
      'answer_280352e9_3',
    ]);
    expect(a.goldSessions).toEqual(['answer_280352e9']);
    expect(a.goldTurns).toEqual(['answer_280352e9_1']);
    expect(a.scorable).toBe(true);
  });

  it('skips abstention and assistant-only evidence', () => {
    const b = items[1]!;
    expect(b.abstention).toBe(true);
    expect(b.goldSessions).toEqual([]); // has_answer only on the assistant side → "noans" upstream
    expect(b.scorable).toBe(false);
  });

  it('rejects malformed input with a clear error', () => {
    expect(() => parseLongMemEval({})).toThrow(/array/);
    expect(() =>
      parseLongMemEval([
        { question_id: 'x', question: 'q', haystack_session_ids: ['a'], haystack_sessions: [] },
      ]),
    ).toThrow(/equal length/);
  });

  it('turn2session widens to distinct sessions; nDCG is binary', () => {
    expect(
      turnRankingToSessions(['s1_1', 's1_3', 's2_1', 's1_5', 's3_1'], (id) => id.replace(/_\d+$/, '')),
    ).toEqual(['s1', 's2', 's3']);
    expect(ndcgAny(['x', 'g'], ['g'], 2)).toBeCloseTo(1 / Math.log2(3), 10);
    expect(ndcgAny(['g'], ['g'], 1)).toBe(1);
    expect(ndcgAny(['x'], ['g'], 1)).toBe(0);
  });
});

describe('LongMemEval protocol runner', () => {
  it('scores BM25 on the fixture with the official gold (session granularity)', async () => {
    const { createBm25Retriever } = await import('../retrievers/bm25');
    const { scoreLongMemEval } = await import('./suite');
    const items = loadLongMemEval(fixture);
    const r = await scoreLongMemEval(createBm25Retriever({ inMemory: true }), items, 'session');
    expect(r.overall.n).toBe(1); // the _abs question is skipped
    expect(r.overall.any[1]).toBe(1);
    expect(r.byType['single-session-user']?.all[1]).toBe(1);
    const t = await scoreLongMemEval(createBm25Retriever({ inMemory: true }), items, 'turn→session');
    expect(t.overall.any[1]).toBe(1);
  });
});
