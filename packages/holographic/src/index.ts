/**
 * @hermes-memory/holographic — the local fact store of Hermes Agent: SQLite + FTS5, entity
 * resolution, trust scoring, HRR phase-vector algebra, and hybrid retrieval.
 */
export { HolographicProvider, createHolographicProvider } from './provider';
import { createHolographicProvider } from './provider';
/** Plugin-resolution entry point (`memory.provider: holographic`). */
export const createProvider = createHolographicProvider;

export {
  type HolographicSettings,
  type ResolvedSettings,
  resolveSettings,
  expandDbPath,
  isTruthy,
} from './settings';
export { FactStore, type FactStoreOptions, type AddOptions, type UpdateOptions, clampTrust } from './store';
export {
  FactRetriever,
  DEFAULT_WEIGHTS,
  DEFAULT_EMBEDDING_WEIGHT,
  REFERENCE_WEIGHTS,
  REFERENCE_WEIGHTS_NO_HRR,
  temporalDecay,
} from './retrieval';
export { FACT_STORE_SCHEMA, FACT_FEEDBACK_SCHEMA, FACT_STORE_ACTIONS, type FactStoreAction } from './tools';
export { extractEntities } from './entities';
export { type GuardedFact, guardFact, guardFactText, MAX_FACT_CHARS } from './guard';
export { extractFacts, isCompactionSummary, type ExtractedFact } from './extract';
export { sanitizeFtsQuery, jaccardTokens, cjkTokens, queryTerms, REFERENCE_STOPWORDS } from './text';
export { porterStem } from './porter';
export {
  type PhaseVector,
  type VectorFormat,
  encodeAtom,
  bind,
  unbind,
  bundle,
  similarity,
  encodeText,
  encodeFact,
  hrrTokens,
  phasesToBytes,
  bytesToPhases,
  snrEstimate,
  clearAtomCache,
  ROLE_CONTENT,
  ROLE_ENTITY,
  EMPTY_ATOM,
  HRR_BLOB_PREFIX,
} from './hrr';
export { REFERENCE_SCHEMA } from './schema';
export { sharedConnectionCount } from './connection';
export type * from './types';
export { FACT_CATEGORIES } from './types';
