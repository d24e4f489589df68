/**
 * The optional default embedder: `@hermes-memory/embeddings` is an optional peer dependency, loaded
 * by dynamic import only when `embeddings: 'auto'` and the host passed no embedder. Missing package
 * → lexical retrieval, with one debug line.
 */
import type { Embedder, Logger } from '@hermes-memory/core';

interface EmbeddingsModule {
  createDefaultEmbedder(): Embedder;
}

let cached: Promise<Embedder | undefined> | null = null;

export function loadOptionalEmbedder(logger: Logger): Promise<Embedder | undefined> {
  cached ??= (async () => {
    try {
      const specifier = '@hermes-memory/embeddings';
      const mod = (await import(/* @vite-ignore */ specifier)) as Partial<EmbeddingsModule>;
      if (typeof mod.createDefaultEmbedder !== 'function') return undefined;
      return mod.createDefaultEmbedder();
    } catch (error) {
      logger.debug('holographic: @hermes-memory/embeddings not available; lexical retrieval only', {
        error: String(error),
      });
      return undefined;
    }
  })();
  return cached;
}
