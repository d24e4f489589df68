import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError, SettingsError, cosineSimilarity } from '@hermes-memory/core';
import { afterAll, describe, expect, it } from 'vitest';
import { buildGge1, buildSafetensors, tokenizerJsonFor } from '../../test/model-files';
import { bundledAssets, referenceHelloWorld } from '../../test/paths';
import { Model2VecEmbedder, createDefaultEmbedder } from './model2vec-embedder';

/** A deliberately plain, independent reading of the bundled GGE1 file: row `id` dequantised. */
function referenceRow(id: number): number[] {
  const b = readFileSync(path.join(bundledAssets, 'potion-base-2M.bin'));
  const vocab = b.readUInt32LE(4);
  const dims = b.readUInt32LE(8);
  const scale = b.readFloatLE(12 + 4 * id);
  const row: number[] = [];
  for (let j = 0; j < dims; j++) row.push(b.readInt8(12 + 4 * vocab + id * dims + j) * scale);
  return row;
}

const vocab = (
  JSON.parse(readFileSync(path.join(bundledAssets, 'tokenizer.json'), 'utf8')) as {
    model: { vocab: Record<string, number> };
  }
).model.vocab;

/** Mean of the rows of hand-listed tokens, L2-normalised (the mean's scale cancels out). */
function expectedVector(tokens: string[]): number[] {
  const sum = new Array<number>(64).fill(0);
  for (const t of tokens) {
    const id = vocab[t];
    if (id === undefined) throw new Error(`token ${t} not in vocab`);
    referenceRow(id).forEach((x, j) => {
      sum[j]! += x;
    });
  }
  const norm = Math.sqrt(sum.reduce((s, x) => s + x * x, 0));
  return sum.map((x) => x / norm);
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

const embedder = new Model2VecEmbedder();

describe('Model2VecEmbedder (bundled potion-base-2M int8)', () => {
  it('matches MinishLab reference embedding of "hello world" to cosine >= 0.9999', async () => {
    const ref = JSON.parse(readFileSync(referenceHelloWorld, 'utf8')) as {
      text: string;
      embedding: number[];
    };
    const [v] = await embedder.embed([ref.text]);
    expect(v!.length).toBe(64);
    expect(cosineSimilarity(v!, ref.embedding)).toBeGreaterThanOrEqual(0.9999);
  });

  it('knows its id and dimensions before loading', () => {
    const fresh = new Model2VecEmbedder();
    expect(fresh.id).toBe('model2vec:potion-base-2M-int8');
    expect(fresh.dimensions).toBe(64);
  });

  it.each([
    ['hello world', ['hello', 'world']],
    ['The cat sat on the mat.', ['the', 'cat', 'sat', 'on', 'the', 'mat', '.']],
    ['Café NAÏVE!', ['cafe', 'naive', '!']],
    ['unbelievably', ['un', '##bel', '##ie', '##va', '##bly']],
    ['北京', ['北', '京']],
    ['hello 😀 world', ['hello', 'world']], // [UNK] is dropped, not averaged in
    ["user's e-mail", ['user', "'", 's', 'e', '-', 'mail']],
  ])('pools %j as the normalised mean of its token rows', async (text, tokens) => {
    const [v] = await embedder.embed([text]);
    const expected = expectedVector(tokens);
    expect(maxAbsDiff(v!, expected)).toBeLessThan(1e-6);
    expect(cosineSimilarity(v!, expected)).toBeGreaterThan(0.999999);
  });

  it('returns unit vectors', async () => {
    const vs = await embedder.embed(['The user is allergic to peanuts', 'Paris is in France', 'x']);
    for (const v of vs) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });

  it('embeds empty, blank and all-unknown text to the zero vector (never NaN)', async () => {
    const vs = await embedder.embed(['', '   \n\t', '😀 🚀', '\u200b']);
    for (const v of vs) {
      expect(v.length).toBe(64);
      expect(Array.from(v).every((x) => x === 0)).toBe(true);
    }
    expect(cosineSimilarity(vs[0]!, (await embedder.embed(['hello']))[0]!)).toBe(0);
  });

  it('keeps input order and gives the same vector alone or in a batch', async () => {
    const texts = ['alpha beta', 'gamma', 'alpha beta', 'delta epsilon zeta'];
    const batch = await embedder.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await embedder.embed([texts[i]!]);
      expect(Array.from(batch[i]!)).toEqual(Array.from(alone!));
    }
    expect(batch[0]).not.toBe(batch[2]); // separate arrays
  });

  it('truncates to 512 tokens after dropping [UNK], like Model2Vec max_length', async () => {
    const text = `${'😀 apple '.repeat(512)}${'banana '.repeat(100)}`;
    const [truncated] = await embedder.embed([text]);
    const [apple] = await embedder.embed(['apple']);
    expect(maxAbsDiff(truncated!, apple!)).toBeLessThan(1e-6);
    const all = new Model2VecEmbedder({ maxTokens: null });
    expect(all.id).toBe('model2vec:potion-base-2M-int8:maxall');
    const [full] = await all.embed([text]);
    expect(cosineSimilarity(full!, apple!)).toBeLessThan(0.99);
  });

  it('ranks semantically related memories first', async () => {
    const memories = [
      'User is allergic to peanuts',
      'The deployment runs on Kubernetes in eu-west-1',
      'User prefers dark mode in every editor',
      'The project deadline is next Friday',
    ];
    const queries: [string, number][] = [
      ['food allergies', 0],
      ['which cloud cluster do we deploy to', 1],
      ['editor theme preference', 2],
    ];
    const mem = await embedder.embed(memories);
    for (const [q, want] of queries) {
      const [qv] = await embedder.embed([q]);
      const scores = mem.map((m) => cosineSimilarity(qv!, m));
      expect(scores.indexOf(Math.max(...scores))).toBe(want);
    }
  });

  it('embeds large batches (yielding to the event loop) and honours abort signals', async () => {
    const texts = Array.from({ length: 3000 }, (_, i) => `memory number ${i} about topic ${i % 17}`);
    const vs = await embedder.embed(texts);
    expect(vs).toHaveLength(3000);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(embedder.embed(['x'], { signal: controller.signal })).rejects.toThrow('stop');
  });

  it('rejects non-string input with InvalidArgumentError', async () => {
    await expect(embedder.embed(['ok', 3 as unknown as string])).rejects.toThrow(InvalidArgumentError);
    await expect(embedder.embed('text' as unknown as string[])).rejects.toThrow(InvalidArgumentError);
  });

  it('embedSync works after load()', async () => {
    const e = new Model2VecEmbedder();
    expect(() => e.embedSync('x')).toThrow(/load/);
    await e.load();
    expect(Array.from(e.embedSync('hello world'))).toEqual(Array.from((await e.embed(['hello world']))[0]!));
  });

  it('createDefaultEmbedder returns one shared, lazily loaded instance', () => {
    const a = createDefaultEmbedder();
    expect(createDefaultEmbedder()).toBe(a);
    expect(a.id).toBe('model2vec:potion-base-2M-int8');
  });

  it('rejects invalid maxTokens', () => {
    expect(() => new Model2VecEmbedder({ maxTokens: 0 })).toThrow(RangeError);
  });
});

