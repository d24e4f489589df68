import { describe, expect, it } from 'vitest';
import { percentile, summarize } from './stats';

describe('stats', () => {
  it('nearest-rank percentiles', () => {
    const v = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(v, 50)).toBe(5);
    expect(percentile(v, 95)).toBe(10);
    expect(percentile(v, 0)).toBe(1);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
    expect(summarize(v)).toMatchObject({ n: 10, p50: 5, p99: 10, min: 1, max: 10, mean: 5.5 });
  });
});
