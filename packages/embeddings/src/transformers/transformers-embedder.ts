import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { type Embedder, SettingsError } from '@hermes-memory/core';
import { assertTexts, isBlank, l2NormalizeInPlace, throwIfAborted } from '../vector';

export interface TransformersEmbedderOptions {
  /**
   * Model id, resolved as `<localModelPath>/<model>/` (e.g. `Xenova/all-MiniLM-L6-v2`), or, when
   * `allowRemoteModels` is true and the folder is absent, fetched from the Hugging Face Hub.
   */
  model?: string;
  /** Root folder holding model folders. Required unless `modelPath` is given. */
  localModelPath?: string;
  /** Shortcut: the model folder itself (sets `localModelPath` to its parent and `model` to its name). */
  modelPath?: string;
  /** Allow downloads from the Hub. Default false: nothing is fetched at run time. */
  allowRemoteModels?: boolean;
  /** Where transformers.js caches downloads (only with `allowRemoteModels`). */
  cacheDir?: string;
  /** Load `onnx/model_quantized.onnx` (true, transformers.js's default) or `onnx/model.onnx`. */
  quantized?: boolean;
  /** How token states become one vector. Default `mean` (attention-masked). */
  pooling?: 'mean' | 'cls';
  /** Texts per forward pass. Default 32. */
  batchSize?: number;
  /** Vector size, if known; otherwise read from the model's config.json `hidden_size` or learned on load. */
  dimensions?: number;
  /** Embedder id. Default `transformers:<model>:<pooling>[:q8]`. */
  id?: string;
}

/** The part of transformers.js this embedder touches (kept local so the optional peer stays optional). */
interface TransformersModule {
  env: { localModelPath: string; allowRemoteModels: boolean; allowLocalModels: boolean };
  pipeline(
    task: 'feature-extraction',
    model: string,
    options: Record<string, unknown>,
  ): Promise<FeatureExtractor>;
}
interface FeatureExtractor {
  (
    texts: string[],
    options: { pooling: 'mean' | 'cls'; normalize: boolean },
  ): Promise<{ data: ArrayLike<number>; dims: number[] }>;
  model?: { config?: { hidden_size?: number } };
  dispose?: () => Promise<void>;
}

// A variable specifier keeps bundlers from turning this into require() in the CommonJS build
// (transformers.js is ESM-only) and from resolving the optional peer at build time.
const TRANSFORMERS_PACKAGE = '@xenova/transformers';
let modulePromise: Promise<TransformersModule> | undefined;

async function loadTransformers(): Promise<TransformersModule> {
  modulePromise ??= (import(TRANSFORMERS_PACKAGE) as Promise<TransformersModule>).catch((cause: unknown) => {
    modulePromise = undefined;
    throw new SettingsError(
      '@xenova/transformers',
      'TransformersEmbedder needs the optional peer dependency @xenova/transformers: npm install @xenova/transformers',
      { cause },
    );
  });
  return modulePromise;
}

// transformers.js keeps `localModelPath`/`allowRemoteModels` in a global `env`: loads are serialised
// and the previous values restored, so two embedders with different folders never see each other's.
let envLock: Promise<unknown> = Promise.resolve();

/**
 * Sentence embeddings from a transformer model run by transformers.js (`@xenova/transformers`, an
 * optional peer dependency, imported only when this embedder first loads). Reads a local model
 * folder (`config.json`, `tokenizer.json`, `tokenizer_config.json`, `onnx/model[_quantized].onnx`);
 * remote downloads are off unless `allowRemoteModels` is set.
 */
