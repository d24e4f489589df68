import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SettingsError, cosineSimilarity } from '@hermes-memory/core';
import { afterAll, describe, expect, it } from 'vitest';
import { tinyBertDir } from '../../test/paths';
import { TransformersEmbedder } from './transformers-embedder';

interface Weights {
  vocab: string[];
  word_embeddings: number[][];
  token_type_embeddings: number[][];
}
const weights = JSON.parse(readFileSync(path.join(tinyBertDir, 'weights.json'), 'utf8')) as Weights;

/**
 * What a BERT-shaped model with this graph must produce, computed by hand: [CLS] tokens [SEP],
 * each state = word row + type-0 row, attention-masked mean, L2-normalised.
 */
function expected(tokens: string[]): number[] {
  const all = ['[CLS]', ...tokens, '[SEP]'];
  const sum = new Array<number>(8).fill(0);
  for (const t of all) {
    const id = weights.vocab.indexOf(t);
    if (id < 0) throw new Error(`no token ${t}`);
    weights.word_embeddings[id]!.forEach((x, j) => {
      sum[j]! += x + weights.token_type_embeddings[0]![j]!;
    });
  }
  const mean = sum.map((x) => x / all.length);
  const n = Math.hypot(...mean);
  return mean.map((x) => x / n);
}

function maxAbsDiff(a: ArrayLike<number>, b: number[]): number {
  return Math.max(...b.map((x, i) => Math.abs(a[i]! - x)));
}

describe('TransformersEmbedder on the generated tiny BERT model', () => {
  const embedder = new TransformersEmbedder({ modelPath: tinyBertDir });
  const temps: string[] = [];
  afterAll(async () => {
    await embedder.dispose();
    for (const d of temps) rmSync(d, { recursive: true, force: true });
  });

  it('reads id and dimensions from the folder before loading', () => {
    expect(embedder.id).toBe('transformers:tiny-bert:mean:q8');
    expect(embedder.dimensions).toBe(8);
    expect(embedder.localModelPath).toBe(path.dirname(tinyBertDir));
  });

  it('mean-pools token states under the attention mask and normalises', async () => {
    // Different lengths in one batch: padding must not leak into the shorter text's mean.
    const [a, b, c] = await embedder.embed(['The user likes coffee.', 'cats running', 'Café!']);
    expect(maxAbsDiff(a!, expected(['the', 'user', 'likes', 'coffee', '.']))).toBeLessThan(1e-5);
    expect(maxAbsDiff(b!, expected(['cat', '##s', 'run', '##ning']))).toBeLessThan(1e-5);
    expect(maxAbsDiff(c!, expected(['cafe', '!']))).toBeLessThan(1e-5);
    expect(Math.hypot(...a!)).toBeCloseTo(1, 5);
  }, 30_000);

  it('is batch-invariant and keeps input order across batches', async () => {
    const texts = ['the cat sat on a mat', 'dog', 'memory', 'the dog likes tea'];
    const small = new TransformersEmbedder({ modelPath: tinyBertDir, batchSize: 3 });
    const batched = await small.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await embedder.embed([texts[i]!]);
      expect(cosineSimilarity(batched[i]!, alone!)).toBeGreaterThan(0.99999);
    }
    await small.dispose();
  }, 30_000);

  it('supports CLS pooling and the unquantized file name', async () => {
    const cls = new TransformersEmbedder({ modelPath: tinyBertDir, pooling: 'cls', quantized: false });
    expect(cls.id).toBe('transformers:tiny-bert:cls');
    const [v] = await cls.embed(['dog']);
    const row = weights.word_embeddings[weights.vocab.indexOf('[CLS]')]!.map(
      (x, j) => x + weights.token_type_embeddings[0]![j]!,
    );
    const n = Math.hypot(...row);
    expect(
      maxAbsDiff(
        v!,
        row.map((x) => x / n),
      ),
    ).toBeLessThan(1e-5);
    await cls.dispose();
  }, 30_000);

  it('embeds blank text to the zero vector without running the model', async () => {
    const fresh = new TransformersEmbedder({ modelPath: tinyBertDir });
    const [v] = await fresh.embed(['  ']);
    expect(Array.from(v!)).toEqual(new Array(8).fill(0));
  });

  it('loads by model id under localModelPath', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'hm-tf-'));
    temps.push(root);
    cpSync(tinyBertDir, path.join(root, 'local', 'tiny'), { recursive: true });
    const e = new TransformersEmbedder({ model: 'local/tiny', localModelPath: root });
    const [v] = await e.embed(['dog']);
    expect(maxAbsDiff(v!, expected(['dog']))).toBeLessThan(1e-5);
    await e.dispose();
  }, 30_000);

  it('never downloads: a model missing locally is a clear SettingsError', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'hm-tf-empty-'));
    temps.push(root);
    const e = new TransformersEmbedder({ model: 'Xenova/all-MiniLM-L6-v2', localModelPath: root });
    const error = await e.embed(['x']).catch((err: unknown) => err);
    expect(SettingsError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/Cannot load transformer model 'Xenova\/all-MiniLM-L6-v2'/);
    // A failed load can be retried (it is not cached as a permanent failure).
    await expect(e.embed(['x'])).rejects.toThrow(SettingsError);
  }, 30_000);

  it('validates options', () => {
    expect(() => new TransformersEmbedder({})).toThrow(SettingsError);
    expect(() => new TransformersEmbedder({ model: 'x' })).toThrow(/localModelPath/);
    expect(() => new TransformersEmbedder({ modelPath: tinyBertDir, batchSize: 0 })).toThrow(SettingsError);
    expect(
      () => new TransformersEmbedder({ modelPath: tinyBertDir, pooling: 'max' as unknown as 'mean' }),
    ).toThrow(SettingsError);
  });
});
