/**
 * @hermes-memory/embeddings — text embedders for Hermes memory, all implementing core's `Embedder`
 * (`id`, `dimensions`, `embed(texts) → L2-normalised Float32Array[]`).
 *
 * - `Model2VecEmbedder` (default, `createDefaultEmbedder()`): the bundled potion-base-2M model,
 *   offline, no dependency.
 * - `TransformersEmbedder`: any transformers.js model from a local folder (optional peer).
 * - `OpenAIEmbedder`: any OpenAI-compatible `/v1/embeddings` endpoint.
 * - `HashEmbedder`: dependency-free feature hashing for tests and tiny installs.
 * - `cachedEmbedder(embedder, cache)` with `SqliteEmbeddingCache` (optional peer better-sqlite3)
 *   or `MemoryEmbeddingCache` (LRU): compute each text once.
 */

export {
  type Model2VecEmbedderOptions,
  Model2VecEmbedder,
  createDefaultEmbedder,
} from './model2vec/model2vec-embedder';
export { Model2VecModel, loadModel2VecModel } from './model2vec/model';
export {
  IdBuffer,
  WordPieceTokenizer,
  type WordPieceTokenizerOptions,
} from './model2vec/wordpiece-tokenizer';
export { type EmbeddingTable, parseGge1, parseModel2VecSafetensors } from './model2vec/weights';
export { BUNDLED_MODEL_DIMENSIONS, BUNDLED_MODEL_NAME, bundledModelDir } from './model2vec/assets';

export { TransformersEmbedder, type TransformersEmbedderOptions } from './transformers/transformers-embedder';
export { OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai/openai-embedder';
export { HashEmbedder, type HashEmbedderOptions } from './hash/hash-embedder';

export { type CacheEntry, type EmbeddingCache, textKey } from './cache/types';
export { MemoryEmbeddingCache, type MemoryEmbeddingCacheOptions } from './cache/memory-cache';
export { SqliteEmbeddingCache, type SqliteEmbeddingCacheOptions } from './cache/sqlite-cache';
export { type CachedEmbedder, type CachedEmbedderOptions, cachedEmbedder } from './cache/cached-embedder';

export { type EmbedderProvider, type EmbedderSpec, createEmbedder } from './create-embedder';
export { l2NormalizeInPlace } from './vector';
export { type Embedder, cosineSimilarity } from '@hermes-memory/core';
