import type { Logger } from '../logging/logger';
import type { Embedder } from './types';

/** A dynamic import of the embeddings package, written in the provider package that declares the peer. */
export type EmbeddingsImporter = () => Promise<unknown>;

const loaded = new WeakMap<EmbeddingsImporter, Promise<Embedder | undefined>>();

/**
 * The bundled default embedder (Model2Vec) from `@hermes-memory/embeddings`, an optional peer of
 * providers: imported on first use, once per importer, shared by every caller. Resolves to
 * undefined (with one debug line) when the package is not installed, so the provider falls back to
 * lexical retrieval. The import itself is the caller's: a package only sees the peers it declares
 * (pnpm's layout), so core could not import it on a provider's behalf.
 */
export function loadDefaultEmbedder(
  importEmbeddings: EmbeddingsImporter,
  logger: Logger,
): Promise<Embedder | undefined> {
  let pending = loaded.get(importEmbeddings);
  if (!pending) {
    pending = (async () => {
      try {
        const mod = (await importEmbeddings()) as { createDefaultEmbedder?: () => Embedder };
        return typeof mod.createDefaultEmbedder === 'function' ? mod.createDefaultEmbedder() : undefined;
      } catch (error) {
        logger.debug('@hermes-memory/embeddings is not installed: lexical retrieval only', {
          error: String(error),
        });
        return undefined;
      }
    })();
    loaded.set(importEmbeddings, pending);
  }
  return pending;
}
