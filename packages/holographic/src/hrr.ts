/**
 * Holographic Reduced Representations in phase form (Plate 1995; Gayler 2004), reproducing the
 * reference's `holographic.py`: a concept is `dim` angles in [0, 2π); bind adds phases, unbind
 * subtracts them, bundle is the circular mean and similarity the mean cosine of the differences.
 *
 * Atoms are derived from SHA-256 counter blocks, so they are identical bit for bit on every
 * platform. Derived vectors go through cos/sin/atan2, which may differ from numpy in the last ulp.
 */
import { createHash } from 'node:crypto';

export type PhaseVector = Float64Array;

export const TWO_PI = 2 * Math.PI;
const PHASE_SCALE = TWO_PI / 65536;
export const ROLE_CONTENT = '__hrr_role_content__';
export const ROLE_ENTITY = '__hrr_role_entity__';
export const EMPTY_ATOM = '__hrr_empty__';
export const HRR_BLOB_PREFIX = 'HRR1';
const PREFIX_BYTES = Buffer.from(HRR_BLOB_PREFIX, 'latin1');

/** Python's `%` on floats: the result takes the sign of the divisor. */
function pmod(x: number): number {
  const r = x % TWO_PI;
  return r < 0 ? r + TWO_PI : r;
}

// Atoms repeat across facts and queries; each costs dim/16 SHA-256 blocks. Cached with their
// cos/sin so bundling needs no trigonometry per token (LRU, same bound as the reference).
interface CachedAtom {
  phases: Float64Array;
  cos: Float64Array;
  sin: Float64Array;
}
const ATOM_CACHE_MAX = 4096;
const atomCache = new Map<string, CachedAtom>();

function cachedAtom(word: string, dim: number): CachedAtom {
  const key = `${dim}\u0000${word}`;
  const hit = atomCache.get(key);
  if (hit) {
    atomCache.delete(key);
    atomCache.set(key, hit);
    return hit;
  }
  const phases = new Float64Array(dim);
  const blocks = Math.ceil(dim / 16);
  let k = 0;
  for (let i = 0; i < blocks && k < dim; i++) {
    const digest = createHash('sha256').update(`${word}:${i}`, 'utf8').digest();
    for (let j = 0; j < 16 && k < dim; j++) phases[k++] = digest.readUInt16LE(j * 2) * PHASE_SCALE;
  }
  const cos = new Float64Array(dim);
  const sin = new Float64Array(dim);
  for (let i = 0; i < dim; i++) {
    cos[i] = Math.cos(phases[i]!);
    sin[i] = Math.sin(phases[i]!);
  }
  const entry = { phases, cos, sin };
  atomCache.set(key, entry);
  if (atomCache.size > ATOM_CACHE_MAX) {
    const oldest = atomCache.keys().next().value;
    if (oldest !== undefined) atomCache.delete(oldest);
  }
  return entry;
}

/** Deterministic phase vector for a word (SHA-256 of `"<word>:<i>"`, uint16 little endian). */
export function encodeAtom(word: string, dim = 1024): PhaseVector {
  assertDim(dim);
  return cachedAtom(word, dim).phases.slice();
}

export function clearAtomCache(): void {
  atomCache.clear();
}

/** Phase addition: the phase form of circular convolution. */
export function bind(a: PhaseVector, b: PhaseVector): PhaseVector {
  const out = new Float64Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = pmod(a[i]! + b[i]!);
  return out;
}

/** Phase subtraction: `unbind(bind(a, b), a) ≈ b`. */
export function unbind(memory: PhaseVector, key: PhaseVector): PhaseVector {
  const out = new Float64Array(memory.length);
  for (let i = 0; i < memory.length; i++) out[i] = pmod(memory[i]! - key[i]!);
  return out;
}

/** Circular mean: the angle of the sum of e^{iv} over the inputs, mod 2π. */
export function bundle(...vectors: PhaseVector[]): PhaseVector {
  const first = vectors[0];
  if (!first) throw new RangeError('bundle needs at least one vector');
  const dim = first.length;
  const re = new Float64Array(dim);
  const im = new Float64Array(dim);
  for (const v of vectors) {
    for (let i = 0; i < dim; i++) {
      re[i]! += Math.cos(v[i]!);
      im[i]! += Math.sin(v[i]!);
    }
  }
  return anglesOf(re, im);
}

function anglesOf(re: Float64Array, im: Float64Array): PhaseVector {
  const out = new Float64Array(re.length);
  for (let i = 0; i < re.length; i++) out[i] = pmod(Math.atan2(im[i]!, re[i]!));
  return out;
}

/** Mean of cos(a − b), in [−1, 1]. Mismatched dimensions give 0 (and a warning), never a throw. */
export function similarity(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  warn?: (message: string) => void,
): number {
  if (a.length !== b.length) {
    warn?.(`HRR similarity: dim mismatch (${a.length} vs ${b.length}); returning 0.0`);
    return 0;
  }
  if (a.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.cos(a[i]! - b[i]!);
  return sum / a.length;
}

const TOKEN_STRIP = new Set('.,!?;:"\'()[]{}');

/** Python `str.split()` whitespace (Unicode White_Space plus the ASCII separators 0x1c–0x1f). */
export const PY_WHITESPACE = /[\s\u001c-\u001f\u0085]+/u;

/** The reference's bag-of-words tokens: lowercase, split on whitespace, strip punctuation at both ends. */
export function hrrTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(PY_WHITESPACE)) {
    let s = 0;
    let e = raw.length;
    while (s < e && TOKEN_STRIP.has(raw[s]!)) s++;
    while (e > s && TOKEN_STRIP.has(raw[e - 1]!)) e--;
    if (e > s) out.push(raw.slice(s, e));
  }
  return out;
}

