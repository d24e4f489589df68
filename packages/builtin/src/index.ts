/**
 * @hermes-memory/builtin — the layer every Hermes user runs: curated MEMORY.md / USER.md with the
 * `memory` tool, the state.db session store with `session_search`, and the flush / nudge /
 * background-review helpers a host calls around its agent loop.
 */

// The provider.
export {
  BuiltinProvider,
  type BuiltinSettings,
  type PendingWrites,
  MEMORY_GUIDANCE,
  createBuiltinProvider,
} from './provider';
import { createBuiltinProvider } from './provider';
/** Conventional factory name for provider discovery. */
export const createProvider = createBuiltinProvider;

// Curated memory: files, format, tool.
export {
  MemoryStore,
  type MemoryStoreOptions,
  type MemoryResult,
  type WriteOptions,
  type BatchOperation,
  type StageOptions,
  type ApplyPendingResult,
} from './memory/memory-store';
/** Temp files of interrupted memory writes are `.mem_<random>.tmp` (the reference's names). */
export { MEMORY_TEMP_PREFIX } from './memory/atomic-file';
// Write approval: the gate, and the staged-writes file it fills.
export {
  type WriteApprovalMode,
  type WriteApprovalSetting,
  resolveWriteApproval,
  writeApprovalFromConfig,
  WRITE_BLOCKED_MESSAGE,
} from './memory/write-approval';
export {
  PendingStore,
  type PendingStoreOptions,
  type PendingWrite,
  type NewPendingWrite,
  type PendingAction,
  type PendingPayload,
  PENDING_FILE_NAME,
  PENDING_FORMAT_VERSION,
} from './memory/pending-store';
export {
  ENTRY_DELIMITER,
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_USER_CHAR_LIMIT,
  FILE_NAMES,
  MEMORY_TARGETS,
  type MemoryTarget,
  parseEntries,
  joinEntries,
  charCount,
  formatUsage,
  renderSnapshotBlock,
} from './memory/entries';
export {
  MEMORY_TOOL_NAME,
  MEMORY_TOOL_SCHEMA,
  type MemoryToolContext,
  type StagedWrite,
  handleMemoryTool,
} from './memory/memory-tool';
// The lock moved to core (decision 0304); re-exported so existing imports keep working.
export {
  withFileLock,
  fileLockMechanism as memoryLockMechanism,
  LockTimeoutError,
  type FileLockOptions,
  breakAbandonedLock,
  judgeLock,
  type LockState,
} from '@hermes-memory/core';

// Session store and search.
export {
  SessionStore,
  type SessionStoreOptions,
  newSessionId,
  chatMessageToInput,
  contentToText,
} from './sessions/session-store';
export type * from './sessions/types';
export { FRESH_RESET_END_REASONS } from './sessions/types';
export { SCHEMA_VERSION, SCHEMA_SQL, FTS_SQL } from './sessions/schema';
export { sanitizeFtsQuery, hasCjk } from './sessions/fts-query';
export {
  SESSION_SEARCH_TOOL_NAME,
  SESSION_SEARCH_SCHEMA,
  HIDDEN_SESSION_SOURCES,
  DEMOTED_SESSION_SOURCES,
  type SessionSearchContext,
  handleSessionSearch,
  formatTimestamp,
} from './sessions/session-search';
export {
  CLASSIC_SESSION_SEARCH_SCHEMA,
  type ClassicSearchOptions,
  handleClassicSessionSearch,
  formatTranscript,
  truncateAroundMatches,
  MAX_TRANSCRIPT_CHARS,
} from './sessions/session-search-classic';

// Flush, nudge, background review.
export { flushMemories, FLUSH_PROMPT, type FlushOptions, type FlushResult } from './review/flush';
export { NudgeCounter } from './review/nudge';
export {
  runBackgroundReview,
  MEMORY_REVIEW_PROMPT,
  type BackgroundReviewOptions,
  type BackgroundReviewResult,
  type ReviewProposal,
} from './review/background-review';
export { applyMemoryToolCalls, type AppliedCall } from './review/apply-tool-calls';
