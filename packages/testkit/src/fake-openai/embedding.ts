import { createHash } from 'node:crypto';

/**
 * A deterministic "embedding" by feature hashing: every lower-cased word adds ±1 to a dimension
 * chosen by its hash, then the vector is L2-normalised. Texts sharing words get a positive cosine
 * similarity, so retrieval tests behave sensibly, and the same text always gives the same vector.
 * An empty text maps to a unit vector on dimension 0.
 */
export function hashEmbedding(text: string, dimensions = 64): number[] {
  if (!Number.isInteger(dimensions) || dimensions < 1)
    throw new RangeError('dimensions must be a positive integer');
  const vector = new Array<number>(dimensions).fill(0);
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const word of words) {
    const digest = createHash('sha256').update(word).digest();
    const index = digest.readUInt32BE(0) % dimensions;
    vector[index]! += (digest[4]! & 1) === 0 ? 1 : -1;
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  const scale = 1 / Math.sqrt(norm);
  return vector.map((x) => x * scale);
}

/** Float32 little-endian bytes in base64: the `encoding_format: "base64"` wire form. */
export function encodeEmbeddingBase64(vector: readonly number[]): string {
  const floats = Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64');
}
