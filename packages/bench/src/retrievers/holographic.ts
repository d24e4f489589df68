/**
 * Holographic retriever for the LoCoMo protocol. OWNED BY THE HOLOGRAPHIC HELPER, who replaces this
 * placeholder with the real adapter (same export names). The bench registry imports
 * `createHolographicRetriever` and reports the retriever as unavailable while it throws.
 */
import type { Retriever } from '../locomo/types';

export interface HolographicRetrieverOptions {
  /** true → hybrid with the bundled Model2Vec embedder; false → FTS + Jaccard + HRR only. */
  embeddings: boolean;
}

export function createHolographicRetriever(_options: HolographicRetrieverOptions): Retriever {
  throw new Error('holographic retriever not yet available');
}
