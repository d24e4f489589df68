/**
 * The default pipeline's chat signals on small hand-made corpora: speaker, contextual document
 * expansion (and its reply-to-a-question form), time expressions, the question discount, and
 * `occurredAt` episode boundaries. Each test compares the signal
 * on against the same store with the signal's weight at 0, so it asserts what the signal changes.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type FactStore, type FactStoreOptions, toSqlTimestamp } from './store';
import { tempDir, tempStore } from './test-helpers';
import { hasTimeExpression, isTemporalQuery, questionShare } from './text';

const rank = (store: FactStore, query: string, id: number): number =>
  store.search(query, { limit: 50, minTrust: 0 }).findIndex((r) => r.fact_id === id);

describe('speaker signal', () => {
  const chat = [
    'Ann Lee: I finally started my pottery class, it is so relaxing.',
    'Bob: Wow, Ann Lee, pottery sounds fun! I prefer hiking on weekends.',
    'Bob: Ann Lee, did you see the hiking photos from the pottery fair?',
    'Ann Lee: Not yet, I will look tonight.',
  ];

  it('ranks what the named person said above turns that only address them', () => {
    const store = tempStore({ weights: { context: 0, expansion: 0 } });
    const ids = store.addMany(chat.map((content) => ({ content })));
    const top = store.search('What class did Ann Lee start?', { limit: 1, minTrust: 0 })[0];
    expect(top?.fact_id).toBe(ids[0]);
    const off = tempStore({ weights: { context: 0, expansion: 0, speaker: 0 } });
    const offIds = off.addMany(chat.map((content) => ({ content })));
    // Without the signal, the question's words alone rank it no better.
    expect(rank(off, 'What class did Ann Lee start?', offIds[0]!)).toBeGreaterThanOrEqual(
      rank(store, 'What class did Ann Lee start?', ids[0]!),
    );
  });

  it('is inert for facts without a speaker prefix', () => {
    const a = tempStore();
    const b = tempStore({ weights: { speaker: 0 } });
    const facts = [
      'Jane Doe prefers Neovim',
      'The deploy uses Jane Doe keys',
      'Neovim config lives in dotfiles',
    ];
    a.addMany(facts.map((content) => ({ content })));
    b.addMany(facts.map((content) => ({ content })));
    const q = 'which editor does Jane Doe use';
    expect(a.search(q, { minTrust: 0 }).map((r) => r.fact_id)).toEqual(
      b.search(q, { minTrust: 0 }).map((r) => r.fact_id),
    );
  });
});

describe('contextual document expansion', () => {
  const turns = [
    'Kim: Did you ever try the ramen place near the station?',
    'Lou: Yes, last week! The broth was incredible.',
    'Kim: I adopted a kitten named Miso.',
    'Lou: Cute! What breed is it?',
    'Kim: My sister visited the station museum.',
  ];

  it("scores a reply by the words of the turn it answers, without changing the reply's text", () => {
    const score = (weights: FactStoreOptions['weights']) => {
      const store = tempStore({ weights });
      const ids = store.addMany(turns.map((content) => ({ content })));
      const hit = store
        .search('ramen place near the station', { limit: 10, minTrust: 0 })
        .find((r) => r.fact_id === ids[1]);
      expect(hit?.content).toBe(turns[1]);
      return hit!.score;
    };
    // The reply joins the pool through the neighbourhood either way; expansion adds its own match.
    expect(score({})).toBeGreaterThan(score({ expansion: 0 }));
  });

  it('does not borrow across episodes (previous fact stated more than an hour earlier)', () => {
    const store = tempStore({ weights: { context: 0 } });
    const ids = store.addMany([
      { content: turns[0]!, occurredAt: '2024-03-01T10:00:00Z' },
      { content: turns[1]!, occurredAt: '2024-03-08T10:00:00Z' },
    ]);
    const found = store
      .search('ramen place near the station', { limit: 10, minTrust: 0 })
      .map((r) => r.fact_id);
    expect(found).toContain(ids[0]);
    expect(found).not.toContain(ids[1]);
  });
});

describe('time expressions', () => {
  it('recognises temporal questions and anchored statements', () => {
    expect(isTemporalQuery('When did Kim adopt the kitten?')).toBe(true);
    expect(isTemporalQuery('What year did they move?')).toBe(true);
    expect(isTemporalQuery('What breed is the kitten?')).toBe(false);
    for (const t of ['I went there last week', 'back in June', 'three days ago', 'on 12/05/2023', 'in 2019'])
      expect(hasTimeExpression(t)).toBe(true);
    // "may" is left out of the month names: as a modal verb it is far more common.
    for (const t of ['I like the broth', 'You may like it'.toLowerCase()])
      expect(hasTimeExpression(t)).toBe(false);
  });

  it('lifts a statement anchored in time for a "when" question, and only then', () => {
    const facts = [
      'Kim: The kitten came from the shelter downtown, the shelter was lovely.',
      'Kim: We brought the kitten home from the shelter last Saturday.',
    ];
    const on = tempStore({ weights: { context: 0, expansion: 0 } });
    const ids = on.addMany(facts.map((content) => ({ content })));
    expect(
      on.search('When did Kim get the kitten from the shelter?', { limit: 1, minTrust: 0 })[0]?.fact_id,
    ).toBe(ids[1]);
    const off = tempStore({ weights: { context: 0, expansion: 0, temporal: 0 } });
    const offIds = off.addMany(facts.map((content) => ({ content })));
    expect(
      off.search('When did Kim get the kitten from the shelter?', { limit: 1, minTrust: 0 })[0]?.fact_id,
    ).toBe(offIds[0]);
    // Not a time question: the bonus does not apply.
    expect(
      on.search('Where did Kim get the kitten from the shelter?', { limit: 1, minTrust: 0 })[0]?.fact_id,
    ).toBe(ids[0]);
  });
});

describe('occurredAt', () => {
  it('is stored as created_at (UTC, SQLite format) and validated', () => {
    const store = tempStore();
    const [id] = store.addMany([{ content: 'Met the new team', occurredAt: '2023-05-08T13:56:00Z' }]);
    expect(store.get(id!)?.created_at).toBe('2023-05-08 13:56:00');
    const now = store.add('No date given');
    expect(store.get(now)?.created_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(toSqlTimestamp(new Date(Date.UTC(2020, 0, 2, 3, 4, 5)))).toBe('2020-01-02 03:04:05');
    expect(() => store.addMany([{ content: 'bad', occurredAt: 'not a date' }])).toThrow(/occurredAt/);
    expect(store.findByContent('bad')).toBeUndefined();
  });

  it('separates conversational episodes for the neighbourhood pass', () => {
    const facts = ['Kim: Did you ever try the ramen place?', 'Lou: Yes, it was great!'];
    const same = tempStore({ weights: { expansion: 0 } });
    const sameIds = same.addMany(facts.map((content) => ({ content, occurredAt: '2024-01-01T10:00:00Z' })));
    expect(same.search('ramen place', { minTrust: 0 }).map((r) => r.fact_id)).toContain(sameIds[1]);
    const apart = tempStore({ weights: { expansion: 0 } });
    const apartIds = apart.addMany([
      { content: facts[0]!, occurredAt: '2024-01-01T10:00:00Z' },
      { content: facts[1]!, occurredAt: '2024-02-01T10:00:00Z' },
    ]);
    expect(apart.search('ramen place', { minTrust: 0 }).map((r) => r.fact_id)).not.toContain(apartIds[1]);
  });
});

describe('questions and replies', () => {
  const scoreOf = (store: FactStore, query: string, id: number): number =>
    store.search(query, { limit: 50, minTrust: 0 }).find((r) => r.fact_id === id)?.score ?? 0;

  it('measures the share of sentences that ask', () => {
    expect(questionShare('What kind of books do you like?')).toBe(1);
    expect(questionShare('Wow, great! What kind of books do you like?')).toBe(0.5);
    expect(questionShare('I like books. [shares a photo of a shelf?]')).toBe(0);
    expect(questionShare('Books, mostly')).toBe(0);
    expect(questionShare('')).toBe(0);
  });

  it('ranks a question below the statement it echoes, while its reply still borrows its full score', () => {
    const chat = [
      'Bob: Which board games do you play with your family?',
      'Ann: Mostly Catan on Sundays.',
      'Ann: We play board games with the family every weekend.',
    ];
    const q = 'What board games does the family play?';
    const on = tempStore({ weights: { expansion: 0, reply: 0 } });
    const ids = on.addMany(chat.map((content) => ({ content, occurredAt: '2024-01-01T10:00:00Z' })));
    const off = tempStore({ weights: { expansion: 0, reply: 0, question: 0 } });
    const offIds = off.addMany(chat.map((content) => ({ content, occurredAt: '2024-01-01T10:00:00Z' })));
    // Without the discount the question's own words put it first.
    expect(off.search(q, { limit: 1, minTrust: 0 })[0]?.fact_id).toBe(offIds[0]);
    expect(on.search(q, { limit: 1, minTrust: 0 })[0]?.fact_id).toBe(ids[2]);
    expect(scoreOf(on, q, ids[0]!)).toBeLessThan(scoreOf(off, q, offIds[0]!));
    // The reply borrows from the question's undiscounted score: unchanged by the discount.
    expect(scoreOf(on, q, ids[1]!)).toBeCloseTo(scoreOf(off, q, offIds[1]!), 12);
  });

  it('leaves rankings of facts without questions unchanged', () => {
    const facts = ['Jane prefers Neovim', 'The deploy uses Jane keys', 'Neovim config lives in dotfiles'];
    const a = tempStore();
    const b = tempStore({ weights: { question: 0, reply: 0 } });
    a.addMany(facts.map((content) => ({ content })));
    b.addMany(facts.map((content) => ({ content })));
    const q = 'which editor does Jane use';
    expect(a.search(q, { minTrust: 0 }).map((r) => [r.fact_id, r.score])).toEqual(
      b.search(q, { minTrust: 0 }).map((r) => [r.fact_id, r.score]),
    );
  });

  it('lets a reply to a question inherit more of its topic than a reply to a statement', () => {
    const chat = [
      'Bob: Which books do you like to read?',
      "Ann: Charlotte's Web, ever since I was little.",
      'Bob: I like to read books on the train.',
      'Ann: Dune, although it is long.',
    ];
    const q = 'What books does Ann like to read?';
    const at = '2024-01-01T10:00:00Z';
    const on = tempStore({ weights: { context: 0, question: 0 } });
    const ids = on.addMany(chat.map((content) => ({ content, occurredAt: at })));
    const off = tempStore({ weights: { context: 0, question: 0, reply: 0 } });
    const offIds = off.addMany(chat.map((content) => ({ content, occurredAt: at })));
    expect(rank(on, q, ids[1]!)).toBeLessThan(rank(on, q, ids[3]!));
    expect(scoreOf(on, q, ids[1]!)).toBeGreaterThan(scoreOf(off, q, offIds[1]!));
    // The reply to a statement keeps the plain expansion weight: the gap between the two replies grows.
    const gap = (store: FactStore, list: number[]) =>
      scoreOf(store, q, list[1]!) - scoreOf(store, q, list[3]!);
    expect(gap(on, ids)).toBeGreaterThan(gap(off, offIds));
  });
});
