/**
 * Relevance (issue #19): the absolute 0–1 evidence that a fact is about the query, and the signals
 * that may not carry a fact into the results on their own (neighbourhood, time words, similarity
 * below the model's threshold).
 */
import type { Embedder } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SEMANTIC_THRESHOLD,
  isFiller,
  lexicalEvidence,
  nameStems,
  relevanceOf,
  semanticStrength,
  semanticThresholdFor,
} from './relevance';
import { tempStore } from './test-helpers';

describe('relevance parts', () => {
  it('names are capitalised words that do not start a sentence', () => {
    expect([...nameStems("When is Ifeoma's wedding?")]).toEqual(['ifeoma']);
    expect([...nameStems('Where does Sam work? Sam said Lisbon.')]).toEqual(['sam', 'lisbon']);
    expect([...nameStems("I'm sure I told you: Maria knows")]).toEqual([]);
    expect([...nameStems('what is my cat called')]).toEqual([]);
  });

  it('filler is a message made only of greetings, thanks and acknowledgements', () => {
    expect(isFiller(['thanks'])).toBe(true);
    expect(isFiller(['ok', 'sounds', 'good'])).toBe(true);
    expect(isFiller(['thanks', 'deploy'])).toBe(false);
    expect(isFiller([])).toBe(false);
  });

  it('lexical evidence: share of the query covered, names double, a lone common word weak', () => {
    const rare = 3;
    const terms = [
      { id: 1, idf: 3, name: false },
      { id: 2, idf: 3, name: false },
    ];
    expect(lexicalEvidence(terms, (id) => id === 1 || id === 2, rare)).toBeCloseTo(1, 12);
    expect(lexicalEvidence(terms, (id) => id === 1, rare)).toBeCloseTo(0.5, 12);
    // The name the question is about weighs double, matched or not.
    const named = [
      { id: 1, idf: 3, name: true },
      { id: 2, idf: 3, name: false },
    ];
    expect(lexicalEvidence(named, (id) => id === 1, rare)).toBeCloseTo(2 / 3, 12);
    expect(lexicalEvidence(named, (id) => id === 2, rare)).toBeCloseTo(1 / 3, 12);
    // One common word ("thanks" in a chat log) is weak evidence even when it is the whole query.
    expect(lexicalEvidence([{ id: 7, idf: 0.5, name: false }], () => true, rare)).toBeCloseTo(0.3, 12);
    expect(lexicalEvidence(terms, () => false, rare)).toBe(0);
  });

  it('semantic strength counts only above the threshold; relevance is clamped and discounts questions', () => {
    expect(semanticStrength(0.45, 0.45)).toBe(0);
    expect(semanticStrength(0.2, 0.45)).toBe(0);
    expect(semanticStrength(1, 0.45)).toBe(1);
    expect(semanticStrength(0.725, 0.45)).toBeCloseTo(0.5, 12);
    expect(relevanceOf(1, 1, 0, 0.4)).toBe(1);
    expect(relevanceOf(0.5, 0, 1, 0.4)).toBeCloseTo(0.3, 12);
    expect(semanticThresholdFor('model2vec:potion-base-2M-int8')).toBe(0.45);
    expect(semanticThresholdFor('openai:text-embedding-3-small')).toBe(DEFAULT_SEMANTIC_THRESHOLD);
  });
});

/** A toy embedder: texts mentioning a fruit point one way, everything else another, with a tilt. */
class FruitEmbedder implements Embedder {
  readonly id = 'test:fruit';
  readonly dimensions = 2;
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => {
      const fruit = /apple|pear|fruit/i.test(t);
      // Unrelated texts still sit at cosine 0.3 to fruit texts: closer than nothing, not related.
      return fruit ? Float32Array.of(1, 0) : Float32Array.of(0.3, Math.sqrt(1 - 0.09));
    });
  }
}

describe('signals that only re-rank what matches', () => {
  const session = [
    'The staging server is called orca',
    'Priya prefers tabs over spaces',
    'The billing service is written in Go',
    'Standup is at 9:30 on weekdays',
  ];

  it('facts written in the same hour as a hit do not join the results (neighbourhood)', () => {
    const store = tempStore();
    const ids = store.addMany(session.map((content) => ({ content })));
    const hits = store.search('what is the staging server called', { minTrust: 0 });
    expect(hits.map((r) => r.fact_id)).toEqual([ids[0]]);
    expect(hits[0]!.relevance).toBe(1);
  });

  it('a "when" question does not bring in time-stamped facts that match nothing', () => {
    const store = tempStore();
    store.addMany([...session, 'Last week the office moved'].map((content) => ({ content })));
    const hits = store.search('When is the billing review?', { minTrust: 0 });
    expect(hits.map((r) => r.content)).toEqual(['The billing service is written in Go']);
  });

  it('similarity below the threshold brings nothing in; above it, a fact joins with some relevance', async () => {
    const store = tempStore({ embedder: new FruitEmbedder(), semanticThreshold: 0.5 });
    store.addMany(['I bought pears at the market', ...session].map((content) => ({ content })));
    const fruit = await store.recall('any fruit at home?', { minTrust: 0 });
    expect(fruit.map((r) => r.content)).toEqual(['I bought pears at the market']);
    expect(fruit[0]!.relevance).toBeCloseTo(0.3, 3); // semantic share only, below the prefetch bar
    expect(await store.recallRelevant('any fruit at home?')).toEqual([]);
  });
});
