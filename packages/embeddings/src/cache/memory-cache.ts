import type { CacheEntry, EmbeddingCache } from './types';

export interface MemoryEmbeddingCacheOptions {
  /** Entries kept across all embedders; the least recently used is evicted first. Default 10 000. */
  maxEntries?: number;
}

/** An in-process LRU cache. Vectors are copied in and out so callers cannot corrupt it. */
export class MemoryEmbeddingCache implements EmbeddingCache {
  readonly maxEntries: number;
  private readonly entries = new Map<string, Float32Array>();

  constructor(options: MemoryEmbeddingCacheOptions = {}) {
    const max = options.maxEntries ?? 10_000;
    if (!Number.isInteger(max) || max < 1) throw new RangeError('maxEntries must be a positive integer');
    this.maxEntries = max;
  }

  get size(): number {
    return this.entries.size;
  }

  getMany(embedderId: string, keys: readonly string[]): (Float32Array | undefined)[] {
    return keys.map((key) => {
      const full = compose(embedderId, key);
      const hit = this.entries.get(full);
      if (!hit) return undefined;
      this.entries.delete(full); // re-insert: Map order is recency order
      this.entries.set(full, hit);
      return hit.slice();
    });
  }

  setMany(embedderId: string, entries: readonly CacheEntry[]): void {
    for (const { key, vector } of entries) {
      const full = compose(embedderId, key);
      this.entries.delete(full);
      this.entries.set(full, vector.slice());
      if (this.entries.size > this.maxEntries) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
    }
  }

  clear(embedderId?: string): void {
    if (embedderId === undefined) {
      this.entries.clear();
      return;
    }
    const prefix = compose(embedderId, '');
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  close(): void {
    this.entries.clear();
  }
}

function compose(embedderId: string, key: string): string {
  return `${embedderId}\u0000${key}`;
}
