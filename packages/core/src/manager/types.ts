import type { HermesConfig } from '../config/hermes-config';
import type { Logger } from '../logging/logger';
import type { InitContextInput, MemoryWriteMetadata } from '../provider/types';

export interface MemoryManagerOptions {
  /** Where the manager logs (WARNING for failed syncs, DEBUG for failed prefetches, …). Silent by default. */
  logger?: Logger;
  /** Budget for one external provider's prefetch; must be > 0. Default 8000 ms. */
  externalPrefetchTimeoutMs?: number;
  /** How long `shutdownAll` waits for queued background work. Default 5000 ms. */
  shutdownDrainMs?: number;
  /** Extra tool names no provider may claim, on top of the agent's core tool set. */
  reservedToolNames?: Iterable<string>;
  /** `compression.checkpoint_required`: fail-closed pre-compress checkpoints. Default false. */
  checkpointRequired?: boolean;
  /**
   * Pass every string handed to an external provider (queries, turns, transcripts, tool
   * arguments, memory-write content, delegation text) through `redactSecretsDeep`. The builtin
   * store is local and receives the original text. Default true.
   */
  redactEgress?: boolean;
  /**
   * An external provider's prefetch result longer than this many characters is written to
   * `<hermesHome>/cache/memory-spill/` and replaced by a head/tail preview with the file path
   * (`hooks.output_spill` in config.yaml). Default 10,000; `Infinity` disables spilling.
   */
  prefetchSpillChars?: number;
}

/** What `initializeAll` accepts: the InitContext fields to forward, plus the parsed config. */
export type ManagerInitInput = InitContextInput & {
  /** When given, each provider receives its own `memory.<name>` block as `providerConfig`. */
  config?: HermesConfig;
};

/** Snapshot of what `shutdownAll` could and could not finish. */
export interface DrainState {
  /** `idle`: nothing was queued; `drained`: all queued work finished; `timeout`: some was abandoned. */
  status: 'idle' | 'drained' | 'timeout';
  abandonedWrites: number;
  abandonedPrefetches: number;
  /** Tasks still running when the deadline passed (they cannot be cancelled, only left behind). */
  activeTasks: number;
}

export interface SyncAllOptions {
  sessionId?: string;
  messages?: readonly import('../llm/types').ChatMessage[];
  turnAuthor?: string;
}

export interface SessionBoundaryOptions {
  newSessionId: string;
  parentSessionId?: string;
  reason?: string;
}

export type MetadataSource = MemoryWriteMetadata | (() => MemoryWriteMetadata) | undefined;
