/** Builders for small model files in the formats the loaders read (test data, written by hand). */

export function buildGge1(tokens: string[], scales: number[], rows: number[][]): Uint8Array {
  const dims = rows[0]?.length ?? 0;
  const encoded = tokens.map((t) => new TextEncoder().encode(t));
  const size = 12 + 4 * tokens.length + tokens.length * dims + encoded.reduce((n, b) => n + 2 + b.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode('GGE1'), 0);
  view.setUint32(4, tokens.length, true);
  view.setUint32(8, dims, true);
  scales.forEach((s, i) => {
    view.setFloat32(12 + 4 * i, s, true);
  });
  let at = 12 + 4 * tokens.length;
  for (const row of rows) for (const q of row) view.setInt8(at++, q);
  for (const b of encoded) {
    view.setUint16(at, b.length, true);
    out.set(b, at + 2);
    at += 2 + b.length;
  }
  return out;
}

export interface TensorSpec {
  dtype: 'F32' | 'F16' | 'I8' | 'I32' | 'I64';
  shape: number[];
  /** For F16, the raw half-precision bit patterns (see `toF16`). */
  values: number[];
}

export function buildSafetensors(tensors: Record<string, TensorSpec>): Uint8Array {
  const width = { F32: 4, F16: 2, I8: 1, I32: 4, I64: 8 } as const;
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    const len = t.values.length * width[t.dtype];
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + len] };
    offset += len;
  }
  const headerBytes = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + headerBytes.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const t of Object.values(tensors)) {
    for (const v of t.values) {
      if (t.dtype === 'F32') view.setFloat32(at, v, true);
      else if (t.dtype === 'F16') view.setUint16(at, v, true);
      else if (t.dtype === 'I8') view.setInt8(at, v);
      else if (t.dtype === 'I32') view.setInt32(at, v, true);
      else view.setBigInt64(at, BigInt(v), true);
      at += width[t.dtype];
    }
  }
  return out;
}

/** Half-precision bit patterns of values that are exactly representable (powers of two and small sums). */
export function toF16(values: number[]): number[] {
  return values.map((v) => {
    if (v === 0) return 0;
    const sign = v < 0 ? 0x8000 : 0;
    const a = Math.abs(v);
    const exp = Math.floor(Math.log2(a));
    const frac = Math.round((a / 2 ** exp - 1) * 1024);
    return sign | ((exp + 15) << 10) | frac;
  });
}

/** A minimal BERT WordPiece tokenizer.json over `vocab`. */
export function tokenizerJsonFor(vocab: string[]): Record<string, unknown> {
  return {
    version: '1.0',
    added_tokens: [],
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
}
