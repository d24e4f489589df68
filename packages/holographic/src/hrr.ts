/**
 * Holographic Reduced Representations in phase form (Plate 1995; Gayler 2004), reproducing the
 * reference's `holographic.py`: a concept is `dim` angles in [0, 2π); bind adds phases, unbind
 * subtracts them, bundle is the circular mean and similarity the mean cosine of the differences.
 *
 * Atoms are derived from SHA-256 counter blocks, so they are identical bit for bit on every
 * platform. Derived vectors go through cos/sin/atan2, which may differ from numpy in the last ulp.
 */
import { sha256Into } from './sha256';

export type PhaseVector = Float64Array;

export const TWO_PI = 2 * Math.PI;
const PHASE_SCALE = TWO_PI / 65536;
export const ROLE_CONTENT = '__hrr_role_content__';
export const ROLE_ENTITY = '__hrr_role_entity__';
export const EMPTY_ATOM = '__hrr_empty__';
export const HRR_BLOB_PREFIX = 'HRR1';
const PREFIX_BYTES = Buffer.from(HRR_BLOB_PREFIX, 'latin1');
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Python's `%` on floats: the result takes the sign of the divisor. */
function pmod(x: number): number {
  const r = x % TWO_PI;
  return r < 0 ? r + TWO_PI : r;
}

// Atom phases are k · 2π/65536 for a uint16 k, so an atom is stored as its Uint16Array of k and
// cos/sin come from two 65,536-entry tables: bundling does no trigonometry per token, and the table
// values are exactly Math.cos/sin of the phase the reference computes. Atoms cost dim/16 SHA-256
// blocks each, so they are LRU-cached (2 bytes per dimension: 16,384 atoms of dim 1024 = 32 MiB).
const COS_TABLE = new Float64Array(65536);
const SIN_TABLE = new Float64Array(65536);
/** cos, sin of code k at [2k], [2k + 1]: one cache line per lookup on the bundling path. */
const TRIG_TABLE = new Float64Array(2 * 65536);
for (let k = 0; k < 65536; k++) {
  COS_TABLE[k] = Math.cos(k * PHASE_SCALE);
  SIN_TABLE[k] = Math.sin(k * PHASE_SCALE);
  TRIG_TABLE[2 * k] = COS_TABLE[k]!;
  TRIG_TABLE[2 * k + 1] = SIN_TABLE[k]!;
}
const ATOM_CACHE_MAX = 16_384;
// Table lookups at random codes miss the CPU cache; an atom seen again gets its own contiguous
// cos/sin (16 bytes per dimension), for at most HOT_MAX atoms at a time (16 MiB at dim 1024).
const HOT_MAX = 1024;
interface Atom {
  codes: Uint16Array;
  hits: number;
  /** Interleaved cos, sin per dimension once the atom is hot. */
  trig: Float64Array | null;
}
// Two-generation LRU approximation: hits in `young` cost one lookup; hits in `old` are promoted;
// when `young` is full it becomes `old` (no per-hit delete/re-insert churn on a large Map).
let young = new Map<string, Atom>();
let old = new Map<string, Atom>();
let hotAtoms = 0;
const digest = new Uint8Array(32);

function cachedAtom(word: string, dim: number): Atom {
  const key = `${dim}\u0000${word}`;
  let hit = young.get(key);
  if (hit === undefined) {
    hit = old.get(key);
    if (hit !== undefined) {
      old.delete(key);
      remember(key, hit);
    }
  }
  if (hit !== undefined) {
    if (++hit.hits >= 2 && hit.trig === null && hotAtoms < HOT_MAX) {
      const trig = new Float64Array(2 * dim);
      for (let i = 0; i < dim; i++) {
        const k = hit.codes[i]!;
        trig[2 * i] = TRIG_TABLE[2 * k]!;
        trig[2 * i + 1] = TRIG_TABLE[2 * k + 1]!;
      }
      hit.trig = trig;
      hotAtoms++;
    }
    return hit;
  }
  const codes = new Uint16Array(dim);
  const blocks = Math.ceil(dim / 16);
  let k = 0;
  for (let i = 0; i < blocks && k < dim; i++) {
    sha256Into(`${word}:${i}`, digest);
    for (let j = 0; j < 16 && k < dim; j++) codes[k++] = digest[j * 2]! | (digest[j * 2 + 1]! << 8);
  }
  const atom: Atom = { codes, hits: 1, trig: null };
  remember(key, atom);
  return atom;
}

