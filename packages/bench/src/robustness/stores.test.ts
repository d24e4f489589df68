import { describe, expect, it } from 'vitest';
import { itemText, verify } from './stores';

describe('robustness verification', () => {
  it('counts lost, torn, duplicated and unacknowledged items', () => {
    const a = itemText(1, 0);
    const b = itemText(1, 1);
    const c = itemText(2, 0);
    const d = itemText(2, 1);
    const torn = c.slice(0, c.length - 3);
    const v = verify([a, a, torn, d, 'garbage'], new Set([a, b, c]));
    expect(v).toEqual({ expected: 3, found: 2, lost: 2, torn: 2, duplicated: 1, unexpected: 1 });
  });

  it('reports a clean store as all zeros', () => {
    const items = [itemText(0, 0), itemText(0, 1), itemText(3, 7)];
    expect(verify(items, new Set(items))).toEqual({
      expected: 3,
      found: 3,
      lost: 0,
      torn: 0,
      duplicated: 0,
      unexpected: 0,
    });
  });

  it('detects a flipped character through the checksum', () => {
    const good = itemText(4, 2);
    const flipped = good.replace('abc', 'abd');
    expect(verify([flipped], new Set([good])).torn).toBe(1);
  });
});
