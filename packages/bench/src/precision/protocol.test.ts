import { describe, expect, it } from 'vitest';
import type { LocomoConversation, LocomoTurn, Retriever } from '../locomo/types';
import { lineAttribution } from './attribution';
import { loadLiveSessions, loadOffTopicQuestions } from './data';
import { measurePrecision } from './measure';
import { injectionMetrics, summarisePrecision } from './metrics';
import { NoPrefetchError, runPrecision } from './protocol';
import { DEV_SPLIT, liveProbeStores, locomoProbeStores } from './scenarios';
import type { ProbeStore } from './types';

const turn = (diaId: string, text: string, i: number): LocomoTurn => ({
  conversationId: 'c',
  diaId,
  speaker: '',
  text,
  sessionIndex: 1,
  sessionDate: '',
  turnIndex: i,
});

describe('attribution', () => {
  it('one record per line that holds a stored text; the longest text wins; headers are not records', () => {
    const attribute = lineAttribution([
      turn('a', 'Thanks!', 0),
      turn('b', 'Ann: Thanks! I loved the pottery class.', 1),
      turn('c', 'Bob: I went hiking.', 2),
      turn('d', 'Bob: I went hiking.', 3),
    ]);
    const block =
      '## Memory\n- [0.5] [id 2] Ann: Thanks! I loved the pottery class.\n- Bob: I went hiking.\n';
    expect(attribute(block)).toEqual([['b'], ['c', 'd']]);
    expect(attribute('')).toEqual([]);
  });
});

describe('metrics', () => {
  it('precision over questions that injected; recall over gold; activation is any injection', () => {
    const m = injectionMetrics([
      { kind: 'answerable', gold: 1, records: 2, relevant: 1, found: 1, chars: 100 },
      { kind: 'answerable', gold: 2, records: 1, relevant: 1, found: 1, chars: 50 },
      { kind: 'answerable', gold: 1, records: 0, relevant: 0, found: 0, chars: 0 },
    ]);
    expect(m.n).toBe(3);
    expect(m.activation).toBeCloseTo(2 / 3, 12);
    expect(m.precision).toBeCloseTo((0.5 + 1) / 2, 12);
    expect(m.microPrecision).toBeCloseTo(2 / 3, 12);
    expect(m.recallAny).toBeCloseTo(2 / 3, 12);
    expect(m.recallFrac).toBeCloseTo((1 + 0.5 + 0) / 3, 12);
    expect(m.chars).toBeCloseTo(50, 12);
    const s = summarisePrecision([
      { kind: 'cross', gold: 0, records: 1, relevant: 0, found: 0, chars: 10 },
      { kind: 'cross', gold: 0, records: 0, relevant: 0, found: 0, chars: 0 },
      { kind: 'off-topic', gold: 0, records: 0, relevant: 0, found: 0, chars: 0 },
    ]);
    expect(s.cross.activation).toBe(0.5);
    expect(s.offTopic.activation).toBe(0);
    expect(Number.isNaN(s.answerable.precision)).toBe(true);
  });
});

describe('scenarios', () => {
  const conv = (id: string, questions: Array<[string, number, string[]]>): LocomoConversation => ({
    conversationId: id,
    index: 0,
    speakerA: 'A',
    speakerB: 'B',
    turns: [turn('D1:1', `${id} turn`, 0)],
    questions: questions.map(([question, category, gold], qaIndex) => ({
      conversationId: id,
      qaIndex,
      question,
      category,
      gold,
      rawEvidence: gold,
    })),
    sessionCount: 1,
  });
  const convs = [
    conv('x', [
      ['x1?', 1, ['D1:1']],
      ['x5?', 5, ['D1:1']],
      ['x-empty?', 4, []],
    ]),
    conv('y', [['y1?', 2, ['D1:1']]]),
    conv('z', [['z1?', 4, ['D1:1']]]),
  ];

  it('LoCoMo: own answerable questions, other conversations as cross, then off-topic', () => {
    const [x] = locomoProbeStores(convs, ['capital of Peru?']);
    expect(x!.probes.map((p) => `${p.kind}:${p.query}`)).toEqual([
      'answerable:x1?',
      'cross:y1?',
      'cross:z1?',
      'off-topic:capital of Peru?',
    ]);
    const [, , z] = locomoProbeStores(convs, [], 'next');
    expect(z!.probes.map((p) => p.query)).toEqual(['z1?', 'x1?', 'x-empty?']);
  });

  it('labels each probe with its side of the tuning split; an off-topic question of the other side has none', () => {
    const named = [conv(DEV_SPLIT.locomo[0]!, [['d?', 4, ['D1:1']]]), conv('conv-99', [['h?', 4, ['D1:1']]])];
    const [dev, held] = locomoProbeStores(named, ['even?', 'odd?']);
    expect(dev!.probes.map((p) => `${p.kind}:${p.split}`)).toEqual([
      'answerable:dev',
      'cross:dev',
      'off-topic:dev',
      'off-topic:undefined',
    ]);
    expect(held!.probes.map((p) => `${p.kind}:${p.split}`)).toEqual([
      'answerable:held-out',
      'cross:held-out',
      'off-topic:undefined',
      'off-topic:held-out',
    ]);
  });

  it('the committed question sets load: two live sessions of thirty facts, 120 off-topic questions', () => {
    const sessions = loadLiveSessions();
    expect(sessions.map((s) => s.facts.length)).toEqual([30, 30]);
    for (const s of sessions)
      for (const q of s.questions) for (const g of q.gold) expect(s.facts.map((f) => f.id)).toContain(g);
    expect(loadOffTopicQuestions()).toHaveLength(120);
    const stores = liveProbeStores(sessions, ['hi']);
    expect(stores[0]!.probes.filter((p) => p.kind === 'cross')).toHaveLength(sessions[1]!.questions.length);
    expect(stores.map((s) => s.probes[0]!.split)).toEqual(['dev', 'held-out']);
  });
});

