import { describe, expect, it } from 'vitest';
import { DenseIndex } from './dense';

/** Deterministic pseudo-random vectors (Park–Miller). */
function vectors(n: number, dim: number, seed = 7): number[][] {
  let s = seed;
  const next = () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647 - 0.5;
  };
  return Array.from({ length: n }, () => Array.from({ length: dim }, next));
}

function bruteForce(rows: number[][], query: number[], k: number): number[] {
  const unit = (v: number[]) => {
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  };
  const q = unit(query);
  return rows
    .map((v, i) => ({ id: i + 1, cos: unit(v).reduce((a, x, d) => a + x * q[d]!, 0) }))
    .sort((a, b) => b.cos - a.cos || a.id - b.id)
    .slice(0, k)
    .map((r) => r.id);
}

describe('DenseIndex.top', () => {
  // 64 = the bundled model (unrolled loop only); 7 and 66 exercise the remainder loop.
  it.each([7, 64, 66])('returns the exact top-k by cosine at dim %i', (dim) => {
    const rows = vectors(500, dim);
    const index = new DenseIndex('m', dim, 8);
    for (const [i, v] of rows.entries()) index.set(i + 1, v);
    index.remove(3);
    const [query] = vectors(1, dim, 99);
    const expected = bruteForce(rows, query!, 21)
      .filter((id) => id !== 3)
      .slice(0, 20);
    const top = index.top(query!, 20);
    expect(top.map(([id]) => id)).toEqual(expected);
    for (const [id, cos] of top)
      expect(cos).toBeCloseTo(
        index.score(Float32Array.from(query!.map((x) => x / Math.hypot(...query!))), id),
        5,
      );
  });
});
