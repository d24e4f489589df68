/**
 * Dot products of one query with every row of a float32 matrix, in WebAssembly SIMD (four lanes
 * per instruction): the dense scan over all facts is the largest cost of a search with embeddings,
 * and plain JavaScript cannot vectorise it. The module is 200 bytes assembled below, instruction by
 * instruction; engines without SIMD (or dims not divisible by 4) use the JavaScript loop instead.
 *
 * The exported function, in WebAssembly text form:
 *
 *   (func (export "dots") (param $q i32) (param $m i32) (param $rows i32) (param $dimBytes i32)
 *                         (param $out i32) (local $r i32) (local $i i32) (local $p i32) (local $acc v128)
 *     p = m; r = 0
 *     block loop
 *       br_if 1 (r >= rows)
 *       acc = 0; i = 0
 *       loop  acc += f32x4(mem[p]) * f32x4(mem[q + i]); p += 16; i += 16; br_if 0 (i < dimBytes)  end
 *       mem[out + 4r] = acc[0] + acc[1] + acc[2] + acc[3]
 *       r += 1; br 0
 *     end end)
 *
 * Sums are float32 (the JavaScript loop sums in float64): cosines agree to ~1e-7.
 */

const BODY = [
  [0x02, 0x03, 0x7f, 0x01, 0x7b], // locals: 3 × i32 (r, i, p), 1 × v128 (acc)
  [0x20, 0x01, 0x21, 0x07], // p = m
  [0x41, 0x00, 0x21, 0x05], // r = 0
  [0x02, 0x40, 0x03, 0x40], // block, loop
  [0x20, 0x05, 0x20, 0x02, 0x4f, 0x0d, 0x01], // br_if 1 (r >= rows)
  [0xfd, 0x0c, ...new Array<number>(16).fill(0), 0x21, 0x08], // acc = v128.const 0
  [0x41, 0x00, 0x21, 0x06], // i = 0
  [0x03, 0x40, 0x20, 0x08], // loop; push acc
  [0x20, 0x07, 0xfd, 0x00, 0x02, 0x00], // v128.load p
  [0x20, 0x00, 0x20, 0x06, 0x6a, 0xfd, 0x00, 0x02, 0x00], // v128.load (q + i)
  [0xfd, 0xe6, 0x01, 0xfd, 0xe4, 0x01, 0x21, 0x08], // f32x4.mul, f32x4.add, acc =
  [0x20, 0x07, 0x41, 0x10, 0x6a, 0x21, 0x07], // p += 16
  [0x20, 0x06, 0x41, 0x10, 0x6a, 0x22, 0x06], // i += 16 (tee)
  [0x20, 0x03, 0x49, 0x0d, 0x00, 0x0b], // br_if 0 (i < dimBytes); end loop
  [0x20, 0x04, 0x20, 0x05, 0x41, 0x02, 0x74, 0x6a], // address out + 4r
  [0x20, 0x08, 0xfd, 0x1f, 0x00], // acc[0]
  [0x20, 0x08, 0xfd, 0x1f, 0x01, 0x92], // + acc[1]
  [0x20, 0x08, 0xfd, 0x1f, 0x02, 0x92], // + acc[2]
  [0x20, 0x08, 0xfd, 0x1f, 0x03, 0x92], // + acc[3]
  [0x38, 0x02, 0x00], // f32.store
  [0x20, 0x05, 0x41, 0x01, 0x6a, 0x21, 0x05], // r += 1
  [0x0c, 0x00, 0x0b, 0x0b, 0x0b], // br 0; end loop; end block; end func
].flat();

function leb128(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}

const section = (id: number, bytes: number[]) => [id, ...leb128(bytes.length), ...bytes];
const name = (s: string) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];

const MODULE_BYTES = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
  ...section(1, [0x01, 0x60, 0x05, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x00]), // type: (5 × i32) → ()
  ...section(3, [0x01, 0x00]), // one function of type 0
  ...section(5, [0x01, 0x00, 0x01]), // one memory, at least 1 page
  ...section(7, [0x02, ...name('memory'), 0x02, 0x00, ...name('dots'), 0x00, 0x00]),
  ...section(10, [0x01, ...leb128(BODY.length), ...BODY]),
]);

const PAGE = 65_536;

// The few WebAssembly APIs used, typed here: this package compiles without the DOM library.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => WasmInstance;
}
const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
let compiled: object | null | undefined;

function simdModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm?.validate(MODULE_BYTES) ? new wasm.Module(MODULE_BYTES) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * A growable row-major float32 matrix in WebAssembly memory with a SIMD scan. Layout: the query
 * (dim floats), the matrix (capacity × dim), then one score per row. Growing keeps the rows in place;
 * views (`matrix`) are re-created because growing memory detaches the old buffer.
 */
export class SimdMatrix {
  matrix: Float32Array;
  private capacity: number;
  private readonly memory: WasmMemory;
  private readonly dots: (q: number, m: number, rows: number, dimBytes: number, out: number) => void;

  private constructor(
    readonly dim: number,
    capacity: number,
    instance: WasmInstance,
  ) {
    this.memory = instance.exports.memory as WasmMemory;
    this.dots = instance.exports.dots as SimdMatrix['dots'];
    this.capacity = 0;
    this.matrix = new Float32Array(0);
    this.reserve(capacity);
  }

  /** A matrix for `dim`-float rows, or null without WebAssembly SIMD or when dim % 4 ≠ 0. */
  static create(dim: number, capacity: number): SimdMatrix | null {
    const module = dim > 0 && dim % 4 === 0 ? simdModule() : null;
    if (!module || !wasm) return null;
    return new SimdMatrix(dim, capacity, new wasm.Instance(module));
  }

  /** Room for `capacity` rows; returns the (new) matrix view with every row kept. */
  reserve(capacity: number): Float32Array {
    if (capacity > this.capacity) {
      const bytes = 4 * (this.dim + capacity * this.dim + capacity);
      const pages = Math.ceil(bytes / PAGE);
      const have = this.memory.buffer.byteLength / PAGE;
      if (pages > have) this.memory.grow(pages - have);
      this.capacity = capacity;
    }
    this.matrix = new Float32Array(this.memory.buffer, 4 * this.dim, this.capacity * this.dim);
    return this.matrix;
  }

  /** `query` · row for the first `rows` rows (a view, valid until the next call or growth). */
  scores(query: Float32Array, rows: number): Float32Array {
    const buffer = this.memory.buffer;
    new Float32Array(buffer, 0, this.dim).set(query);
    const out = 4 * (this.dim + this.capacity * this.dim);
    this.dots(0, 4 * this.dim, rows, 4 * this.dim, out);
    return new Float32Array(buffer, out, rows);
  }
}
