import type { HermesConfig } from '../config/hermes-config';
import type { Logger } from '../logging/logger';
import type { InitContextInput, MemoryWriteMetadata } from '../provider/types';
import type { Clock } from '../resilience/clock';
import type { HealthChangeEvent } from './health-tracker';

export interface MemoryManagerOptions {
  /** Where the manager logs (WARNING for failed syncs, DEBUG for failed prefetches, …). Silent by default. */
  logger?: Logger;
  /**
   * Budget for one provider's `prefetch` (the builtin's too); must be finite and > 0. The
   * provider's signal aborts at it, and a call still running is skipped until it settles.
   * Default 8000 ms.
   */
  externalPrefetchTimeoutMs?: number;
  /** Budget for each provider's `initialize` (`InitContext.initializeSignal`). Default 10 000 ms. */
  initializeTimeoutMs?: number;
  /** Budget for one tool call; past it the agent gets a JSON error. Default 60 000 ms. */
  toolCallTimeoutMs?: number;
  /** Budget for `onTurnStart`, `onPreCompress`, `onDelegation` and `probe`. Default 10 000 ms. */
  hookTimeoutMs?: number;
  /**
   * Budget for one queued task (`syncTurn`, `queuePrefetch`, a mirrored `onMemoryWrite`); past it
   * the provider's queue moves on and the task is abandoned. Default 30 000 ms.
   */
  backgroundTimeoutMs?: number;
  /**
   * Tasks one provider's queue may hold waiting (`syncTurn`, `queuePrefetch`, mirrored writes)
   * while an earlier call has not finished. Past it the oldest waiting one is dropped, with a
   * WARNING and the provider's health degraded; session boundaries are never dropped. Bounds what
   * a provider whose calls hang until their budget keeps in memory. Default 1000; `Infinity`
   * disables.
   */
  maxQueuedTasks?: number;
  /**
   * Budget for a session boundary (`onSessionEnd`, `onSessionSwitch`, `commitSessionBoundary`),
   * counted from the call: waiting behind the provider's queued writes, then the hook. Default
   * 10 000 ms.
   */
  sessionBoundaryTimeoutMs?: number;
  /** How long `shutdownAll` waits for queued background work. Default 5000 ms. */
  shutdownDrainMs?: number;
  /**
   * Each provider's `shutdown` budget (after the drain), passed as `{signal, timeoutMs}`; a
   * provider still running past it is abandoned. Default 5000 ms.
   */
  shutdownTimeoutMs?: number;
  /** Time for every budget (tests inject a `ManualClock`). Default the system clock. */
  clock?: Clock;
  /**
   * Called when a provider's health changes (ok, degraded, down), so the host can show it: a
   * backend that went down must be visible to the user, not only in a log.
   */
  onHealthChange?: (event: HealthChangeEvent) => void;
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
  /**
   * With secondary providers registered (tiered memory): the characters of recall injected per
   * turn across all providers, spent in order (builtin, canonical, secondaries as registered).
   * Default 12,000. Without secondaries recall is joined as before and this is not used.
   */
  recallBudgetChars?: number;
}

/** How an external provider takes part (decision 0130). */
export type ProviderRole = 'canonical' | 'secondary';

export interface AddProviderOptions {
  /**
   * `canonical` (the default): the one external provider that receives the conversation's writes.
   * `secondary`: joins read-only beside it, any number of them; its recall is labelled and
   * budgeted, its tools routed, and it receives writes only if it sets `receivesWritesAsSecondary`.
   */
  role?: ProviderRole;
  /** A secondary's own prefetch budget (ms, finite, > 0). Default `externalPrefetchTimeoutMs`. */
  prefetchTimeoutMs?: number;
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
  /** Waiting tasks dropped over this manager's life because a queue was full (`maxQueuedTasks`). */
  droppedTasks: number;
  /** Providers whose `shutdown` ran past `shutdownTimeoutMs` and were abandoned. */
  timedOutProviders: string[];
}

export interface SyncAllOptions {
  sessionId?: string;
  messages?: readonly import('../llm/types').ChatMessage[];
  /** Who wrote the user side (passed to each provider's `syncTurn` as is). */
  turnAuthor?: string | import('../provider/types').TurnAuthor;
}

export interface SessionBoundaryOptions {
  newSessionId: string;
  parentSessionId?: string;
  reason?: string;
}

export type MetadataSource = MemoryWriteMetadata | (() => MemoryWriteMetadata) | undefined;
