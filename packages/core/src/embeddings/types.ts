/**
 * Turns texts into vectors. Implementations must be deterministic for a given `id`, return one
 * L2-normalised vector of `dimensions` floats per input text, in input order.
 */
export interface Embedder {
  /** Stable identifier of the model and its settings; cache keys and stored vectors use it. */
  readonly id: string;
  readonly dimensions: number;
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<Float32Array[]>;
}

/** Cosine similarity of two equal-length vectors (plain dot product when both are normalised). */
export function cosineSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  if (na === 0 || nb === 0) return 0;
  return dot / Math.sqrt(na * nb);
}