function remember(key: string, atom: Atom): void {
  young.set(key, atom);
  if (young.size < ATOM_CACHE_MAX / 2) return;
  for (const dropped of old.values()) if (dropped.trig) hotAtoms--;
  old = young;
  young = new Map();
}

function atomCodes(word: string, dim: number): Uint16Array {
  return cachedAtom(word, dim).codes;
}

function codesToPhases(codes: Uint16Array): Float64Array {
  const out = new Float64Array(codes.length);
  for (let i = 0; i < codes.length; i++) out[i] = codes[i]! * PHASE_SCALE;
  return out;
}

/** Deterministic phase vector for a word (SHA-256 of `"<word>:<i>"`, uint16 little endian). */
export function encodeAtom(word: string, dim = 1024): PhaseVector {
  assertDim(dim);
  return codesToPhases(atomCodes(word, dim));
}

export function clearAtomCache(): void {
  young = new Map();
  old = new Map();
  hotAtoms = 0;
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
  const acc = new BundleAccumulator(first.length);
  for (const v of vectors) acc.add(v);
  return acc.result();
}

/** A streaming `bundle`: add vectors one at a time (constant memory), then take the circular mean. */
export class BundleAccumulator {
  /** Interleaved Σcos, Σsin per dimension. */
  private readonly acc: Float64Array;
  count = 0;

  constructor(readonly dim: number) {
    this.acc = new Float64Array(2 * dim);
  }

  add(v: ArrayLike<number>): void {
    if (v.length !== this.dim) throw new RangeError(`bundle: dim mismatch (${v.length} vs ${this.dim})`);
    const acc = this.acc;
    for (let i = 0; i < this.dim; i++) {
      acc[2 * i]! += Math.cos(v[i]!);
      acc[2 * i + 1]! += Math.sin(v[i]!);
    }
    this.count++;
  }

  /** `add`, returning the vector's interleaved cos/sin terms for `addTerms` to add again later. */
  addKeepingTerms(v: ArrayLike<number>): Float64Array {
    if (v.length !== this.dim) throw new RangeError(`bundle: dim mismatch (${v.length} vs ${this.dim})`);
    const terms = new Float64Array(2 * this.dim);
    for (let i = 0; i < this.dim; i++) {
      terms[2 * i] = Math.cos(v[i]!);
      terms[2 * i + 1] = Math.sin(v[i]!);
    }
    this.addTerms(terms);
    return terms;
  }

  /** Add the cos/sin terms `addKeepingTerms` returned (the same sums as adding the vector). */
  addTerms(terms: Float64Array): void {
    if (terms.length !== 2 * this.dim)
      throw new RangeError(`bundle: dim mismatch (${terms.length / 2} vs ${this.dim})`);
    const acc = this.acc;
    for (let j = 0; j < terms.length; j++) acc[j]! += terms[j]!;
    this.count++;
  }

  result(): PhaseVector {
    return anglesOf(this.acc);
  }
}

