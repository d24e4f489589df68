import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_ATOM,
  bind,
  bundle,
  bytesToPhases,
  encodeAtom,
  encodeFact,
  encodeText,
  phasesToBytes,
  similarity,
  snrEstimate,
  unbind,
} from './hrr';

interface Fixture {
  atoms: Array<{ word: string; dim: number; float64_hex: string[] }>;
  derived: Record<string, number[] | number | string> & { dim: number };
}
const fixture = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '../test/fixtures/hrr-vectors.json'), 'utf8'),
) as Fixture;

function hexOf(x: number): string {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(x);
  return b.toString('hex');
}

function expectClose(actual: ArrayLike<number>, expected: readonly number[], tol = 1e-9): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    // Phases near 0 and 2π are the same angle.
    let d = Math.abs(actual[i]! - expected[i]!);
    d = Math.min(d, 2 * Math.PI - d);
    expect(d).toBeLessThan(tol);
  }
}

describe('HRR atoms (checklist 6)', () => {
  it.each(fixture.atoms.map((a) => [a.word, a.dim, a] as const))(
    'encodeAtom(%s, %i) matches the Python vector bit for bit',
    (word, dim, a) => {
      const v = encodeAtom(word, dim);
      expect(Array.from(v, hexOf)).toEqual(a.float64_hex);
    },
  );

  it('returns copies: mutating a result does not poison the cache', () => {
    const v = encodeAtom('hello', 64);
    v[0] = 42;
    expect(encodeAtom('hello', 64)[0]).not.toBe(42);
  });
});

describe('HRR algebra against independent Python values', () => {
  const d = fixture.derived;
  const dim = d.dim;
  const a = encodeAtom('alpha', dim);
  const b = encodeAtom('beta', dim);
  it('bind / unbind / bundle / similarity', () => {
    expectClose(bind(a, b), d.bind_alpha_beta as number[]);
    expectClose(unbind(bind(a, b), a), d.unbind_bind_alpha as number[]);
    expectClose(bundle(a, b, encodeAtom('gamma', dim)), d.bundle_alpha_beta_gamma as number[]);
    expect(similarity(a, b)).toBeCloseTo(d.similarity_alpha_beta as number, 12);
  });
  it('encodeText and encodeFact', () => {
    expectClose(encodeText('The deployment, rollback (failed) twice!', dim), d.encode_text as number[]);
    expectClose(
      encodeFact('Jane Doe works at Hermes Agent', ['Jane Doe', 'Hermes Agent'], dim),
      d.encode_fact as number[],
    );
  });
  it('serialisations match Python bytes (legacy float64 and HRR1 float32)', () => {
    const v = encodeAtom('blob', 8);
    expect(phasesToBytes(v, 'float64').toString('hex')).toBe(d.legacy_blob_hex);
    expect(phasesToBytes(v, 'float32').toString('hex')).toBe(d.f32_blob_hex);
  });
});

describe('HRR properties (checklist 7–10)', () => {
  it('similarity: identical 1.0, random atoms near 0, mismatched dims 0 with a warning', () => {
    const a = encodeAtom('apple', 1024);
    expect(similarity(a, a)).toBeCloseTo(1, 12);
    expect(Math.abs(similarity(a, encodeAtom('orange', 1024)))).toBeLessThan(0.1);
    const warnings: string[] = [];
    expect(similarity(a, encodeAtom('apple', 512), (m) => warnings.push(m))).toBe(0);
    expect(warnings[0]).toContain('dim');
  });
  it('unbind(bind(a, b), a) ≈ b; bundles of up to 8 stay similar to each input', () => {
    const a = encodeAtom('key', 1024);
    const b = encodeAtom('value', 1024);
    expect(similarity(unbind(bind(a, b), a), b)).toBeGreaterThan(0.999);
    for (let k = 2; k <= 8; k++) {
      const items = Array.from({ length: k }, (_, i) => encodeAtom(`item${i}`, 1024));
      const bun = bundle(...items);
      for (const it of items) expect(similarity(bun, it)).toBeGreaterThan(0.2);
    }
  });
  it('encodeText("") is the __hrr_empty__ atom', () => {
    expect(Array.from(encodeText('', 256))).toEqual(Array.from(encodeAtom(EMPTY_ATOM, 256)));
    expect(Array.from(encodeText('  ..  ', 256))).toEqual(Array.from(encodeAtom(EMPTY_ATOM, 256)));
  });
  it('blob round trip: float32 within float32 precision, float64 exact; wrong length rejected', () => {
    const v = encodeText('round trip test', 1024);
    const f32 = bytesToPhases(phasesToBytes(v), 1024);
    for (let i = 0; i < v.length; i++) expect(f32[i]).toBeCloseTo(v[i]!, 5);
    expect(phasesToBytes(v).length).toBe(4 + 1024 * 4);
    expect(Array.from(bytesToPhases(phasesToBytes(v, 'float64'), 1024))).toEqual(Array.from(v));
    expect(Array.from(bytesToPhases(phasesToBytes(v, 'float64')))).toEqual(Array.from(v));
    expect(() => bytesToPhases(Buffer.alloc(13), 1024)).toThrow(/expected/);
    // dim 1: the prefixed size collides with float64, so legacy is written.
    expect(phasesToBytes(new Float64Array([1.5])).length).toBe(8);
    expect(bytesToPhases(phasesToBytes(new Float64Array([1.5])), 1)[0]).toBe(1.5);
  });
  it('snrEstimate', () => {
    expect(snrEstimate(1024, 0)).toBe(Number.POSITIVE_INFINITY);
    const warnings: string[] = [];
    expect(snrEstimate(1024, 1024, (m) => warnings.push(m))).toBe(1);
    expect(warnings).toHaveLength(1);
  });
});
