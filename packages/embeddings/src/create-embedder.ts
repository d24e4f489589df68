import { type Embedder, SettingsError } from '@hermes-memory/core';
import { HashEmbedder, type HashEmbedderOptions } from './hash/hash-embedder';
import {
  Model2VecEmbedder,
  type Model2VecEmbedderOptions,
  createDefaultEmbedder,
} from './model2vec/model2vec-embedder';
import { OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai/openai-embedder';
import { TransformersEmbedder, type TransformersEmbedderOptions } from './transformers/transformers-embedder';

/** A serialisable choice of embedder, e.g. from a config file's `embeddings:` section. */
export type EmbedderSpec =
  | ({ provider: 'model2vec' } & Model2VecEmbedderOptions)
  | ({ provider: 'transformers' } & TransformersEmbedderOptions)
  | ({ provider: 'openai' } & OpenAIEmbedderOptions)
  | ({ provider: 'hash' } & HashEmbedderOptions);

export type EmbedderProvider = EmbedderSpec['provider'];

/**
 * Builds an embedder from a spec. No spec (or `{provider: 'model2vec'}` without options) gives the
 * shared default Model2Vec embedder.
 */
export function createEmbedder(spec?: EmbedderSpec): Embedder {
  if (!spec) return createDefaultEmbedder();
  switch (spec.provider) {
    case 'model2vec': {
      const { provider: _, ...options } = spec;
      return Object.keys(options).length === 0 ? createDefaultEmbedder() : new Model2VecEmbedder(options);
    }
    case 'transformers': {
      const { provider: _, ...options } = spec;
      return new TransformersEmbedder(options);
    }
    case 'openai': {
      const { provider: _, ...options } = spec;
      return new OpenAIEmbedder(options);
    }
    case 'hash': {
      const { provider: _, ...options } = spec;
      return new HashEmbedder(options);
    }
    default:
      throw new SettingsError(
        'embeddings.provider',
        `Unknown embeddings provider '${String((spec as { provider?: unknown }).provider)}' (expected model2vec, transformers, openai or hash)`,
      );
  }
}