export class TransformersEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly localModelPath: string | undefined;
  private readonly allowRemote: boolean;
  private readonly cacheDir: string | undefined;
  private readonly quantized: boolean;
  private readonly pooling: 'mean' | 'cls';
  private readonly batchSize: number;
  private dims: number;
  private extractor: Promise<FeatureExtractor> | undefined;

  constructor(options: TransformersEmbedderOptions) {
    let model = options.model;
    let root = options.localModelPath;
    if (options.modelPath !== undefined) {
      const full = resolve(options.modelPath);
      root = dirname(full);
      model = basename(full);
    }
    if (!model)
      throw new SettingsError(
        'model',
        'TransformersEmbedder needs `model` (with `localModelPath`) or `modelPath`',
      );
    this.allowRemote = options.allowRemoteModels ?? false;
    if (!root && !this.allowRemote) {
      throw new SettingsError(
        'localModelPath',
        'TransformersEmbedder needs `localModelPath` or `modelPath` (remote models are disabled)',
      );
    }
    this.model = model;
    this.localModelPath = root ? resolve(root) : undefined;
    this.cacheDir = options.cacheDir;
    this.quantized = options.quantized ?? true;
    this.pooling = options.pooling ?? 'mean';
    if (this.pooling !== 'mean' && this.pooling !== 'cls') {
      throw new SettingsError('pooling', `pooling must be 'mean' or 'cls', got '${String(this.pooling)}'`);
    }
    this.batchSize = options.batchSize ?? 32;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1) {
      throw new SettingsError('batchSize', 'batchSize must be a positive integer');
    }
    this.dims = options.dimensions ?? this.readHiddenSize() ?? 0;
    this.id = options.id ?? `transformers:${model}:${this.pooling}${this.quantized ? ':q8' : ''}`;
  }

  /** Vector size: given, read from config.json, or learned when the model loads (0 before). */
  get dimensions(): number {
    return this.dims;
  }

  /** Imports transformers.js and loads the model now (otherwise the first `embed()` does). */
  load(): Promise<FeatureExtractor> {
    this.extractor ??= this.createExtractor().catch((error: unknown) => {
      this.extractor = undefined;
      throw error;
    });
    return this.extractor;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    assertTexts(texts, this.id);
    throwIfAborted(options.signal);
    const out: Float32Array[] = new Array(texts.length);
    const pending: number[] = [];
    texts.forEach((t, i) => {
      if (!isBlank(t)) pending.push(i);
    });
    if (pending.length > 0) {
      const extractor = await this.load();
      for (let start = 0; start < pending.length; start += this.batchSize) {
        throwIfAborted(options.signal);
        const batch = pending.slice(start, start + this.batchSize);
        const result = await extractor(
          batch.map((i) => texts[i]!),
          { pooling: this.pooling, normalize: false },
        );
        const [rows, dims] = result.dims as [number, number];
        if (result.dims.length !== 2 || rows !== batch.length) {
          throw new Error(`${this.id}: unexpected output shape [${result.dims.join(', ')}]`);
        }
        if (this.dims === 0) this.dims = dims;
        else if (dims !== this.dims)
          throw new Error(`${this.id}: expected ${this.dims} dimensions, got ${dims}`);
        batch.forEach((textIndex, r) => {
          const v = new Float32Array(dims);
          for (let j = 0; j < dims; j++) v[j] = result.data[r * dims + j]!;
          out[textIndex] = l2NormalizeInPlace(v);
        });
      }
    }
    for (let i = 0; i < out.length; i++) out[i] ??= new Float32Array(this.dims);
    return out;
  }

  /** Frees the ONNX session. */
  async dispose(): Promise<void> {
    const pending = this.extractor;
    this.extractor = undefined;
    if (pending) await (await pending.catch(() => undefined))?.dispose?.();
  }

  private readHiddenSize(): number | undefined {
    if (!this.localModelPath) return undefined;
    const path = join(this.localModelPath, this.model, 'config.json');
    if (!existsSync(path)) return undefined;
    try {
      const config = JSON.parse(readFileSync(path, 'utf8')) as { hidden_size?: unknown };
      return typeof config.hidden_size === 'number' ? config.hidden_size : undefined;
    } catch {
      return undefined;
    }
  }

  private async createExtractor(): Promise<FeatureExtractor> {
    const tf = await loadTransformers();
    const run = envLock.then(async () => {
      const saved = { ...tf.env };
      try {
        if (this.localModelPath) {
          tf.env.localModelPath = this.localModelPath.endsWith('/')
            ? this.localModelPath
            : `${this.localModelPath}/`;
          tf.env.allowLocalModels = true;
        }
        tf.env.allowRemoteModels = this.allowRemote;
        const options: Record<string, unknown> = {
          quantized: this.quantized,
          local_files_only: !this.allowRemote,
        };
        if (this.cacheDir) options['cache_dir'] = this.cacheDir;
        return await tf.pipeline('feature-extraction', this.model, options);
      } catch (cause) {
        throw new SettingsError(
          'model',
          `Cannot load transformer model '${this.model}'${this.localModelPath ? ` from ${this.localModelPath}` : ''}: ${
            cause instanceof Error ? cause.message : String(cause)
          }`,
          { cause },
        );
      } finally {
        tf.env.localModelPath = saved.localModelPath;
        tf.env.allowRemoteModels = saved.allowRemoteModels;
        tf.env.allowLocalModels = saved.allowLocalModels;
      }
    });
    envLock = run.catch(() => undefined);
    const extractor = await run;
    const hidden = extractor.model?.config?.hidden_size;
    if (this.dims === 0 && typeof hidden === 'number') this.dims = hidden;
    return extractor;
  }
}
