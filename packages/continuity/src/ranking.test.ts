import { describe, expect, it } from 'vitest';
import type { ContinuityProvider } from './provider';
import { analyzeQuery } from './retrieval/query';
import {
  DEFAULT_WEIGHTS,
  Ranker,
  askedShare,
  lengthRenormalisation,
  questionShare,
  varints,
} from './retrieval/rank';
import { asksWhen, saysWhen } from './retrieval/time';
import { call, tempProvider } from './test-helpers';

function add(p: ContinuityProvider, title: string, summary: string, entities: string[] = []) {
  return p.recordStore!.add({ kind: 'corpus_note', title, summary, entities }).record;
}

async function ranked(p: ContinuityProvider, query: string) {
  const out = await p.handleToolCall('continuity_search', { query, limit: 10 });
  return (JSON.parse(out) as { results: Array<{ id: string; match: string; score: number }> }).results;
}

describe('ranking (decision 0905)', () => {
  it('a neighbour that borrows activation ranks below the record it borrowed from', async () => {
    const p = tempProvider();
    // A transcript: the answer, then the other speaker's reply repeating part of it.
    const answer = add(p, 'Caroline', 'I went to an LGBTQ support group yesterday and it was so powerful.', [
      'Caroline',
    ]);
    const reply = add(p, 'Melanie', 'An LGBTQ support group sounds so powerful!', ['Melanie']);
    p.recordStore!.link(answer.id, reply.id, 'next_segment', 1);
    for (let i = 0; i < 30; i++)
      add(p, 'Melanie', `Filler turn ${i} about painting, pottery and camping trips.`);

    const results = await ranked(p, 'When did Caroline go to the LGBTQ support group?');
    // Before: the reply (its own match plus half the answer's score) ranked first.
    expect(results.map((r) => r.id).slice(0, 2)).toEqual([answer.id, reply.id]);
  });

  it('a longer record is not sunk by length: the detailed answer outranks a one-line mention', async () => {
    const p = tempProvider();
    const mention = add(p, 'Jon', 'Still working on opening a dance studio.');
    const detailed = add(
      p,
      'Jon',
      'The official opening of the dance studio is tomorrow night. I have been working hard on the floors, ' +
        'the lights and the sound system, and the first classes for kids and adults are booked.',
    );
    for (let i = 0; i < 30; i++)
      add(p, 'Gina', `Filler turn ${i} about the clothing store, ads and customers.`);
    const results = await ranked(p, 'When is the official opening of the dance studio?');
    expect(results.map((r) => r.id).slice(0, 2)).toEqual([detailed.id, mention.id]);
  });

  it('a message that asks when prefers the record that says when (weights.temporal)', async () => {
    const p = tempProvider();
    const plain = add(p, 'Ana', 'Ana moved to Lisbon.', ['Ana']);
    const dated = add(p, 'Ana', 'Ana moved to Lisbon last spring, after two years of planning it.', ['Ana']);
    for (let i = 0; i < 30; i++) add(p, 'Ana', `Filler note ${i} about gardening, cooking and the weather.`);

    // Without a question about time, the shorter record that says the same words ranks first.
    expect((await ranked(p, 'Where did Ana move to Lisbon from?')).map((r) => r.id).slice(0, 2)).toEqual([
      plain.id,
      dated.id,
    ]);
    // Asked when, the record that dates the move answers it (before: the same order as above).
    const query = 'When did Ana move to Lisbon?';
    expect((await ranked(p, query)).map((r) => r.id).slice(0, 2)).toEqual([dated.id, plain.id]);
    const why = await call(p, 'continuity_explain', { query });
    const rows = why.candidates as Array<{ record_id: string; signals: { temporal: number } }>;
    expect(rows.find((c) => c.record_id === dated.id)!.signals.temporal).toBe(DEFAULT_WEIGHTS.temporal);
    expect(rows.find((c) => c.record_id === plain.id)!.signals.temporal).toBe(0);
  });

  it('a date alone answers nothing: the temporal signal needs a word of the message', async () => {
    const p = tempProvider();
    add(p, 'Ana', 'Ana moved to Lisbon.', ['Ana']);
    const other = add(p, 'Note', 'The plumber comes next Tuesday at 9.', []);
    for (let i = 0; i < 30; i++) add(p, 'Ana', `Filler note ${i} about gardening, cooking and the weather.`);
    const results = await ranked(p, 'When did Ana move to Lisbon?');
    expect(results.map((r) => r.id)).not.toContain(other.id);
  });

  it('a passage that answers a question inherits its words: the answer outranks the question', async () => {
    const p = tempProvider();
    // A transcript: a question, then its answer, which repeats none of the question's words.
    const question = add(p, 'Melanie', 'What motivated you to pursue counseling?', ['Melanie']);
    const answer = add(p, 'Caroline', 'My own journey and the support I got made a huge difference.', [
      'Caroline',
    ]);
    p.recordStore!.link(question.id, answer.id, 'next_segment', 1);
    const aside = add(p, 'Caroline', 'Counseling paperwork is a lot to pursue, honestly.', ['Caroline']);
    for (let i = 0; i < 30; i++)
      add(p, 'Melanie', `Filler turn ${i} about painting, pottery and camping trips.`);

    const results = await ranked(p, 'What motivated Caroline to pursue counseling?');
    // Before: the question (every word) and the aside (two of them) ranked above the answer.
    expect(results.map((r) => r.id).slice(0, 3)).toEqual([answer.id, question.id, aside.id]);
    // Explained: the inherited share is its own signal; the record's own words stay `matched`.
    const why = await call(p, 'continuity_explain', {
      query: 'What motivated Caroline to pursue counseling?',
    });
    const row = (
      why.candidates as Array<{
        record_id: string;
        matched: string[];
        inherited?: string[];
        signals: { reply: number };
      }>
    ).find((c) => c.record_id === answer.id)!;
    expect(row.matched).toEqual(['caroline']);
    expect(row.inherited).toEqual(['motivated', 'pursue', 'counseling']);
    expect(row.signals.reply).toBeGreaterThan(0.5);
  });

  it('a passage that ends by asking is answered whole by the next one, greeting and all', async () => {
    const p = tempProvider();
    // The question comes after two remarks: by its sentences, a third of the passage asks.
    const question = add(p, 'Maria', 'Wow, John! That sounds awesome. What inspired you to join the march?', [
      'Maria',
    ]);
    const answer = add(p, 'John', 'I have always respected the military and wanted to show my support.', [
      'John',
    ]);
    p.recordStore!.link(question.id, answer.id, 'next_segment', 1);
    for (let i = 0; i < 30; i++) add(p, 'Maria', `Filler turn ${i} about the shelter, yoga and the garden.`);

    const results = await ranked(p, 'What inspired John to join the march?');
    // Before: the answer inherited a third of the question's words and ranked below it.
    expect(results.map((r) => r.id).slice(0, 2)).toEqual([answer.id, question.id]);
    expect(askedShare('Wow, John! That sounds awesome. What inspired you to join the march?')).toBe(1);
    expect(askedShare('What inspired you? I joined for my dad.')).toBe(0.5);
    expect(askedShare('I joined for my dad.')).toBe(0);
  });

  it('the answered questions follow the store: an edge linked after a search counts in the next one', async () => {
    const p = tempProvider();
    const question = add(p, 'Melanie', 'What motivated you to pursue counseling?', ['Melanie']);
    const answer = add(p, 'Caroline', 'My own journey and the support I got made a huge difference.', [
      'Caroline',
    ]);
    for (let i = 0; i < 30; i++)
      add(p, 'Melanie', `Filler turn ${i} about painting, pottery and camping trips.`);
    const query = 'What motivated Caroline to pursue counseling?';
    expect((await ranked(p, query))[0]!.id).toBe(question.id);
    p.recordStore!.link(question.id, answer.id, 'next_segment', 1);
    // Before: the cached lookup (no question before the answer) outlived the new edge.
    expect((await ranked(p, query))[0]!.id).toBe(answer.id);
  });

  it('only a passage after a question inherits, and only through a positional edge', async () => {
    const p = tempProvider();
    const statement = add(p, 'Melanie', 'I pursued counseling for two years.', ['Melanie']);
    const afterStatement = add(p, 'Caroline', 'My own journey made a huge difference.', ['Caroline']);
    p.recordStore!.link(statement.id, afterStatement.id, 'next_segment', 1);
    const question = add(p, 'Melanie', 'Why did you pursue counseling?', ['Melanie']);
    const related = add(p, 'Caroline', 'The support I got made all the difference.', ['Caroline']);
    p.recordStore!.link(question.id, related.id, 'related_to', 1);
    for (let i = 0; i < 30; i++)
      add(p, 'Melanie', `Filler turn ${i} about painting, pottery and camping trips.`);
    const why = await call(p, 'continuity_explain', { query: 'Why did Caroline pursue counseling?' });
    const reply = new Map(
      (why.candidates as Array<{ record_id: string; signals: { reply: number } }>).map((c) => [
        c.record_id,
        c.signals.reply,
      ]),
    );
    expect(reply.get(afterStatement.id)).toBe(0);
    expect(reply.get(related.id)).toBe(0);
  });

  it('a positional neighbour lends less than an association: it does not pass a hit with more of its own evidence', async () => {
    const p = tempProvider();
    // A transcript: a strong hit and the next turn, which barely matches; elsewhere, a turn that
    // matches well in its own words.
    const source = add(p, 'Gina', 'My online clothing store had its best week, the store ads finally work.', [
      'Gina',
    ]);
    const next = add(p, 'Jon', 'Nice one! The store sounds busy.', ['Jon']);
    p.recordStore!.link(source.id, next.id, 'next_segment', 1);
    // The same kind of remark, linked to the hit by an explicit association.
    const linked = add(p, 'Jon', 'Great news! The store sounds busy.', ['Jon']);
    p.recordStore!.link(source.id, linked.id, 'related_to', 1);
    const own = add(p, 'Gina', 'The store is doing great, a wild ride.', ['Gina']);
    for (let i = 0; i < 30; i++) add(p, 'Jon', `Filler turn ${i} about the dance studio, floors and music.`);
    const query = 'How are the online store ads of Gina doing?';
    const results = await ranked(p, query);
    // Before: the neighbour borrowed half the source's score and passed the other hit; the
    // association still does.
    expect(results.map((r) => r.id).slice(0, 4)).toEqual([source.id, linked.id, own.id, next.id]);
  });

  it('neighbours lifted to the same ceiling keep the order of their own evidence', async () => {
    const p = tempProvider();
    // Both neighbours of the strong hit borrow up to just below it; the earlier one matches less.
    const weaker = add(p, 'Gina', 'The pottery class glaze was fun.');
    const source = add(p, 'Jon', 'My pottery class fired the glaze in the big kiln today.');
    const stronger = add(p, 'Gina', 'The pottery class glaze and the kiln were fun.');
    // Explicit associations: they lend in full (a positional edge lends less, see below).
    p.recordStore!.link(weaker.id, source.id, 'related_to', 1);
    p.recordStore!.link(source.id, stronger.id, 'related_to', 1);
    for (let i = 0; i < 30; i++)
      add(p, 'Gina', `Filler turn ${i} about the clothing store, ads and customers.`);
    const results = await ranked(p, 'pottery class glaze kiln fired');
    // Before: the two tied at the ceiling and the earlier record (less evidence) came first.
    expect(results.map((r) => r.id).slice(0, 3)).toEqual([source.id, stronger.id, weaker.id]);
    expect(results[1]!.score).toBe(results[2]!.score);
  });

  it('a record two equal seeds reach follows the older seed, whatever the random ids sort as', async () => {
    const parents: string[] = [];
    for (const [first, second] of [
      ['ctx_aaaaaaaaaaaa', 'ctx_bbbbbbbbbbbb'],
      ['ctx_yyyyyyyyyyyy', 'ctx_aaaaaaaaaaaa'],
    ] as const) {
      const p = tempProvider();
      const store = p.recordStore!;
      const note = (id: string, summary: string) =>
        store.add({ id, kind: 'corpus_note', title: 'Jon', summary, entities: [] }).record;
      const older = note(first, 'The pottery class fired the glaze in the kiln.');
      // The same words in another order: an equal score, not a duplicate.
      const newer = note(second, 'The kiln fired the glaze in the pottery class.');
      const context = note('ctx_cccccccccccc', 'We went out for dinner afterwards.');
      store.link(older.id, context.id, 'related_to', 1);
      store.link(newer.id, context.id, 'related_to', 1);
      for (let i = 0; i < 30; i++)
        add(p, 'Gina', `Filler turn ${i} about the clothing store, ads and customers.`);
      const ranker = new Ranker(store, null);
      const ranked = await ranker.rank(analyzeQuery('pottery glaze kiln', ranker.knownEntities()), {
        limit: 10,
        scopes: {},
        graphDepth: 2,
        weights: DEFAULT_WEIGHTS,
      });
      const score = (id: string) => ranked.find((c) => c.record.id === id)?.direct;
      expect(score(newer.id)).toBe(score(older.id));
      const reached = ranked.find((c) => c.record.id === context.id);
      expect(reached?.via).toBe('associated');
      parents.push(reached?.parent === older.id ? 'older' : 'newer');
    }
    // Before: the parent was whichever seed's id sorted first ('newer' in the second store).
    expect(parents).toEqual(['older', 'older']);
  });

  it('what asks when and what says when', () => {
    for (const q of ['When did Ana move?', 'What day is the demo?', 'Since when do we pin Node 20?'])
      expect(asksWhen(q)).toBe(true);
    for (const q of ['Where did Ana move?', 'What is the time zone of the server?'])
      expect(asksWhen(q)).toBe(false);
    for (const t of [
      'We shipped it last week.',
      'The demo is on Friday.',
      'Moved in March 2021.',
      'Renewed 2024-03-05.',
      'Two days ago the build broke.',
      'Every summer we go camping.',
    ])
      expect(saysWhen(t)).toBe(true);
    for (const t of ['Prefers dark mode.', 'We may use pnpm.', 'The build broke.'])
      expect(saysWhen(t)).toBe(false);
  });

  it('question share counts the sentences that ask', () => {
    expect(questionShare('What motivated you?')).toBe(1);
    expect(questionShare('Wow, congrats! What motivated you to pursue counseling?')).toBe(0.5);
    expect(questionShare('It was great. Really? See you soon.')).toBeCloseTo(1 / 3);
    expect(questionShare('No questions here. None at all.')).toBe(0);
    expect(questionShare('')).toBe(0);
  });

  it('length renormalisation is neutral at the mean length and milder than FTS5 elsewhere', () => {
    expect(lengthRenormalisation(1)).toBeCloseTo(1, 12);
    // Twice the mean: FTS5 (b = 0.75) divides by 1 + 1.2 × 1.75, we by 1 + 1.2 × 1.3.
    expect(lengthRenormalisation(2)).toBeCloseTo((1 + 1.2 * 1.75) / (1 + 1.2 * 1.3), 12);
    expect(lengthRenormalisation(0.5)).toBeLessThan(1);
    expect(lengthRenormalisation(3)).toBeGreaterThan(lengthRenormalisation(2));
  });

  it('reads FTS5 document sizes as SQLite varints', () => {
    expect(varints(Uint8Array.from([0x02, 0x03, 0x0d]))).toEqual([2, 3, 13]);
    expect(varints(Uint8Array.from([0x81, 0x00, 0x7f]))).toEqual([128, 127]);
    expect(varints(Uint8Array.from([0x82, 0x80, 0x01]))).toEqual([(2 * 128 + 0) * 128 + 1]);
  });

  it("the BM25 pool skips what is not searched without joining records, and is the join's pool", async () => {
    const p = tempProvider();
    const store = p.recordStore!;
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const extra = ' and the kiln'.repeat(i % 5);
      ids.push(add(p, 'Jon', `Pottery note ${i}: the glaze${extra} was fired today.`).id);
    }
    const ranker = new Ranker(store, null);
    const query = analyzeQuery('kiln glaze fired');
    const joined = (filter: string, pool: number) =>
      (
        store.db
          .prepare(
            `SELECT r.id FROM records_fts JOIN records r ON r.seq = records_fts.rowid
             WHERE records_fts MATCH '"kiln" OR "glaze" OR "fired"' ${filter}
             ORDER BY bm25(records_fts, 1.0, 1.0, 0.5, 1.0, 1.0, 0.3) LIMIT ${pool}`,
          )
          .all() as Array<{ id: string }>
      ).map((r) => r.id);
    // Archive and retract some of the best matches.
    const best = joined('', 10);
    for (const i of [0, 2, 3, 7]) store.transition(best[i]!, 'archive');
    store.transition(best[5]!, 'retract');
    for (const pool of [3, 8, 100]) {
      const active = await ranker.rank(query, { limit: 3, pool, graphDepth: 0 });
      expect(active.map((c) => c.record.id).sort()).toEqual(joined("AND r.status = 'active'", pool).sort());
      const all = await ranker.rank(query, { limit: 3, pool, graphDepth: 0, includeInactive: true });
      expect(all.map((c) => c.record.id).sort()).toEqual(joined('', pool).sort());
    }
    // The count of records to skip follows the store.
    store.transition(joined("AND r.status = 'active'", 1)[0]!, 'archive');
    const after = await ranker.rank(query, { limit: 3, pool: 3, graphDepth: 0 });
    expect(after.map((c) => c.record.id).sort()).toEqual(joined("AND r.status = 'active'", 3).sort());
  });

  it('relative lengths agree with the rows FTS5 indexed', () => {
    const p = tempProvider();
    const short = add(p, 'A', 'one two three');
    const long = add(p, 'B', 'one two three four five six seven eight nine');
    const ranker = new Ranker(p.recordStore!, null);
    const seqOf = (id: string) =>
      (p.recordStore!.db.prepare('SELECT seq FROM records WHERE id = ?').get(id) as { seq: number }).seq;
    const lengths = ranker.relativeLengths([seqOf(short.id), seqOf(long.id)]);
    // Title + summary tokens, 1 + 3 and 1 + 9, over their mean of 7.
    expect(lengths.get(seqOf(short.id))).toBeCloseTo(4 / 7, 9);
    expect(lengths.get(seqOf(long.id))).toBeCloseTo(10 / 7, 9);
  });
});
