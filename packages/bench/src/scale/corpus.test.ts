import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildScaleCorpus, mulberry32 } from './corpus';

// A committed LoCoMo-shaped fixture: tests never read ../shared (a clone from GitHub has none).
const tiny = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'locomo',
  '__fixtures__',
  'tiny.json',
);

describe('scale corpus', () => {
  it('is deterministic and shaped like LoCoMo turns', () => {
    const a = buildScaleCorpus(250, 20, 7, tiny);
    const b = buildScaleCorpus(250, 20, 7, tiny);
    expect(a).toEqual(b);
    expect(a.docs).toHaveLength(250);
    expect(a.queries).toHaveLength(20);
    expect(new Set(a.docs.map((d) => d.diaId)).size).toBe(250);
    expect(a.docs[0]!.text.startsWith(`${a.docs[0]!.speaker}: `)).toBe(true);
    expect(a.docs[120]!).toMatchObject({ diaId: 'D2:21', sessionIndex: 2, turnIndex: 120 });
  });

  it('mulberry32 gives the same stream for the same seed', () => {
    const r1 = mulberry32(5);
    const r2 = mulberry32(5);
    const xs = [r1(), r1(), r1()];
    expect([r2(), r2(), r2()]).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
