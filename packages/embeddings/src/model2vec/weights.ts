import { SettingsError } from '@hermes-memory/core';

/** A dense token-embedding table: row `id` holds the vector of token `id`. */
export interface EmbeddingTable {
  vocabSize: number;
  dims: number;
  /** `vocabSize * dims` floats, row-major. */
  table: Float32Array;
  /** Token strings in row order, when the file carries them (GGE1 does). */
  tokens?: string[];
}

const GGE1_MAGIC = 'GGE1';

/**
 * Parses the GGE1 int8 format: magic "GGE1", u32 vocab, u32 dims, f32 scale per row, i8 rows,
 * then `vocab` × (u16 length, UTF-8 bytes) token strings — all little-endian. The table is
 * dequantised once (q * scale) so that pooling is a plain float add.
 */
export function parseGge1(bytes: Uint8Array, source = 'GGE1 file'): EmbeddingTable {
  const fail = (why: string): never => {
    throw new SettingsError('model', `${source} is not a valid GGE1 model: ${why}`);
  };
  if (bytes.length < 12) fail('file is too short');
  const magic = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!);
  if (magic !== GGE1_MAGIC) fail(`bad magic '${magic}'`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vocabSize = view.getUint32(4, true);
  const dims = view.getUint32(8, true);
  if (vocabSize === 0 || dims === 0 || dims > 65536) fail(`implausible shape ${vocabSize}x${dims}`);
  const scalesAt = 12;
  const rowsAt = scalesAt + 4 * vocabSize;
  const tokensAt = rowsAt + vocabSize * dims;
  if (tokensAt > bytes.length) fail('file is truncated inside the vector table');

  const table = new Float32Array(vocabSize * dims);
  const q = new Int8Array(bytes.buffer, bytes.byteOffset + rowsAt, vocabSize * dims);
  for (let row = 0; row < vocabSize; row++) {
    const scale = view.getFloat32(scalesAt + 4 * row, true);
    if (!Number.isFinite(scale)) fail(`row ${row} has a non-finite scale`);
    const base = row * dims;
    for (let j = 0; j < dims; j++) table[base + j] = q[base + j]! * scale;
  }

  const decoder = new TextDecoder('utf-8', { fatal: true });
  const tokens: string[] = new Array(vocabSize);
  let at = tokensAt;
  for (let i = 0; i < vocabSize; i++) {
    if (at + 2 > bytes.length) fail(`file is truncated in the token list (token ${i})`);
    const len = view.getUint16(at, true);
    at += 2;
    if (at + len > bytes.length) fail(`file is truncated in the token list (token ${i})`);
    try {
      tokens[i] = decoder.decode(bytes.subarray(at, at + len));
    } catch (cause) {
      throw new SettingsError('model', `${source}: token ${i} is not valid UTF-8`, { cause });
    }
    at += len;
  }
  if (at !== bytes.length) fail(`${bytes.length - at} unexpected trailing bytes`);
  return { vocabSize, dims, table, tokens };
}

