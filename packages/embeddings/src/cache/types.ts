import { createHash } from 'node:crypto';

/**
 * Storage for computed vectors, keyed by embedder id and a content key (`textKey(text)`).
 * Methods may be synchronous or asynchronous, so remote stores fit too.
 */
export interface EmbeddingCache {
  /** One entry per key, `undefined` on a miss; returned vectors are the caller's to keep. */
  getMany(
    embedderId: string,
    keys: readonly string[],
  ): (Float32Array | undefined)[] | Promise<(Float32Array | undefined)[]>;
  setMany(embedderId: string, entries: readonly CacheEntry[]): void | Promise<void>;
  /** Drops every entry of one embedder, or everything. */
  clear(embedderId?: string): void | Promise<void>;
  close(): void | Promise<void>;
}

export interface CacheEntry {
  key: string;
  vector: Float32Array;
}

/** The cache key of a text: hex sha256 of its UTF-8 bytes (the text itself is never stored). */
export function textKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
