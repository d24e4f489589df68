import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { type Embedder, createRecordingLogger } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../hash/hash-embedder';
import { Model2VecEmbedder } from '../model2vec/model2vec-embedder';
import { cachedEmbedder } from './cached-embedder';
import { MemoryEmbeddingCache } from './memory-cache';
import { SqliteEmbeddingCache } from './sqlite-cache';
import { type EmbeddingCache, textKey } from './types';

/** Wraps a real embedder and records the batches it is asked to compute. */
function counting(inner: Embedder): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    get id() {
      return inner.id;
    },
    get dimensions() {
      return inner.dimensions;
    },
    embed: (texts, options) => {
      calls.push([...texts]);
      return inner.embed(texts, options);
    },
  };
}

const v = (...xs: number[]) => Float32Array.from(xs);

const dirs: string[] = [];
function tmpDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'hm-emb-cache-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

describe('textKey', () => {
  it('is the hex sha256 of the UTF-8 text', () => {
    expect(textKey('hello')).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    expect(textKey('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe.each([
  ['MemoryEmbeddingCache', () => new MemoryEmbeddingCache()],
  ['SqliteEmbeddingCache', () => new SqliteEmbeddingCache({ path: path.join(tmpDir(), 'cache.db') })],
] as [string, () => EmbeddingCache][])('%s', (_name, create) => {
  it('stores and returns vectors per embedder id, misses as undefined', async () => {
    const cache = create();
    await cache.setMany('a', [
      { key: 'k1', vector: v(1, 2) },
      { key: 'k2', vector: v(3, 4) },
    ]);
    await cache.setMany('b', [{ key: 'k1', vector: v(9, 9, 9) }]);
    const got = await cache.getMany('a', ['k1', 'nope', 'k2']);
    expect(got.map((x) => (x ? Array.from(x) : x))).toEqual([[1, 2], undefined, [3, 4]]);
    expect(Array.from((await cache.getMany('b', ['k1']))[0]!)).toEqual([9, 9, 9]);
    await cache.clear('a');
    expect(await cache.getMany('a', ['k1'])).toEqual([undefined]);
    expect((await cache.getMany('b', ['k1']))[0]).toBeDefined();
    await cache.clear();
    expect(await cache.getMany('b', ['k1'])).toEqual([undefined]);
    await cache.close();
  });

  it('keeps float32 values bit-exact and hands out copies', async () => {
    const cache = create();
    const original = v(Math.PI, -0, 1e-30, -123.456);
    await cache.setMany('e', [{ key: 'k', vector: original }]);
    original[0] = 0;
    const [a] = await cache.getMany('e', ['k']);
    expect(Array.from(a!)).toEqual(Array.from(v(Math.PI, -0, 1e-30, -123.456)));
    a![1] = 42;
    const [b] = await cache.getMany('e', ['k']);
    expect(b![1]).toBe(-0);
    await cache.close();
  });
});

describe('MemoryEmbeddingCache eviction', () => {
  it('evicts the least recently used entry', () => {
    const cache = new MemoryEmbeddingCache({ maxEntries: 2 });
    cache.setMany('e', [
      { key: 'a', vector: v(1) },
      { key: 'b', vector: v(2) },
    ]);
    cache.getMany('e', ['a']); // a is now more recent than b
    cache.setMany('e', [{ key: 'c', vector: v(3) }]);
    expect(cache.size).toBe(2);
    expect(cache.getMany('e', ['a', 'b', 'c']).map((x) => x?.[0])).toEqual([1, undefined, 3]);
    expect(() => new MemoryEmbeddingCache({ maxEntries: 0 })).toThrow(RangeError);
  });
});

describe('SqliteEmbeddingCache on disk', () => {
  it('creates the file (and WAL files) with mode 0600 in a new directory', () => {
    const file = path.join(tmpDir(), 'nested', 'dir', 'embeddings.db');
    const cache = new SqliteEmbeddingCache({ path: file });
    cache.setMany('e', [{ key: 'k', vector: v(1) }]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (const side of [`${file}-wal`, `${file}-shm`]) {
      if (existsSync(side)) expect(statSync(side).mode & 0o777).toBe(0o600);
    }
    expect(existsSync(`${file}-wal`)).toBe(true); // WAL mode is on
    cache.close();
  });

  it('persists across reopen and is shared by two connections', () => {
    const file = path.join(tmpDir(), 'c.db');
    const a = new SqliteEmbeddingCache({ path: file });
    const b = new SqliteEmbeddingCache({ path: file });
    a.setMany('e', [{ key: 'k', vector: v(1, 2, 3) }]);
    expect(Array.from(b.getMany('e', ['k'])[0]!)).toEqual([1, 2, 3]);
    a.close();
    b.close();
    const c = new SqliteEmbeddingCache({ path: file });
    expect(c.count()).toBe(1);
    expect(c.count('e')).toBe(1);
    expect(c.count('other')).toBe(0);
    c.close();
  });

  it('prunes the oldest entries beyond maxEntries', () => {
    const cache = new SqliteEmbeddingCache({ path: ':memory:', maxEntries: 3 });
    for (let i = 0; i < 5; i++) cache.setMany('e', [{ key: `k${i}`, vector: v(i) }]);
    expect(cache.count()).toBe(3);
    expect(cache.getMany('e', ['k0', 'k1', 'k2', 'k3', 'k4']).map((x) => x?.[0])).toEqual([
      undefined,
      undefined,
      2,
      3,
      4,
    ]);
    cache.close();
  });

  it('treats a corrupt row as a miss', () => {
    const file = path.join(tmpDir(), 'c.db');
    const cache = new SqliteEmbeddingCache({ path: file });
    cache.setMany('e', [{ key: 'k', vector: v(1, 2) }]);
    cache.close();
    // Write a row whose blob does not match its dims, through a separate raw connection.
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (
      file: string,
    ) => { prepare(sql: string): { run(): unknown }; close(): void };
    const raw = new Database(file);
    raw.prepare('UPDATE embedding_cache SET dims = 5').run();
    raw.close();
    const reopened = new SqliteEmbeddingCache({ path: file });
    expect(reopened.getMany('e', ['k'])).toEqual([undefined]);
    reopened.close();
  });

  it('rejects bad settings', () => {
    expect(() => new SqliteEmbeddingCache({ path: '' })).toThrow(/path/);
    expect(() => new SqliteEmbeddingCache({ path: ':memory:', maxEntries: 0 })).toThrow(/maxEntries/);
  });
});

describe('cachedEmbedder', () => {
  it('computes only misses, in batches, and dedupes within a call', async () => {
    const inner = counting(new HashEmbedder({ dimensions: 16 }));
    const cached = cachedEmbedder(inner, new MemoryEmbeddingCache(), { batchSize: 2 });
    expect(cached.id).toBe(inner.id);
    expect(cached.dimensions).toBe(16);
    const first = await cached.embed(['a', 'b', 'a', 'c']);
    expect(inner.calls).toEqual([['a', 'b'], ['c']]);
    expect(Array.from(first[0]!)).toEqual(Array.from(first[2]!));
    expect(first[0]).not.toBe(first[2]);
    const second = await cached.embed(['c', 'd', 'a']);
    expect(inner.calls).toEqual([['a', 'b'], ['c'], ['d']]);
    const direct = await inner.embed(['c', 'd', 'a']);
    expect(second.map((x) => Array.from(x))).toEqual(direct.map((x) => Array.from(x)));
  });

  it('survives a restart with the SQLite cache: nothing is recomputed', async () => {
    const file = path.join(tmpDir(), 'embeddings.db');
    const texts = ['User is allergic to peanuts', 'Lives in Berlin', ''];
    const inner1 = counting(new Model2VecEmbedder());
    const cache1 = new SqliteEmbeddingCache({ path: file });
    const v1 = await cachedEmbedder(inner1, cache1).embed(texts);
    cache1.close();
    const inner2 = counting(new Model2VecEmbedder());
    const cache2 = new SqliteEmbeddingCache({ path: file });
    const v2 = await cachedEmbedder(inner2, cache2).embed(texts);
    expect(inner2.calls).toEqual([]);
    expect(v2.map((x) => Array.from(x))).toEqual(v1.map((x) => Array.from(x)));
    expect(cache2.count('model2vec:potion-base-2M-int8')).toBe(3);
    cache2.close();
  });

  it('ignores cached vectors of the wrong size', async () => {
    const inner = counting(new HashEmbedder({ dimensions: 8 }));
    const cache = new MemoryEmbeddingCache();
    cache.setMany(inner.id, [{ key: textKey('x'), vector: v(1, 2, 3) }]);
    const [out] = await cachedEmbedder(inner, cache).embed(['x']);
    expect(out!.length).toBe(8);
    expect(inner.calls).toEqual([['x']]);
  });

  it('falls back to computing when the cache fails, and logs a warning', async () => {
    const logger = createRecordingLogger();
    const broken: EmbeddingCache = {
      getMany: () => {
        throw new Error('disk on fire');
      },
      setMany: async () => {
        throw new Error('still on fire');
      },
      clear: () => {},
      close: () => {},
    };
    const inner = counting(new HashEmbedder({ dimensions: 8 }));
    const out = await cachedEmbedder(inner, broken, { logger }).embed(['x', 'y']);
    expect(out).toHaveLength(2);
    expect(logger.records.map((r) => r.message)).toEqual([
      'embedding cache read failed; computing instead',
      'embedding cache write failed',
    ]);
  });

  it('rejects an inner embedder that returns the wrong number of vectors', async () => {
    const liar: Embedder = { id: 'liar', dimensions: 2, embed: async () => [v(1, 0)] };
    await expect(cachedEmbedder(liar, new MemoryEmbeddingCache()).embed(['a', 'b'])).rejects.toThrow(
      /returned 1 vectors/,
    );
  });
});
