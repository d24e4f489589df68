import { InvalidArgumentError, cosineSimilarity } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { HashEmbedder } from './hash-embedder';

describe('HashEmbedder', () => {
  const e = new HashEmbedder();

  it('is deterministic across instances and calls', async () => {
    const [a] = await e.embed(['The user prefers dark roast coffee']);
    const [b] = await new HashEmbedder().embed(['The user prefers dark roast coffee']);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(e.embedOne('The user prefers dark roast coffee')).toEqual(a);
  });

  it('follows the documented scheme: FNV-1a + fmix32 index, sign from a second seeded hash', () => {
    // Spelled out independently: features of "ab" with n-grams 3..3 are w:ab (weight 2), <ab, ab>.
    const hash = (s: string, seed: number) => {
      let h = (0x811c9dc5 ^ seed) >>> 0;
      for (const c of s) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      return h >>> 0;
    };
    const expected = new Array<number>(8).fill(0);
    for (const [feature, weight] of [
      ['w:ab', 2],
      ['<ab', 1],
      ['ab>', 1],
    ] as const) {
      const sign = hash(feature, 0x9e3779b9) & 1 ? 1 : -1;
      expected[hash(feature, 0) % 8]! += sign * weight;
    }
    const norm = Math.hypot(...expected);
    const v = new HashEmbedder({ dimensions: 8, ngramRange: [3, 3] }).embedOne('AB');
    expect(Array.from(v).map((x) => x.toFixed(6))).toEqual(expected.map((x) => (x / norm).toFixed(6)));
  });

  it('returns unit vectors of the configured size, zero for text without words', async () => {
    const small = new HashEmbedder({ dimensions: 32 });
    const [v, empty, punct] = await small.embed(['hello world', '', '!!! ---']);
    expect(v!.length).toBe(32);
    expect(Math.hypot(...v!)).toBeCloseTo(1, 5);
    expect(Array.from(empty!).every((x) => x === 0)).toBe(true);
    expect(Array.from(punct!).every((x) => x === 0)).toBe(true);
  });

  it('scores lexical overlap above unrelated text, and ignores case and accents', async () => {
    const [q, near, far, accent] = await e.embed([
      'coffee preferences',
      'User prefers coffee over tea',
      'Deploy the cluster to production',
      'COFFÉE PREFERENCES',
    ]);
    expect(cosineSimilarity(q!, near!)).toBeGreaterThan(cosineSimilarity(q!, far!));
    expect(cosineSimilarity(q!, accent!)).toBeCloseTo(1, 6);
  });

  it('encodes its settings in the id, and different seeds give different spaces', async () => {
    expect(e.id).toBe('hash:v1:d256:n3-4:w2:s0');
    const s1 = new HashEmbedder({ seed: 1 });
    expect(s1.id).not.toBe(e.id);
    const [a] = await e.embed(['memory']);
    const [b] = await s1.embed(['memory']);
    expect(Array.from(a!)).not.toEqual(Array.from(b!));
  });

  it('validates options and input', async () => {
    expect(() => new HashEmbedder({ dimensions: 0 })).toThrow(RangeError);
    expect(() => new HashEmbedder({ ngramRange: [4, 3] })).toThrow(RangeError);
    await expect(e.embed([null as unknown as string])).rejects.toThrow(InvalidArgumentError);
  });
});
