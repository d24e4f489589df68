import { describe, expect, it } from 'vitest';
import { DenseIndex } from './dense';
import { SimdMatrix } from './simd-dot';

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
  // 64 = the bundled model; 7 and 66 exercise the JavaScript remainder loop (66 also has no SIMD
  // path: 66 % 4 ≠ 0); each runs with and without the WebAssembly SIMD scan.
  it.each([
    [7, true],
    [64, true],
    [64, false],
    [66, true],
    [68, false],
  ])('returns the exact top-k by cosine at dim %i (simd %s)', (dim, simd) => {
    const rows = vectors(500, dim);
    const index = new DenseIndex('m', dim, 8, { simd });
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

describe('SimdMatrix', () => {
  it('is available in Node (WebAssembly SIMD) for dims divisible by 4 only', () => {
    expect(SimdMatrix.create(64, 4)).not.toBeNull();
    expect(SimdMatrix.create(7, 4)).toBeNull();
  });

  it('scores every row like the float64 loop, to float32 precision, across growth', () => {
    const dim = 64;
    const m = SimdMatrix.create(dim, 2)!;
    const rows = vectors(300, dim);
    for (const [r, v] of rows.entries()) {
      // Grow as DenseIndex does (doubling); earlier rows must survive the move of the memory.
      if (r * dim >= m.matrix.length) m.reserve(2 * (m.matrix.length / dim));
      m.matrix.set(v, r * dim);
    }
    const [query] = vectors(1, dim, 5);
    const q = Float32Array.from(query!);
    const scores = m.scores(q, rows.length);
    expect(scores).toHaveLength(rows.length);
    for (const [r, v] of rows.entries()) {
      const expected = v.reduce((a, x, i) => a + Math.fround(x) * q[i]!, 0);
      expect(Math.abs(scores[r]! - expected)).toBeLessThan(1e-5);
    }
  });
});
