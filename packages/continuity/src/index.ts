/**
 * @hermes-memory/continuity — sparse memory activation: a local SQLite store of durable records
 * (preferences, decisions, lessons, environment facts, project state) where each turn's prompt
 * gets only the few records that pass the retrieval gates, explained, and nothing otherwise.
 */
export { ContinuityProvider, createContinuityProvider } from './provider';
import { createContinuityProvider } from './provider';
/** Plugin-resolution entry point (`memory.provider: continuity`). */
export const createProvider = createContinuityProvider;

export {
  type ContinuitySettings,
  type ResolvedSettings,
  type PinnedSettings,
  DEFAULT_PINNED,
  resolveSettings,
  defaultDbPath,
  expandDbPath,
} from './settings';
export {
  type ContextRecord,
  type RecordInput,
  type RecordKind,
  type RecordStatus,
  type RecordSource,
  type TrustLevel,
  type Scopes,
  type SkillLink,
  AUTHORED_KINDS,
  CORPUS_KINDS,
  RECORD_KINDS,
  RECORD_STATUSES,
  TRUST_LEVELS,
  LIMITS,
  RecordValidationError,
  normalizeRecordInput,
} from './records';
export {
  ContinuityStore,
  type ContinuityStoreOptions,
  type AddOptions,
  type AddResult,
  type UpdatePatch,
  type LifecycleAction,
  TRANSITIONS,
  LifecycleError,
} from './store';
export { SchemaVersionError } from './connection';
export { MIGRATIONS, SCHEMA_VERSION, type Migration } from './schema';
export { DocumentStore, type SourceDocument, type SourceSegment } from './documents';
export { EventLog, ProviderState, type RetrievalEvent, type CandidateDecision, type Signals } from './events';
export { UnsafeRecordError, checkRecordSafety, type SecretPolicy } from './safety';
export { Retriever, type RecallResult, type SearchOptions } from './retrieval/retriever';
export { VectorIndex } from './retrieval/vectors';
export { DEFAULT_WEIGHTS, type RetrievalWeights, type Candidate } from './retrieval/rank';
export {
  DEFAULT_GATES,
  GATE_IDS,
  GATE_DESCRIPTIONS,
  type GateId,
  type GateSettings,
} from './retrieval/gates';
export { analyzeQuery, type AnalyzedQuery } from './retrieval/query';
export { renderRecall, renderRecordLine } from './render';
export { pinnedRecords, renderPinned } from './pinned';
export { mirrorMemoryWrite, extractMarkers, classifyKind, type MirrorOutcome, type Marker } from './mirror';
export { hydrate, type Hydrated } from './hydrate';
export { explainEvent, formatExplanation, type Explanation } from './explain';
export { pruneStale, type PruneReport } from './maintenance/prune';
export { dream, type DreamProposal, type DreamReport } from './maintenance/dream';
export { TOOL_SCHEMAS, TOOL_NAMES, recordView } from './tools';
export {
  type CandidateRecord,
  type CandidateCheck,
  type CandidateStatus,
  parseCandidates,
  formatCandidates,
  candidateFromSegment,
} from './ingest/candidates';
export { ingestText, ingestPaths, type TextDocument, type IngestReport } from './ingest/ingest';
export { review, type ReviewOptions, type ReviewSummary } from './ingest/review';
export { importCandidates, type ImportReport } from './ingest/import';
export { segmentText, detectFormat, type DocumentFormat } from './ingest/segment';