describe('runner', () => {
  const store: ProbeStore = {
    id: 's',
    turns: [turn('a', 'Ann likes tea', 0), turn('b', 'Bob likes coffee', 1)],
    probes: [
      { query: 'what does Ann drink?', kind: 'answerable', gold: ['a'] },
      { query: 'capital of Peru?', kind: 'off-topic', gold: [] },
    ],
  };
  /** Injects both facts for every question when the bar is 0, only Ann's for Ann otherwise. */
  const fake = (events: string[]): Retriever => ({
    name: 'fake',
    sweep: { label: 'bar', values: [0, 1], default: 1 },
    async open(id, setting) {
      events.push(`open ${id} ${setting}`);
      return {
        async ingest() {},
        async search() {
          return [];
        },
        async prefetch(q) {
          if (setting === 0) return '# mem\n- Ann likes tea\n- Bob likes coffee';
          return q.includes('Ann') ? '# mem\n- Ann likes tea' : '';
        },
        async close() {
          events.push('close');
        },
      };
    },
  });

  it('attributes each injection and sweeps the knob with a fresh store per value', async () => {
    const events: string[] = [];
    const result = await measurePrecision(fake(events), [store]);
    expect(events).toEqual(['open s undefined', 'close', 'open s 0', 'close', 'open s 1', 'close']);
    expect(result.summary.answerable.precision).toBe(1);
    expect(result.summary.offTopic.activation).toBe(0);
    const [loose, strict] = result.curve!.points;
    expect(loose!.summary.answerable.precision).toBe(0.5);
    expect(loose!.summary.offTopic.activation).toBe(1);
    expect(strict!.summary.answerable.recallAny).toBe(1);
    expect(result.splits).toBeUndefined();
  });

  it('summarises each side of the tuning split on its own', async () => {
    const dev: ProbeStore = { ...store, id: 'd', probes: store.probes.map((p) => ({ ...p, split: 'dev' })) };
    const heldOut: ProbeStore = {
      ...store,
      id: 'h',
      probes: [
        { query: 'what does Bob drink?', kind: 'answerable', gold: ['b'], split: 'held-out' },
        { query: 'where does Ann live?', kind: 'cross', gold: [], split: 'held-out' },
        { query: 'capital of Peru?', kind: 'off-topic', gold: [] },
      ],
    };
    const result = await measurePrecision(fake([]), [dev, heldOut], { values: [] });
    expect(result.splits!.dev.answerable.recallAny).toBe(1);
    expect(result.splits!.dev.offTopic.n).toBe(1);
    expect(result.splits!.heldOut.answerable.recallAny).toBe(0);
    expect(result.splits!.heldOut.cross.activation).toBe(1);
    expect(result.splits!.heldOut.offTopic.n).toBe(0);
    expect(result.summary.offTopic.n).toBe(2);
  });

  it('refuses a backend without a prefetch', async () => {
    const none: Retriever = {
      name: 'none',
      async open() {
        return {
          async ingest() {},
          async search() {
            return [];
          },
          async close() {},
        };
      },
    };
    await expect(runPrecision(none, [store])).rejects.toBeInstanceOf(NoPrefetchError);
  });
});
