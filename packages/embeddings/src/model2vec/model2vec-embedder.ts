import { basename, resolve } from 'node:path';
import type { Embedder } from '@hermes-memory/core';
import { assertTexts, throwIfAborted } from '../vector';
import { BUNDLED_MODEL_DIMENSIONS, BUNDLED_MODEL_NAME, bundledModelDir } from './assets';
import { type Model2VecModel, loadModel2VecModelShared, readModel2VecConfig } from './model';

export interface Model2VecEmbedderOptions {
  /**
   * Folder of a Model2Vec model (`tokenizer.json` + `model.safetensors` or a GGE1 `.bin`).
   * Default: the potion-base-2M int8 model bundled in this package.
   */
  modelPath?: string;
  /** Embedder id recorded with stored vectors. Default `model2vec:<folder name>`. */
  id?: string;
  /** Tokens kept per text after dropping [UNK] (Model2Vec's `max_length`). Default 512; `null` = all. */
  maxTokens?: number | null;
}

/** Texts embedded between two yields to the event loop, so a huge batch never blocks it for long. */
const CHUNK = 1024;

/**
 * Model2Vec static embeddings: WordPiece tokens → mean of their rows → L2 normalisation. The
 * default model is bundled, so this works offline with no optional dependency. The model is loaded
 * lazily on the first `embed()` (or `load()`) and shared by every embedder on the same folder.
 */
export class Model2VecEmbedder implements Embedder {
  readonly id: string;
  readonly modelPath: string;
  readonly maxTokens: number | null;
  private dims: number;
  private model: Model2VecModel | undefined;

  constructor(options: Model2VecEmbedderOptions = {}) {
    const bundled = options.modelPath === undefined;
    this.modelPath = bundled ? bundledModelDir() : resolve(options.modelPath!);
    const maxTokens = options.maxTokens === undefined ? 512 : options.maxTokens;
    if (maxTokens !== null && (!Number.isInteger(maxTokens) || maxTokens < 1)) {
      throw new RangeError(`maxTokens must be a positive integer or null, got ${String(maxTokens)}`);
    }
    this.maxTokens = maxTokens;
    const name = bundled ? BUNDLED_MODEL_NAME : basename(this.modelPath);
    const suffix = maxTokens === 512 ? '' : `:max${maxTokens ?? 'all'}`;
    this.id = options.id ?? `model2vec:${name}${suffix}`;
    this.dims = bundled ? BUNDLED_MODEL_DIMENSIONS : (readModel2VecConfig(this.modelPath).hidden_dim ?? 0);
  }

  /** Vector size. Known up front for the bundled model and any folder whose config.json has `hidden_dim`. */
  get dimensions(): number {
    return this.dims;
  }

  /** Loads the model now (otherwise the first `embed()` does). */
  async load(): Promise<Model2VecModel> {
    if (this.model) return this.model;
    const model = await loadModel2VecModelShared(this.modelPath);
    this.model = model;
    this.dims = model.dims;
    return model;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    assertTexts(texts, this.id);
    throwIfAborted(options.signal);
    const model = this.model ?? (await this.load());
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < texts.length; i++) {
      if (i > 0 && i % CHUNK === 0) {
        await new Promise<void>((r) => setImmediate(r));
        throwIfAborted(options.signal);
      }
      out[i] = model.embedInto(texts[i]!, new Float32Array(model.dims), this.maxTokens);
    }
    return out;
  }

  /** Synchronous single-text embedding once the model is loaded (throws before `load()`). */
  embedSync(text: string): Float32Array {
    if (!this.model) throw new Error(`${this.id}: call load() before embedSync()`);
    return this.model.embedInto(text, new Float32Array(this.model.dims), this.maxTokens);
  }
}

let defaultEmbedder: Model2VecEmbedder | undefined;

/**
 * The embedder to use when none is configured: the bundled Model2Vec potion-base-2M (64 dims,
 * English, offline). One shared instance per process; its model loads lazily on first use.
 */
export function createDefaultEmbedder(): Model2VecEmbedder {
  defaultEmbedder ??= new Model2VecEmbedder();
  return defaultEmbedder;
}
