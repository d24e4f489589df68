/**
 * Speed work on the default pipeline must not move any result: a seeded store (speakers, questions
 * and their replies, stopwords, repeated words, neighbours within the hour) answers a fixed set of
 * queries, and every query's ranked ids and exact scores hash to the digest the pipeline gave before
 * the lexical pass was rewritten (one pass per fact instead of one scan per query stem).
 */
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tempStore } from './test-helpers';

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPEAKERS = ['Caroline', 'Melanie', 'Jon', 'Gina', 'John Smith'];
const WORDS = (
  'pottery class painting camping trip beach kids dog adopted guitar lessons concert marathon ' +
  'training knee injury job interview bakery shop dance studio festival museum book club novel ' +
  'garden tomatoes recipe soup paris toronto flight hiking mountain lake photos sunset charity ' +
  'run volunteering shelter puppy birthday party surprise cake the a and of to in is was it my ' +
  'really very so just went started loved tried finally again last week yesterday 2022 may'
).split(' ');

function corpus(n: number): string[] {
  const rnd = mulberry32(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 6 + Math.floor(rnd() * 14) }, () => pick(WORDS));
    if (rnd() < 0.2) words.push(words[0]!, words[1]!); // repeated terms
    const text = `${pick(SPEAKERS)}: ${words.join(' ')}${rnd() < 0.3 ? '?' : '.'}`;
    out.push(text);
  }
  return out;
}

const QUERIES = [
  'When did Caroline go to the pottery class?',
  'What did Melanie paint at the beach?',
  'Where did Jon go camping with the kids?',
  'What kind of dog did Gina adopt?',
  'Did John Smith finish the marathon after the knee injury?',
  'bakery shop dance studio',
  'What book did the book club read last week?',
  'recipe for tomato soup from the garden',
  'flight to Paris or Toronto',
  'hiking mountain lake sunset photos',
  'charity run volunteering at the shelter',
  'surprise birthday party cake',
  'guitar lessons concert',
  'What happened in May 2022?',
  'the and of',
  'puppy',
];

describe('default ranking (golden)', () => {
  it('ranks a seeded store exactly as before the lexical pass was rewritten', () => {
    const store = tempStore();
    const texts = corpus(600);
    store.addMany(
      texts.map((content, i) => ({
        content,
        occurredAt: new Date(
          Date.UTC(2023, 0, 1) + Math.floor(i / 40) * 7_200_000 + i * 60_000,
        ).toISOString(),
      })),
    );
    const hash = crypto.createHash('sha256');
    let hitCount = 0;
    for (const q of QUERIES) {
      const hits = store.search(q, { limit: 10, minTrust: 0, countRetrievals: false });
      hitCount += hits.length;
      hash.update(`${q}\n${hits.map((h) => `${h.fact_id}:${h.score}:${h.relevance}`).join(',')}\n`);
    }
    expect(hitCount).toBeGreaterThan(100);
    expect(hash.digest('hex')).toBe('3ed3a028ca81b1e6ea5c2df3c610e4ccf62f2e94f4ea0db4ca440dab9d766ce4');
  });
});
