/**
 * In-memory dense index: every fact embedding of one model in a contiguous row-major Float32Array,
 * L2-normalised on insert, so a query is one tight dot-product loop over the matrix (64 dims ×
 * 100k facts ≈ 6.4M multiply-adds, a few milliseconds). Rows are appended on embed and tombstoned
 * on delete; the matrix is compacted when a quarter of it is dead.
 */
import { SimdMatrix } from './simd-dot';

export class DenseIndex {
  readonly model: string;
  readonly dim: number;
  private matrix: Float32Array;
  private ids: Int32Array;
  private rows = 0;
  private dead = 0;
  private readonly rowOf = new Map<number, number>();

  /** The matrix in WebAssembly memory with a SIMD scan, when the engine has SIMD (null: plain JS). */
  private simd: SimdMatrix | null;

  constructor(model: string, dim: number, capacity = 1024, options: { simd?: boolean } = {}) {
    this.model = model;
    this.dim = dim;
    const cap = Math.max(1, capacity);
    this.simd = options.simd === false ? null : SimdMatrix.create(dim, cap);
    this.matrix = this.simd ? this.simd.matrix : new Float32Array(cap * dim);
    this.ids = new Int32Array(cap);
  }

  /** Number of live vectors. */
  get size(): number {
    return this.rows - this.dead;
  }

  has(factId: number): boolean {
    return this.rowOf.has(factId);
  }

  /** Insert or replace a fact's vector (copied and L2-normalised). Wrong dimension is ignored. */
  set(factId: number, vector: ArrayLike<number>): void {
    if (vector.length !== this.dim) return;
    this.remove(factId);
    if (this.rows === this.ids.length) this.grow();
    const row = this.rows++;
    const off = row * this.dim;
    let norm = 0;
    for (let i = 0; i < this.dim; i++) {
      const x = vector[i] ?? 0;
      this.matrix[off + i] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    if (norm > 0 && Math.abs(norm - 1) > 1e-6)
      for (let i = 0; i < this.dim; i++) this.matrix[off + i]! /= norm;
    this.ids[row] = factId;
    this.rowOf.set(factId, row);
  }

  remove(factId: number): void {
    const row = this.rowOf.get(factId);
    if (row === undefined) return;
    this.rowOf.delete(factId);
    this.ids[row] = -1;
    this.matrix.fill(0, row * this.dim, (row + 1) * this.dim);
    this.dead++;
    if (this.dead > 64 && this.dead * 4 > this.rows) this.compact();
  }

  /** A fact's stored (normalised) vector, or undefined. */
  vector(factId: number): Float32Array | undefined {
    const row = this.rowOf.get(factId);
    if (row === undefined) return undefined;
    return this.matrix.subarray(row * this.dim, (row + 1) * this.dim);
  }

  /**
   * Cosine of `query` with every live row; returns the `k` best as [factId, cosine] pairs, best
   * first. One pass over the matrix plus a bounded min-heap of size k.
   */
  top(query: ArrayLike<number>, k: number): Array<[number, number]> {
    if (query.length !== this.dim || k <= 0 || this.size === 0) return [];
    const q = normalised(query);
    const dim = this.dim;
    const m = this.matrix;
    const heapIds = new Int32Array(k);
    const heapScores = new Float64Array(k);
    let n = 0;
    // One SIMD pass over the whole matrix when available; else the JavaScript loop per row.
    const simd = this.simd?.scores(q, this.rows);
    for (let row = 0; row < this.rows; row++) {
      const id = this.ids[row]!;
      if (id < 0) continue;
      const dot = simd ? simd[row]! : rowDot(m, row * dim, q, dim);
      if (n < k) {
        heapIds[n] = id;
        heapScores[n] = dot;
        siftUp(heapIds, heapScores, n++);
      } else if (dot > heapScores[0]!) {
        heapIds[0] = id;
        heapScores[0] = dot;
        siftDown(heapIds, heapScores, n);
      }
    }
    const out: Array<[number, number]> = [];
    for (let i = 0; i < n; i++) out.push([heapIds[i]!, heapScores[i]!]);
    out.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return out;
  }

  /** Cosine of `query` with one fact (0 when it has no vector). */
  score(query: Float32Array, factId: number): number {
    const row = this.rowOf.get(factId);
    if (row === undefined) return 0;
    const off = row * this.dim;
    let dot = 0;
    for (let i = 0; i < this.dim; i++) dot += this.matrix[off + i]! * query[i]!;
    return dot;
  }

  private grow(): void {
    const cap = this.ids.length * 2;
    let matrix: Float32Array | null = null;
    if (this.simd) {
      try {
        matrix = this.simd.reserve(cap); // rows stay in place
      } catch {
        // WebAssembly memory is capped at 4 GiB: past it, continue in a plain array.
        this.simd = null;
      }
    }
    if (!matrix) {
      matrix = new Float32Array(cap * this.dim);
      matrix.set(this.matrix.subarray(0, this.rows * this.dim));
    }
    const ids = new Int32Array(cap);
    ids.set(this.ids);
    this.matrix = matrix;
    this.ids = ids;
  }

  private compact(): void {
    let w = 0;
    for (let r = 0; r < this.rows; r++) {
      const id = this.ids[r]!;
      if (id < 0) continue;
      if (w !== r) {
        this.matrix.copyWithin(w * this.dim, r * this.dim, (r + 1) * this.dim);
        this.ids[w] = id;
      }
      this.rowOf.set(id, w);
      w++;
    }
    this.matrix.fill(0, w * this.dim, this.rows * this.dim);
    this.ids.fill(-1, w, this.rows);
    this.rows = w;
    this.dead = 0;
  }
}

/** Dot product of `q` with the row at `off`: four partial sums pipeline better than one chain (~15 %). */
function rowDot(m: Float32Array, off: number, q: Float32Array, dim: number): number {
  const tail = dim - (dim % 4);
  let d0 = 0;
  let d1 = 0;
  let d2 = 0;
  let d3 = 0;
  for (let i = 0; i < tail; i += 4) {
    d0 += m[off + i]! * q[i]!;
    d1 += m[off + i + 1]! * q[i + 1]!;
    d2 += m[off + i + 2]! * q[i + 2]!;
    d3 += m[off + i + 3]! * q[i + 3]!;
  }
  for (let i = tail; i < dim; i++) d0 += m[off + i]! * q[i]!;
  return d0 + d1 + d2 + d3;
}

/** A unit-length Float32Array copy of `v` (zero vector stays zero). */
export function normalised(v: ArrayLike<number>): Float32Array {
  const out = new Float32Array(v.length);
  let norm = 0;
  for (let i = 0; i < v.length; i++) {
    out[i] = v[i] ?? 0;
    norm += out[i]! * out[i]!;
  }
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

function siftUp(ids: Int32Array, scores: Float64Array, i: number): void {
  while (i > 0) {
    const p = (i - 1) >> 1;
    if (scores[p]! <= scores[i]!) break;
    swap(ids, scores, i, p);
    i = p;
  }
}

function siftDown(ids: Int32Array, scores: Float64Array, n: number): void {
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let s = i;
    if (l < n && scores[l]! < scores[s]!) s = l;
    if (r < n && scores[r]! < scores[s]!) s = r;
    if (s === i) return;
    swap(ids, scores, i, s);
    i = s;
  }
}

function swap(ids: Int32Array, scores: Float64Array, a: number, b: number): void {
  const ti = ids[a]!;
  ids[a] = ids[b]!;
  ids[b] = ti;
  const ts = scores[a]!;
  scores[a] = scores[b]!;
  scores[b] = ts;
}