describe('Model2VecEmbedder on a custom model folder', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'hm-m2v-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const tokens = ['[PAD]', '[UNK]', 'cat', 'dog', '##s'];
  const rows = [
    [0, 0, 0],
    [9, 9, 9],
    [1, 0, 0],
    [0, 2, 0],
    [0, 0, 4],
  ];

  it('loads model.safetensors + tokenizer.json (the upstream Model2Vec layout)', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJsonFor(tokens)));
    writeFileSync(
      path.join(dir, 'model.safetensors'),
      buildSafetensors({ embeddings: { dtype: 'F32', shape: [5, 3], values: rows.flat() } }),
    );
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ hidden_dim: 3, normalize: true }));
    const e = new Model2VecEmbedder({ modelPath: dir });
    expect(e.dimensions).toBe(3);
    expect(e.id).toBe(`model2vec:${path.basename(dir)}`);
    const [v, w] = await e.embed(['Cats dog', 'zebra']);
    // cat + ##s + dog = [1, 2, 4] → normalised; "zebra" is [UNK] only → zero vector.
    const n = Math.hypot(1, 2, 4);
    expect(maxAbsDiff(v!, [1 / n, 2 / n, 4 / n])).toBeLessThan(1e-6);
    expect(Array.from(w!)).toEqual([0, 0, 0]);
  });

  it('loads a GGE1 .bin and honours normalize: false (plain mean)', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJsonFor(tokens)));
    writeFileSync(path.join(dir, 'model.bin'), buildGge1(tokens, [1, 1, 1, 1, 1], rows));
    writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ normalize: false }));
    const e = new Model2VecEmbedder({ modelPath: dir, id: 'custom' });
    expect(e.id).toBe('custom');
    expect(e.dimensions).toBe(0); // unknown until loaded: config.json has no hidden_dim
    const [v] = await e.embed(['cat dog']);
    expect(e.dimensions).toBe(3);
    expect(Array.from(v!)).toEqual([0.5, 1, 0]);
  });

  it('reports a clear error for a missing folder, missing tokenizer or mismatched files', async () => {
    await expect(
      new Model2VecEmbedder({ modelPath: path.join(os.tmpdir(), 'no-such-model-xyz') }).embed(['x']),
    ).rejects.toThrow(SettingsError);
    const noTok = tmp();
    writeFileSync(path.join(noTok, 'model.bin'), buildGge1(tokens, [1, 1, 1, 1, 1], rows));
    await expect(new Model2VecEmbedder({ modelPath: noTok }).embed(['x'])).rejects.toThrow(
      /tokenizer.json is missing/,
    );
    const mismatch = tmp();
    writeFileSync(
      path.join(mismatch, 'tokenizer.json'),
      JSON.stringify(tokenizerJsonFor([...tokens, 'extra'])),
    );
    writeFileSync(path.join(mismatch, 'model.bin'), buildGge1(tokens, [1, 1, 1, 1, 1], rows));
    await expect(new Model2VecEmbedder({ modelPath: mismatch }).embed(['x'])).rejects.toThrow(/differ/);
    const renamed = tmp();
    writeFileSync(
      path.join(renamed, 'tokenizer.json'),
      JSON.stringify(tokenizerJsonFor(['[PAD]', '[UNK]', 'cat', 'dog', 'fox'])),
    );
    writeFileSync(path.join(renamed, 'model.bin'), buildGge1(tokens, [1, 1, 1, 1, 1], rows));
    await expect(new Model2VecEmbedder({ modelPath: renamed }).embed(['x'])).rejects.toThrow(
      /Token 4 differs/,
    );
  });
});
