import type { Embedder } from '@hermes-memory/core';
import { assertTexts, l2NormalizeInPlace, throwIfAborted } from '../vector';

export interface HashEmbedderOptions {
  /** Vector size. Default 256. */
  dimensions?: number;
  /** Smallest and largest character n-gram taken inside each word (with `<` `>` boundary marks). Default [3, 4]. */
  ngramRange?: readonly [number, number];
  /** Weight of a whole-word feature relative to one n-gram. Default 2. */
  wordWeight?: number;
  /** Hash seed; different seeds give unrelated spaces. Default 0. */
  seed?: number;
}

const WORD_RE = /[\p{L}\p{N}]+/gu;

/**
 * Dependency-free feature hashing: signed hashing (the hashing trick with a sign bit to cancel
 * collisions in expectation) of lowercased, accent-stripped word unigrams plus character n-grams.
 * Deterministic across runs and platforms. Lexical, not semantic: for tests and tiny installs.
 */
export class HashEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  private readonly minN: number;
  private readonly maxN: number;
  private readonly wordWeight: number;
  private readonly seed: number;

  constructor(options: HashEmbedderOptions = {}) {
    const dims = options.dimensions ?? 256;
    if (!Number.isInteger(dims) || dims < 1 || dims > 65536) {
      throw new RangeError(`HashEmbedder dimensions must be an integer in 1..65536, got ${dims}`);
    }
    const [minN, maxN] = options.ngramRange ?? [3, 4];
    if (!Number.isInteger(minN) || !Number.isInteger(maxN) || minN < 1 || maxN < minN) {
      throw new RangeError(`HashEmbedder ngramRange must be [min, max] with 1 <= min <= max`);
    }
    this.dimensions = dims;
    this.minN = minN;
    this.maxN = maxN;
    this.wordWeight = options.wordWeight ?? 2;
    this.seed = (options.seed ?? 0) >>> 0;
    this.id = `hash:v1:d${dims}:n${minN}-${maxN}:w${this.wordWeight}:s${this.seed}`;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    assertTexts(texts, this.id);
    throwIfAborted(options.signal);
    return texts.map((t) => this.embedOne(t));
  }

  /** Synchronous variant for callers that need no promise. */
  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dimensions);
    const normalized = text
      .normalize('NFKD')
      .replace(/\p{Mn}/gu, '')
      .toLowerCase();
    for (const match of normalized.matchAll(WORD_RE)) {
      const word = match[0];
      this.add(v, `w:${word}`, this.wordWeight);
      const marked = `<${word}>`;
      const chars = Array.from(marked);
      for (let n = this.minN; n <= this.maxN; n++) {
        for (let i = 0; i + n <= chars.length; i++) this.add(v, chars.slice(i, i + n).join(''), 1);
      }
    }
    return l2NormalizeInPlace(v);
  }

  private add(v: Float32Array, feature: string, weight: number): void {
    const h = fnv1a(feature, this.seed);
    const index = h % this.dimensions;
    // An independent bit of a second hash decides the sign.
    const sign = fnv1a(feature, this.seed ^ 0x9e3779b9) & 1 ? 1 : -1;
    v[index]! += sign * weight;
  }
}

/** 32-bit FNV-1a over UTF-16 code units, mixed with a seed; unsigned result. */
function fnv1a(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Final avalanche (murmur3 fmix32) so the low bits used for the index are well mixed.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