function anglesOf(acc: Float64Array): PhaseVector {
  const out = new Float64Array(acc.length >> 1);
  // atan2 is in [−π, π], where Python's `% 2π` is the identity for x ≥ 0 (−0 included) and x + 2π
  // below 0: the same bits as pmod without a floating-point modulo.
  for (let i = 0; i < out.length; i++) {
    const a = Math.atan2(acc[2 * i + 1]!, acc[2 * i]!);
    out[i] = a < 0 ? a + TWO_PI : a;
  }
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

/**
 * Sum e^{i·atom} over tokens into `acc` (interleaved re, im), without allocating per token. Each
 * dimension's sum runs over the tokens in order, as the reference's does.
 */
function accumulateText(tokens: readonly string[], dim: number, acc: Float64Array): void {
  const n = 2 * dim;
  for (const token of tokens) {
    const atom = cachedAtom(token, dim);
    const trig = atom.trig;
    if (trig) {
      for (let j = 0; j < n; j++) acc[j]! += trig[j]!;
      continue;
    }
    const codes = atom.codes;
    for (let i = 0; i < dim; i++) {
      const k = 2 * codes[i]!;
      acc[2 * i]! += TRIG_TABLE[k]!;
      acc[2 * i + 1]! += TRIG_TABLE[k + 1]!;
    }
  }
}

/** Bag-of-words bundle of token atoms; no tokens gives the `__hrr_empty__` atom. */
export function encodeText(text: string, dim = 1024): PhaseVector {
  assertDim(dim);
  const tokens = hrrTokens(text);
  if (tokens.length === 0) return encodeAtom(EMPTY_ATOM, dim);
  const acc = new Float64Array(2 * dim);
  accumulateText(tokens, dim, acc);
  return anglesOf(acc);
}

/**
 * bundle(bind(text, R_content), bind(atom(entity.lower()), R_entity)...), without trigonometry per
 * dimension except the final atan2: the text's unit phasor (re, im)/|z| is rotated by the role's
 * phase with table cos/sin (cos(θ+ρ) = cosθ·cosρ − sinθ·sinρ), and an entity's bound phase is the
 * uint16 sum of the two atoms' codes. Equal to the reference's formula up to float rounding (~1e-15).
 */
export function encodeFact(content: string, entities: readonly string[], dim = 1024): PhaseVector {
  assertDim(dim);
  const tokens = hrrTokens(content);
  const acc = new Float64Array(2 * dim);
  const rc = atomCodes(ROLE_CONTENT, dim);
  if (tokens.length === 0) {
    // The empty atom bound to the content role: (e + r) mod 2π on the uint16 grid.
    const empty = atomCodes(EMPTY_ATOM, dim);
    for (let i = 0; i < dim; i++) {
      const k = 2 * ((empty[i]! + rc[i]!) & 0xffff);
      acc[2 * i] = TRIG_TABLE[k]!;
      acc[2 * i + 1] = TRIG_TABLE[k + 1]!;
    }
  } else {
    accumulateText(tokens, dim, acc);
    for (let i = 0; i < dim; i++) {
      const x = acc[2 * i]!;
      const y = acc[2 * i + 1]!;
      const r = Math.sqrt(x * x + y * y);
      // atan2(0, 0) = 0: the phasor of angle 0.
      const c = r > 0 ? x / r : 1;
      const s = r > 0 ? y / r : 0;
      const k = 2 * rc[i]!;
      const cr = TRIG_TABLE[k]!;
      const sr = TRIG_TABLE[k + 1]!;
      acc[2 * i] = c * cr - s * sr;
      acc[2 * i + 1] = s * cr + c * sr;
    }
  }
  const roleEntity = entities.length > 0 ? atomCodes(ROLE_ENTITY, dim) : null;
  for (const entity of entities) {
    const atom = atomCodes(entity.toLowerCase(), dim);
    for (let i = 0; i < dim; i++) {
      const k = 2 * ((atom[i]! + roleEntity![i]!) & 0xffff);
      acc[2 * i]! += TRIG_TABLE[k]!;
      acc[2 * i + 1]! += TRIG_TABLE[k + 1]!;
    }
  }
  return anglesOf(acc);
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
  if (LITTLE_ENDIAN) {
    // The 4-byte prefix keeps the payload 4-aligned in a fresh (unpooled) buffer's ArrayBuffer.
    const payload = new Float32Array(dim);
    payload.set(phases);
    buf.set(new Uint8Array(payload.buffer), PREFIX_BYTES.length);
  } else for (let i = 0; i < dim; i++) buf.writeFloatLE(phases[i]!, PREFIX_BYTES.length + i * 4);
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
