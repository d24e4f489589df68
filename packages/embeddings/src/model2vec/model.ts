import { existsSync, readFileSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SettingsError } from '@hermes-memory/core';
import { type EmbeddingTable, parseGge1, parseModel2VecSafetensors } from './weights';
import { IdBuffer, WordPieceTokenizer } from './wordpiece-tokenizer';

/** A loaded Model2Vec static model: a tokenizer plus one float row per token. */
export class Model2VecModel {
  readonly dims: number;
  readonly vocabSize: number;
  readonly normalize: boolean;
  readonly tokenizer: WordPieceTokenizer;
  private readonly table: Float32Array;
  private readonly ids = new IdBuffer(512);
  /** Float64 accumulator, reused: long texts sum hundreds of rows. */
  private readonly acc: Float64Array;

  constructor(tokenizer: WordPieceTokenizer, weights: EmbeddingTable, options: { normalize?: boolean } = {}) {
    if (tokenizer.vocabSize !== weights.vocabSize) {
      throw new SettingsError(
        'model',
        `Tokenizer vocabulary (${tokenizer.vocabSize}) and embedding table (${weights.vocabSize} rows) differ`,
      );
    }
    if (weights.tokens) {
      for (let id = 0; id < weights.tokens.length; id++) {
        if (tokenizer.tokenOf(id) !== weights.tokens[id]) {
          throw new SettingsError('model', `Token ${id} differs between tokenizer.json and the weights file`);
        }
      }
    }
    this.tokenizer = tokenizer;
    this.table = weights.table;
    this.dims = weights.dims;
    this.vocabSize = weights.vocabSize;
    this.normalize = options.normalize ?? true;
    this.acc = new Float64Array(this.dims);
  }

  /**
   * Embeds one text into `out` (zeroed here): tokens without special tokens, [UNK] dropped, at most
   * `maxTokens` kept, mean of their rows, then L2 normalisation. No token → the zero vector.
   */
  embedInto(text: string, out: Float32Array, maxTokens: number | null): Float32Array {
    out.fill(0);
    const acc = this.acc;
    acc.fill(0);
    const ids = this.ids;
    ids.clear();
    this.tokenizer.encodeInto(text, ids);
    const unk = this.tokenizer.unkId;
    const dims = this.dims;
    const table = this.table;
    const limit = maxTokens ?? Number.POSITIVE_INFINITY;
    const buf = ids.ids;
    let used = 0;
    for (let k = 0; k < ids.length && used < limit; k++) {
      const id = buf[k]!;
      if (id === unk) continue;
      used++;
      const base = id * dims;
      for (let j = 0; j < dims; j++) acc[j]! += table[base + j]!;
    }
    if (used === 0) return out;
    if (this.normalize) {
      let sum = 0;
      for (let j = 0; j < dims; j++) sum += acc[j]! * acc[j]!;
      if (sum === 0) return out;
      const inv = 1 / Math.sqrt(sum);
      for (let j = 0; j < dims; j++) out[j] = acc[j]! * inv;
      return out;
    }
    const inv = 1 / used;
    for (let j = 0; j < dims; j++) out[j] = acc[j]! * inv;
    return out;
  }

  /** The vector row of one token id (a copy). */
  row(id: number): Float32Array {
    if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize)
      throw new RangeError(`token id ${id} out of range`);
    return this.table.slice(id * this.dims, (id + 1) * this.dims);
  }
}

interface Model2VecConfig {
  normalize?: boolean;
  hidden_dim?: number;
}

/** Reads `config.json` of a Model2Vec folder synchronously (tiny file); absent → empty. */
export function readModel2VecConfig(dir: string): Model2VecConfig {
  const path = join(dir, 'config.json');
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return parsed && typeof parsed === 'object' ? (parsed as Model2VecConfig) : {};
  } catch (cause) {
    throw new SettingsError('modelPath', `${path} is not valid JSON`, { cause });
  }
}

/**
 * Loads a Model2Vec model folder: `tokenizer.json`, optional `config.json`, and weights as either
 * `model.safetensors` (the upstream format) or a GGE1 int8 `*.bin` file (the bundled format).
 */
export async function loadModel2VecModel(dir: string): Promise<Model2VecModel> {
  const root = resolve(dir);
  if (!existsSync(root)) throw new SettingsError('modelPath', `Model2Vec model folder not found: ${root}`);
  const config = readModel2VecConfig(root);
  const tokenizerPath = join(root, 'tokenizer.json');
  if (!existsSync(tokenizerPath)) throw new SettingsError('modelPath', `${tokenizerPath} is missing`);
  let tokenizerJson: unknown;
  try {
    tokenizerJson = JSON.parse(await readFile(tokenizerPath, 'utf8'));
  } catch (cause) {
    throw new SettingsError('modelPath', `${tokenizerPath} is not valid JSON`, { cause });
  }
  const tokenizer = WordPieceTokenizer.fromTokenizerJson(tokenizerJson);

  let weights: EmbeddingTable;
  const safetensors = join(root, 'model.safetensors');
  if (existsSync(safetensors)) {
    weights = parseModel2VecSafetensors(await readFile(safetensors), safetensors);
  } else {
    const bins = (await readdir(root)).filter((f) => f.endsWith('.bin')).sort();
    const bin = bins[0];
    if (!bin)
      throw new SettingsError('modelPath', `${root} holds neither model.safetensors nor a GGE1 .bin file`);
    weights = parseGge1(await readFile(join(root, bin)), join(root, bin));
  }
  if (typeof config.hidden_dim === 'number' && config.hidden_dim !== weights.dims) {
    throw new SettingsError(
      'model',
      `config.json says ${config.hidden_dim} dims, the weights have ${weights.dims}`,
    );
  }
  return new Model2VecModel(tokenizer, weights, { normalize: config.normalize !== false });
}

const loaded = new Map<string, Promise<Model2VecModel>>();

/** Loads a model folder once per process; concurrent callers share the same load. */
export function loadModel2VecModelShared(dir: string): Promise<Model2VecModel> {
  const key = resolve(dir);
  let pending = loaded.get(key);
  if (!pending) {
    pending = loadModel2VecModel(key);
    loaded.set(key, pending);
    // A failed load is forgotten so a later call (e.g. after fixing the folder) can retry.
    pending.catch(() => loaded.delete(key));
  }
  return pending;
}
