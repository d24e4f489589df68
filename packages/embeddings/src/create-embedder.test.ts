import { SettingsError } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { tinyBertDir } from '../test/paths';
import { createEmbedder } from './create-embedder';
import { HashEmbedder } from './hash/hash-embedder';
import { Model2VecEmbedder, createDefaultEmbedder } from './model2vec/model2vec-embedder';
import { OpenAIEmbedder } from './openai/openai-embedder';
import { TransformersEmbedder } from './transformers/transformers-embedder';

describe('createEmbedder', () => {
  it('returns the shared default Model2Vec embedder without a spec', () => {
    expect(createEmbedder()).toBe(createDefaultEmbedder());
    expect(createEmbedder({ provider: 'model2vec' })).toBe(createDefaultEmbedder());
    const custom = createEmbedder({ provider: 'model2vec', maxTokens: 128 });
    expect(custom).toBeInstanceOf(Model2VecEmbedder);
    expect(custom.id).toBe('model2vec:potion-base-2M-int8:max128');
  });

  it('builds each provider from its spec', () => {
    expect(createEmbedder({ provider: 'hash', dimensions: 64 })).toBeInstanceOf(HashEmbedder);
    expect(createEmbedder({ provider: 'hash', dimensions: 64 }).dimensions).toBe(64);
    const openai = createEmbedder({
      provider: 'openai',
      baseURL: 'http://127.0.0.1:9/v1',
      model: 'm',
      env: {},
    });
    expect(openai).toBeInstanceOf(OpenAIEmbedder);
    expect(openai.id).toBe('openai:m');
    expect(createEmbedder({ provider: 'transformers', modelPath: tinyBertDir })).toBeInstanceOf(
      TransformersEmbedder,
    );
  });

  it('rejects an unknown provider with a SettingsError', () => {
    expect(() =>
      createEmbedder({ provider: 'nope' } as unknown as Parameters<typeof createEmbedder>[0]),
    ).toThrow(SettingsError);
  });
});
