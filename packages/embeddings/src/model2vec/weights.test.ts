import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SettingsError } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { bundledAssets } from '../../test/paths';
import { buildGge1, buildSafetensors, toF16 } from '../../test/model-files';
import { parseGge1, parseModel2VecSafetensors } from './weights';

describe('parseGge1', () => {
  it('parses a hand-built file and dequantises q * scale', () => {
    const bytes = buildGge1(
      ['[UNK]', 'a', 'bé'],
      [0.5, 0.25, 2],
      [
        [1, -2],
        [127, 0],
        [-128, 3],
      ],
    );
    const m = parseGge1(bytes);
    expect(m.vocabSize).toBe(3);
    expect(m.dims).toBe(2);
    expect(m.tokens).toEqual(['[UNK]', 'a', 'bé']);
    expect(Array.from(m.table)).toEqual([0.5, -1, 31.75, 0, -256, 6]);
  });

  it('parses the bundled model exactly to its end', () => {
    const m = parseGge1(readFileSync(path.join(bundledAssets, 'potion-base-2M.bin')));
    expect(m.vocabSize).toBe(29528);
    expect(m.dims).toBe(64);
    expect(m.tokens?.[6598]).toBe('hello');
    expect(m.tokens?.[1094]).toBe('world');
    expect(m.table.every((x) => Number.isFinite(x))).toBe(true);
  });

  it('rejects bad magic, truncation and trailing bytes with a SettingsError', () => {
    const good = buildGge1(
      ['[UNK]', 'a'],
      [1, 1],
      [
        [1, 2],
        [3, 4],
      ],
    );
    const badMagic = good.slice();
    badMagic[0] = 'X'.charCodeAt(0);
    expect(() => parseGge1(badMagic)).toThrow(/bad magic/);
    expect(() => parseGge1(good.subarray(0, 20))).toThrow(/truncated/);
    expect(() => parseGge1(good.subarray(0, good.length - 1))).toThrow(/truncated/);
    const trailing = new Uint8Array(good.length + 3);
    trailing.set(good);
    expect(() => parseGge1(trailing)).toThrow(/trailing/);
    expect(() => parseGge1(new Uint8Array(4))).toThrow(SettingsError);
  });

  it('rejects a non-finite scale', () => {
    expect(() => parseGge1(buildGge1(['[UNK]'], [Number.NaN], [[1]]))).toThrow(/non-finite/);
  });
});

describe('parseModel2VecSafetensors', () => {
  it('reads an F32 embeddings tensor', () => {
    const bytes = buildSafetensors({
      embeddings: { dtype: 'F32', shape: [2, 3], values: [1, 2, 3, 4, 5, 6] },
    });
    const m = parseModel2VecSafetensors(bytes);
    expect(m).toMatchObject({ vocabSize: 2, dims: 3 });
    expect(Array.from(m.table)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads F16 and applies per-token weights and a token→row mapping', () => {
    const bytes = buildSafetensors({
      embeddings: { dtype: 'F16', shape: [2, 2], values: toF16([1, -2, 0.5, 4]) },
      weights: { dtype: 'F32', shape: [3], values: [1, 2, 0.5] },
      mapping: { dtype: 'I64', shape: [3], values: [1, 0, 1] },
    });
    const m = parseModel2VecSafetensors(bytes);
    expect(m.vocabSize).toBe(3);
    expect(Array.from(m.table)).toEqual([0.5, 4, 2, -4, 0.25, 2]);
  });

  it('rejects missing tensors, bad dtypes and out-of-file offsets', () => {
    expect(() =>
      parseModel2VecSafetensors(buildSafetensors({ other: { dtype: 'F32', shape: [1], values: [1] } })),
    ).toThrow(/no 'embeddings'/);
    expect(() =>
      parseModel2VecSafetensors(
        buildSafetensors({ embeddings: { dtype: 'I8', shape: [1, 1], values: [1] } }),
      ),
    ).toThrow(/unsupported dtype/);
    const bytes = buildSafetensors({ embeddings: { dtype: 'F32', shape: [2, 2], values: [1, 2, 3, 4] } });
    expect(() => parseModel2VecSafetensors(bytes.subarray(0, bytes.length - 4))).toThrow(/outside the file/);
    expect(() => parseModel2VecSafetensors(new Uint8Array(3))).toThrow(SettingsError);
  });
});
