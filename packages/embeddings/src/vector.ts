import { InvalidArgumentError } from '@hermes-memory/core';

/**
 * Scales `v` in place to unit length and returns it. A zero vector (or one whose norm is not finite)
 * is left as all zeros: that is this package's documented answer for "nothing to embed", and it keeps
 * NaN out of every store (cosine with a zero vector is 0 in `cosineSimilarity`).
 */
export function l2NormalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    sum += x * x;
  }
  if (sum === 0 || !Number.isFinite(sum)) {
    v.fill(0);
    return v;
  }
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i]! *= inv;
  return v;
}

/** True when the text holds nothing but whitespace: every embedder maps it to the zero vector. */
export function isBlank(text: string): boolean {
  return text.trim().length === 0;
}

/** Checks the shape of an `embed()` argument once, so every embedder rejects bad input the same way. */
export function assertTexts(texts: unknown, embedderId: string): asserts texts is readonly string[] {
  if (!Array.isArray(texts)) {
    throw new InvalidArgumentError('texts', `${embedderId}: embed() expects an array of strings`);
  }
  for (let i = 0; i < texts.length; i++) {
    if (typeof texts[i] !== 'string') {
      throw new InvalidArgumentError(
        'texts',
        `${embedderId}: embed() expects an array of strings; item ${i} is ${typeof texts[i]}`,
      );
    }
  }
}

/** Throws the signal's reason when it is already aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw signal.reason instanceof Error ? signal.reason : new Error('The operation was aborted');
  }
}
