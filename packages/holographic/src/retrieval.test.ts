import path from 'node:path';
import type { Embedder } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { DenseIndex } from './dense';
import { FactStore, type FactStoreOptions } from './store';
import { tempDir, tempStore } from './test-helpers';

/**
 * A small, deterministic concept embedder: each axis is a concept with its surface words, so
 * "puppy" and "pets" are close although they share no characters. Records every call.
 */
class ConceptEmbedder implements Embedder {
  readonly id = 'test-concepts';
  readonly calls: string[][] = [];
  private static readonly AXES: readonly string[][] = [
    ['pet', 'pets', 'puppy', 'kitten', 'dog', 'cat', 'hamster'],
    ['music', 'guitar', 'piano', 'concert', 'song', 'band'],
    ['travel', 'trip', 'flight', 'visited', 'abroad', 'vacation'],
    ['work', 'office', 'meeting', 'deadline', 'boss'],
    ['food', 'dinner', 'recipe', 'cooked', 'pasta'],
  ];
  readonly dimensions = ConceptEmbedder.AXES.length + 1;
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    return texts.map((t) => {
      const v = new Float32Array(this.dimensions);
      for (const word of t.toLowerCase().match(/[a-z]+/g) ?? []) {
        const axis = ConceptEmbedder.AXES.findIndex((words) => words.includes(word));
        v[axis >= 0 ? axis : this.dimensions - 1]! += axis >= 0 ? 1 : 0.05;
      }
      return v;
    });
  }
}

const FILLER = [
  'The quarterly report is due on the first Monday of the month',
  'Sam repainted the garage door a dark green colour',
  'The library closes early on public holidays',
  'Rita is learning to knit scarves for winter',
  'The bus route along the river was cancelled',
  'Leo prefers tea without sugar in the afternoon',
];

describe('dense index', () => {
  it('returns the k best cosines, follows replacements and removals, and compacts', () => {
    const index = new DenseIndex('m', 2, 1);
    for (let i = 1; i <= 200; i++) index.set(i, [Math.cos(i / 100), Math.sin(i / 100)]);
    expect(index.size).toBe(200);
    const top = index.top([Math.cos(0.5), Math.sin(0.5)], 3);
    expect(top.map(([id]) => id)).toEqual([50, 49, 51]);
    expect(top[0]![1]).toBeCloseTo(1, 6);
    for (let i = 1; i <= 120; i++) if (i !== 50) index.remove(i);
    expect(index.size).toBe(81);
    expect(index.top([Math.cos(0.5), Math.sin(0.5)], 2).map(([id]) => id)).toEqual([50, 121]);
    index.set(50, [0, -1]);
    expect(index.top([0, -1], 1)[0]![0]).toBe(50);
    expect(index.top([1, 0, 0], 1)).toEqual([]);
  });
});

