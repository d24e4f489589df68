import { renderRecall } from '@hermes-memory/continuity';
import { describe, expect, it } from 'vitest';
import { recordIds } from './continuity';

describe('continuity prefetch attribution', () => {
  it("reads each record line's id from the provider's own recall block, direct and associated", () => {
    const record = (id: string, summary: string) => ({
      id,
      kind: 'environment_fact' as const,
      title: summary,
      summary,
      observedAt: '2023-05-08T13:56:00Z',
      scopes: {},
    });
    const block = renderRecall(
      [record('rec_a1', 'Caroline went to an LGBTQ support group')],
      [record('rec_b2', 'Melanie painted a sunrise · in 2022')],
    );
    expect(recordIds(block)).toEqual(['rec_a1', 'rec_b2']);
    expect(recordIds('')).toEqual([]);
  });
});
