/**
 * The optional default embedder: `@hermes-memory/embeddings` is an optional peer, imported only
 * when `embeddings: 'auto'` and the host passed no embedder. Missing → lexical retrieval, one debug line.
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
      return typeof mod.createDefaultEmbedder === 'function' ? mod.createDefaultEmbedder() : undefined;
    } catch (error) {
      logger.debug('continuity: @hermes-memory/embeddings not available; lexical retrieval only', {
        error: String(error),
      });
      return undefined;
    }
  })();
  return cached;
}