interface SafetensorsEntry {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

/**
 * Reads a Model2Vec `model.safetensors`: tensor `embeddings` (F32, F16 or BF16, shape [rows, dims]),
 * and, for newer Model2Vec models, optional `weights` (one scale per token) and `mapping`
 * (token id → row, I32/I64). The result is expanded to one float row per token.
 */
export function parseModel2VecSafetensors(bytes: Uint8Array, source = 'model.safetensors'): EmbeddingTable {
  const fail = (why: string): never => {
    throw new SettingsError('model', `${source} is not a valid Model2Vec safetensors file: ${why}`);
  };
  if (bytes.length < 8) fail('file is too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength <= 0 || 8 + headerLength > bytes.length) fail('bad header length');
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<
      string,
      unknown
    >;
  } catch (cause) {
    throw new SettingsError('model', `${source}: header is not JSON`, { cause });
  }
  const dataStart = 8 + headerLength;
  const entry = (name: string): SafetensorsEntry | undefined => {
    const e = header[name];
    if (e === undefined) return undefined;
    const r = e as SafetensorsEntry;
    if (!r || !Array.isArray(r.shape) || !Array.isArray(r.data_offsets) || typeof r.dtype !== 'string') {
      fail(`tensor '${name}' has a malformed header entry`);
    }
    const [from, to] = r.data_offsets;
    if (!(from >= 0 && to >= from && dataStart + to <= bytes.length))
      fail(`tensor '${name}' lies outside the file`);
    return r;
  };
  const emb = entry('embeddings') ?? fail("no 'embeddings' tensor");
  if (emb.shape.length !== 2) fail(`'embeddings' must be 2-D, got [${emb.shape.join(', ')}]`);
  const [rows, dims] = emb.shape as [number, number];
  const rowTable = readFloats(bytes, dataStart, emb, rows * dims, fail);

  const weightsEntry = entry('weights');
  const weights = weightsEntry
    ? readFloats(bytes, dataStart, weightsEntry, weightsEntry.shape[0] ?? 0, fail)
    : undefined;
  const mappingEntry = entry('mapping');
  const mapping = mappingEntry ? readInts(bytes, dataStart, mappingEntry, fail) : undefined;
  const vocabSize = mapping ? mapping.length : weights ? weights.length : rows;
  if (weights && weights.length !== vocabSize)
    fail(`'weights' has ${weights.length} entries, expected ${vocabSize}`);
  if (!mapping && !weights) return { vocabSize, dims, table: rowTable };

  const table = new Float32Array(vocabSize * dims);
  for (let id = 0; id < vocabSize; id++) {
    const row = mapping ? mapping[id]! : id;
    if (row < 0 || row >= rows) fail(`mapping of token ${id} points outside the table`);
    const w = weights ? weights[id]! : 1;
    for (let j = 0; j < dims; j++) table[id * dims + j] = rowTable[row * dims + j]! * w;
  }
  return { vocabSize, dims, table };
}

function readFloats(
  bytes: Uint8Array,
  dataStart: number,
  e: SafetensorsEntry,
  count: number,
  fail: (why: string) => never,
): Float32Array {
  const [from, to] = e.data_offsets;
  const view = new DataView(bytes.buffer, bytes.byteOffset + dataStart + from, to - from);
  const width = e.dtype === 'F32' ? 4 : e.dtype === 'F16' || e.dtype === 'BF16' ? 2 : 0;
  if (width === 0) fail(`unsupported dtype ${e.dtype}`);
  if (view.byteLength !== count * width) fail(`tensor size ${view.byteLength} does not match its shape`);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    if (e.dtype === 'F32') out[i] = view.getFloat32(i * 4, true);
    else if (e.dtype === 'F16') out[i] = halfToFloat(view.getUint16(i * 2, true));
    else out[i] = bfloat16ToFloat(view.getUint16(i * 2, true));
    if (!Number.isFinite(out[i]!)) fail(`tensor holds a non-finite value at index ${i}`);
  }
  return out;
}

function readInts(
  bytes: Uint8Array,
  dataStart: number,
  e: SafetensorsEntry,
  fail: (why: string) => never,
): Int32Array {
  const [from, to] = e.data_offsets;
  const view = new DataView(bytes.buffer, bytes.byteOffset + dataStart + from, to - from);
  const count = e.shape[0] ?? 0;
  const width = e.dtype === 'I32' ? 4 : e.dtype === 'I64' ? 8 : 0;
  if (width === 0) fail(`unsupported mapping dtype ${e.dtype}`);
  if (view.byteLength !== count * width) fail('mapping size does not match its shape');
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    out[i] = width === 4 ? view.getInt32(i * 4, true) : Number(view.getBigInt64(i * 8, true));
  }
  return out;
}

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

function bfloat16ToFloat(h: number): number {
  u32Scratch[0] = h << 16;
  return f32Scratch[0]!;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * 2 ** -14 * (frac / 1024);
  if (exp === 31) return frac ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exp - 15) * (1 + frac / 1024);
}
