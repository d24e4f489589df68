import { type Embedder, type Logger, silentLogger } from '@hermes-memory/core';
import { assertTexts, throwIfAborted } from '../vector';
import { type EmbeddingCache, textKey } from './types';

export interface CachedEmbedderOptions {
  /** Cache misses sent to the wrapped embedder per call. Default 256. */
  batchSize?: number;
  /** Where cache read/write failures are reported (they never fail an embedding). */
  logger?: Logger;
}

/** An embedder whose results are memoised in a cache; `inner` is the wrapped embedder. */
export interface CachedEmbedder extends Embedder {
  readonly inner: Embedder;
  readonly cache: EmbeddingCache;
}

/**
 * Wraps any embedder so that only texts missing from `cache` are computed, in batches, and
 * duplicates within one call are computed once. Same `id` and `dimensions` as the wrapped embedder.
 * A failing cache degrades to a plain embedder (logged as a warning) rather than failing recall.
 */
export function cachedEmbedder(
  embedder: Embedder,
  cache: EmbeddingCache,
  options: CachedEmbedderOptions = {},
): CachedEmbedder {
  const batchSize = options.batchSize ?? 256;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError('batchSize must be a positive integer');
  const logger = options.logger ?? silentLogger;

  const embed = async (
    texts: readonly string[],
    opts: { signal?: AbortSignal } = {},
  ): Promise<Float32Array[]> => {
    assertTexts(texts, embedder.id);
    throwIfAborted(opts.signal);
    const id = embedder.id;
    // Unique texts in first-seen order, and for each input position the index of its unique text.
    const uniqueIndex = new Map<string, number>();
    const unique: string[] = [];
    const slot = texts.map((t) => {
      let i = uniqueIndex.get(t);
      if (i === undefined) {
        i = unique.length;
        uniqueIndex.set(t, i);
        unique.push(t);
      }
      return i;
    });
    const keys = unique.map(textKey);

    let found: (Float32Array | undefined)[];
    try {
      found = await cache.getMany(id, keys);
    } catch (error) {
      logger.warn('embedding cache read failed; computing instead', { embedder: id, error });
      found = new Array(unique.length).fill(undefined);
    }
    const dims = embedder.dimensions;
    const vectors: (Float32Array | undefined)[] = found.map((v) =>
      v && v.length > 0 && (dims === 0 || v.length === dims) ? v : undefined,
    );

    const missing: number[] = [];
    vectors.forEach((v, i) => {
      if (!v) missing.push(i);
    });
    for (let start = 0; start < missing.length; start += batchSize) {
      throwIfAborted(opts.signal);
      const batch = missing.slice(start, start + batchSize);
      const computed = await embedder.embed(
        batch.map((i) => unique[i]!),
        opts,
      );
      if (computed.length !== batch.length) {
        throw new Error(`${id}: embed() returned ${computed.length} vectors for ${batch.length} texts`);
      }
      batch.forEach((u, k) => {
        vectors[u] = computed[k]!;
      });
      try {
        await cache.setMany(
          id,
          batch.map((u, k) => ({ key: keys[u]!, vector: computed[k]! })),
        );
      } catch (error) {
        logger.warn('embedding cache write failed', { embedder: id, error });
      }
    }
    // Each position gets its own array, so a caller mutating one result cannot affect another.
    const seen = new Set<number>();
    return slot.map((u) => {
      const v = vectors[u]!;
      if (!seen.has(u)) {
        seen.add(u);
        return v;
      }
      return v.slice();
    });
  };

  return {
    get id() {
      return embedder.id;
    },
    get dimensions() {
      return embedder.dimensions;
    },
    inner: embedder,
    cache,
    embed,
  };
}
