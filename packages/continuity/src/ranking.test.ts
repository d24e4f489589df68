import { describe, expect, it } from 'vitest';
import type { ContinuityProvider } from './provider';
import { Ranker, lengthRenormalisation, varints } from './retrieval/rank';
import { tempProvider } from './test-helpers';

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
