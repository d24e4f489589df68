import { describe, expect, it } from 'vitest';
import { FENCE_ESCAPE_CORPUS, REDOS_SHAPES, runFenceEscapeCorpus, runRedosShapes } from './adversarial';

describe('adversarial memory text (issue #12)', () => {
  it('no text of the fence-escape corpus breaks the fence on any path', async () => {
    const rows = await runFenceEscapeCorpus([{ name: 'shape', text: REDOS_SHAPES[0]!.make(64) }]);
    expect(rows.map((r) => r.path)).toHaveLength(6);
    for (const row of rows) {
      expect(row.cases, row.path).toBe(FENCE_ESCAPE_CORPUS.length + 1);
      expect(row.examples, row.path).toEqual([]);
      expect(row.escapes, row.path).toBe(0);
    }
  });

  it('times every ReDoS shape and names its slowest pass (times are reported, never asserted)', () => {
    const rows = runRedosShapes(512, 1);
    expect(rows.map((r) => r.input)).toEqual(REDOS_SHAPES.map((s) => s.name));
    for (const row of rows) {
      expect(row.chars).toBe(512);
      expect(row.worstPass).not.toBe('');
      expect(row.fenceHeld, row.input).toBe(true);
    }
  });
});