describe('default retrieval: semantic signal', () => {
  it('retrieves a fact that shares no word with the question through the dense pool', async () => {
    const facts = [...FILLER, 'Adopted a puppy from the shelter last spring'];
    const lexical = tempStore();
    lexical.addMany(facts.map((content) => ({ content })));
    expect((await lexical.recall('Which pets does the household have?')).map((f) => f.content)).not.toContain(
      'Adopted a puppy from the shelter last spring',
    );
    const hybrid = tempStore({ embedder: new ConceptEmbedder() });
    hybrid.addMany(facts.map((content) => ({ content })));
    const top = await hybrid.recall('Which pets does the household have?', { limit: 3 });
    expect(top[0]?.content).toBe('Adopted a puppy from the shelter last spring');
  });

  it('answers a multi-hop question whose two evidence facts share no words with each other', async () => {
    const embedder = new ConceptEmbedder();
    const store = tempStore({ embedder });
    store.addMany(
      [...FILLER, 'Nadia got a kitten named Pixel', 'Her brother keeps a hamster in his dorm'].map(
        (content) => ({ content }),
      ),
    );
    const top = (await store.recall('What pets are in Nadia family?', { limit: 3 })).map((f) => f.content);
    expect(top).toContain('Nadia got a kitten named Pixel');
    expect(top).toContain('Her brother keeps a hamster in his dorm');
  });

  it('embeds new facts lazily, in one batch with the query, and never twice', async () => {
    const embedder = new ConceptEmbedder();
    const store = tempStore({ embedder });
    store.addMany(FILLER.map((content) => ({ content })));
    expect(embedder.calls).toEqual([]);
    expect(store.pendingCount()).toBe(FILLER.length);
    await store.recall('guitar lessons');
    expect(embedder.calls).toHaveLength(1);
    expect(embedder.calls[0]).toEqual([...FILLER, 'guitar lessons']);
    expect(store.pendingCount()).toBe(0);
    await store.recall('piano concert');
    expect(embedder.calls[1]).toEqual(['piano concert']);
    const id = store.add('Mia plays guitar in a band');
    store.update(id, { content: 'Mia plays piano in a band' });
    await store.recall('music');
    expect(embedder.calls[2]).toEqual(['Mia plays piano in a band', 'music']);
    store.remove(id);
    expect(store.pendingCount()).toBe(0);
    expect((await store.recall('piano music')).map((f) => f.content)).not.toContain(
      'Mia plays piano in a band',
    );
  });

  it('reloads stored embeddings on reopen without re-embedding', async () => {
    const dir = tempDir();
    const dbPath = path.join(dir, 'memory_store.db');
    const first = new FactStore({ dbPath, embedder: new ConceptEmbedder() });
    first.addMany(
      [...FILLER, 'Adopted a puppy from the shelter last spring'].map((content) => ({ content })),
    );
    await first.embedPending();
    first.close();
    const embedder = new ConceptEmbedder();
    const second = tempStore({ dbPath, embedder });
    const top = await second.recall('pets at home', { limit: 1 });
    expect(top[0]?.content).toBe('Adopted a puppy from the shelter last spring');
    expect(embedder.calls).toEqual([['pets at home']]);
  });
});

describe('default retrieval: conversational neighbourhood', () => {
  it("brings in the reply that answers a matching turn, though it repeats none of the question's words", () => {
    const store = tempStore();
    store.addMany(
      [
        ...FILLER,
        'Ana: Did you ever finish the marathon in Berlin?',
        'Ben: Yes! Crossed the line in just under four hours.',
        ...FILLER.map((f) => `${f} again`),
      ].map((content) => ({ content })),
    );
    const top = store.search('Did Ben finish the Berlin marathon?', { limit: 3 }).map((f) => f.content);
    // Both turns lead; Ben's own answer may come first (the question names its speaker).
    expect(top.slice(0, 2).sort()).toEqual([
      'Ana: Did you ever finish the marathon in Berlin?',
      'Ben: Yes! Crossed the line in just under four hours.',
    ]);
  });

  it('does not borrow across facts written more than an hour apart', () => {
    const store = tempStore();
    const ids = store.addMany(
      [
        'Ana: Did you ever finish the marathon in Berlin?',
        'Unrelated note about the weekly plant watering',
      ].map((content) => ({ content })),
    );
    store.db.prepare("UPDATE facts SET created_at = '2020-01-01 00:00:00' WHERE fact_id = ?").run(ids[1]);
    const results = store.search('Berlin marathon', { limit: 5 });
    expect(results.map((f) => f.fact_id)).toEqual([ids[0]]);
  });
});

describe('default retrieval: pseudo-relevance feedback', () => {
  it('with feedback on, expansion terms from the best hit reach a fact without query words', () => {
    const facts = [
      ...FILLER,
      'Maria relocated to Lisbon in 2019 for the new job',
      'Lisbon trams are bright yellow and climb steep hills',
    ];
    const plain = tempStore({ weights: { context: 0 } });
    plain.addMany(facts.map((content) => ({ content })));
    expect(plain.search('Where did Maria relocate?').map((f) => f.content)).not.toContain(
      'Lisbon trams are bright yellow and climb steep hills',
    );
    const withFeedback = tempStore({ weights: { feedback: 0.5, context: 0 } });
    withFeedback.addMany(facts.map((content) => ({ content })));
    const top = withFeedback.search('Where did Maria relocate?').map((f) => f.content);
    expect(top[0]).toBe('Maria relocated to Lisbon in 2019 for the new job');
    expect(top).toContain('Lisbon trams are bright yellow and climb steep hills');
  });
});
