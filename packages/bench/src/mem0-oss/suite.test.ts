import { describe, expect, it } from 'vitest';
import { aggregate } from '../locomo/metrics';
import { summarize } from '../stats';
import { renderMem0Oss } from './suite';

describe('mem0-oss report', () => {
  it('renders each size (a skipped one says why) and the LoCoMo rows next to BM25', () => {
    const markdown = renderMem0Oss({
      sizes: [
        { n: 1000, add: summarize([40, 41, 90]), addSeconds: 44, search: summarize([150, 170, 400]) },
        { n: 10000, skipped: 'projected 1200 s of adds from the previous size > 900 s' },
      ],
      loadAtEnd: 3.5,
      locomo: {
        conversations: ['conv-26'],
        rows: [
          { retriever: 'bm25', pooled: aggregate([]), queryMs: summarize([1, 2]), seconds: 3 },
          { retriever: 'mem0-oss', pooled: aggregate([]), queryMs: summarize([100]), seconds: 60 },
        ],
      },
    });
    expect(markdown).toMatch(/^## Mem0 OSS offline/);
    expect(markdown).toContain('| 1,000 | 41');
    expect(markdown).toContain('| 10,000 | skipped: projected 1200 s');
    expect(markdown).toContain('1 conversations: conv-26');
    expect(markdown).toMatch(/\| mem0-oss \| 0 \|/);
    expect(markdown).toContain('load average at the end: 3.5');
  });
});