/** Sum e^{i·atom} over tokens into (re, im) without allocating per token. */
function accumulateText(tokens: readonly string[], dim: number, re: Float64Array, im: Float64Array): void {
  for (const token of tokens) {
    const atom = cachedAtom(token, dim);
    for (let i = 0; i < dim; i++) {
      re[i]! += atom.cos[i]!;
      im[i]! += atom.sin[i]!;
    }
  }
}

/** Bag-of-words bundle of token atoms; no tokens gives the `__hrr_empty__` atom. */
export function encodeText(text: string, dim = 1024): PhaseVector {
  assertDim(dim);
  const tokens = hrrTokens(text);
  if (tokens.length === 0) return encodeAtom(EMPTY_ATOM, dim);
  const re = new Float64Array(dim);
  const im = new Float64Array(dim);
  accumulateText(tokens, dim, re, im);
  return anglesOf(re, im);
}

/** bundle(bind(text, R_content), bind(atom(entity.lower()), R_entity)...). */
export function encodeFact(content: string, entities: readonly string[], dim = 1024): PhaseVector {
  const text = encodeText(content, dim);
  const rc = cachedAtom(ROLE_CONTENT, dim).phases;
  const re_ = cachedAtom(ROLE_ENTITY, dim).phases;
  const re = new Float64Array(dim);
  const im = new Float64Array(dim);
  for (let i = 0; i < dim; i++) {
    const p = pmod(text[i]! + rc[i]!);
    re[i] = Math.cos(p);
    im[i] = Math.sin(p);
  }
  for (const entity of entities) {
    const atom = cachedAtom(entity.toLowerCase(), dim).phases;
    for (let i = 0; i < dim; i++) {
      const p = pmod(atom[i]! + re_[i]!);
      re[i]! += Math.cos(p);
      im[i]! += Math.sin(p);
    }
  }
  return anglesOf(re, im);
}

/** sqrt(dim / n), or Infinity when empty. Below 2.0 (n > dim/4) retrieval degrades. */
export function snrEstimate(dim: number, nItems: number, warn?: (message: string) => void): number {
  const snr = nItems > 0 ? Math.sqrt(dim / nItems) : Number.POSITIVE_INFINITY;
  if (snr < 2) warn?.(`HRR storage near capacity: SNR=${snr.toFixed(2)} (dim=${dim}, n_items=${nItems}).`);
  return snr;
}

export type VectorFormat = 'float32' | 'float64';

/**
 * Serialise phases. `float32` (default, the newer reference) writes `HRR1` + float32 LE; at dim 1
 * that collides with the legacy size, so legacy float64 is written there. `float64` writes the
 * mainline raw float64 blob that every reference version reads.
 */
export function phasesToBytes(phases: ArrayLike<number>, format: VectorFormat = 'float32'): Buffer {
  const dim = phases.length;
  if (format === 'float64' || PREFIX_BYTES.length + dim * 4 === dim * 8) {
    const buf = Buffer.allocUnsafe(dim * 8);
    for (let i = 0; i < dim; i++) buf.writeDoubleLE(phases[i]!, i * 8);
    return buf;
  }
  const buf = Buffer.allocUnsafe(PREFIX_BYTES.length + dim * 4);
  PREFIX_BYTES.copy(buf, 0);
  for (let i = 0; i < dim; i++) buf.writeFloatLE(phases[i]!, PREFIX_BYTES.length + i * 4);
  return buf;
}

function isPrefixed(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0x48 && data[1] === 0x52 && data[2] === 0x52 && data[3] === 0x31;
}

function readF32(data: Uint8Array, offset: number, n: number): Float64Array {
  const view = new DataView(data.buffer, data.byteOffset + offset, n * 4);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

function readF64(data: Uint8Array, n: number): Float64Array {
  const view = new DataView(data.buffer, data.byteOffset, n * 8);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat64(i * 8, true);
  return out;
}

/** Decode a prefixed float32 or legacy float64 blob. A wrong length is an error. */
export function bytesToPhases(data: Uint8Array, dim?: number): PhaseVector {
  const plen = PREFIX_BYTES.length;
  const prefixed = isPrefixed(data);
  if (dim === undefined) {
    if (prefixed) {
      const payload = data.length - plen;
      if (payload % 4 !== 0)
        throw new RangeError(`HRR float32 vector blob has invalid payload byte length: ${payload}`);
      return readF32(data, plen, payload / 4);
    }
    if (data.length % 8 !== 0)
      throw new RangeError(`HRR legacy vector blob has invalid byte length: ${data.length}`);
    return readF64(data, data.length / 8);
  }
  const f32Bytes = plen + dim * 4;
  const f64Bytes = dim * 8;
  const collides = f32Bytes === f64Bytes;
  if (!collides && prefixed && data.length === f32Bytes) return readF32(data, plen, dim);
  if (data.length === f64Bytes) return readF64(data, dim);
  if (!prefixed) {
    throw new RangeError(
      `HRR legacy vector blob has ${data.length} bytes; expected ${f64Bytes} (float64) for dim=${dim}`,
    );
  }
  const expected = collides
    ? `${f64Bytes} (legacy float64)`
    : `${f32Bytes} (prefixed float32) or ${f64Bytes} (legacy float64)`;
  throw new RangeError(
    `HRR vector blob has ${data.length} bytes (${data.length - plen} payload bytes after the float32 prefix); expected ${expected} for dim=${dim}`,
  );
}

function assertDim(dim: number): void {
  if (!Number.isInteger(dim) || dim < 1 || dim > 1 << 20)
    throw new RangeError(`HRR dim must be a positive integer, got ${dim}`);
}
