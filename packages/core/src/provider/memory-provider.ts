import { UnsupportedFeatureError } from '../errors/memory-error';
import type { ProbeResult, ProviderHealth } from '../health/health';
import type { ChatMessage } from '../llm/types';
import type {
  AgentContext,
  ConfigField,
  DelegationOptions,
  HookOptions,
  InitContext,
  MaybePromise,
  MemoryTarget,
  MemoryWriteAction,
  MemoryWriteMetadata,
  PreCompressOptions,
  PrefetchOptions,
  RecallStatus,
  SessionSwitchOptions,
  ShutdownOptions,
  SyncTurnOptions,
  ToolCallOptions,
  ToolSchema,
  TurnStartInfo,
} from './types';

/**
 * A memory backend, driven by `MemoryManager` through the Hermes lifecycle.
 *
 * Four members are required. Every other hook has a harmless default, so adding a hook to this
 * class never breaks an existing provider. Hooks may return promises; the manager awaits them with
 * per-provider isolation, time budgets and ordered background queues. Every call the manager makes
 * carries a `signal` (in the options object, or `InitContext.initializeSignal`) that aborts when
 * the call's budget runs out; a call still running then is abandoned, never awaited.
 */
export abstract class MemoryProvider {
  /** Short id, the same string as the package folder and npm suffix ("builtin", "holographic"). */
  abstract readonly name: string;

  /**
   * Version of the pre-compress checkpoint contract: 1 = best effort, 2 = fail-closed
   * (receives `requireCheckpoint` and host-normalised evidence messages).
   */
  readonly preCompressCheckpointApiVersion: 1 | 2 = 1;

  /**
   * Registered as a secondary provider (tiered memory), also receive the conversation's writes:
   * `syncTurn`, mirrored memory writes, `onSessionEnd`, `onPreCompress` and `onDelegation`.
   * Default false: a secondary only reads (prefetch, tools, session switches).
   */
  readonly receivesWritesAsSecondary: boolean = false;

  /** Config and dependency check only. Must not do I/O beyond reading settings already in memory. */
  abstract isAvailable(): boolean;

  /** Called once per agent start. May open stores and connections. */
  abstract initialize(sessionId: string, context: InitContext): MaybePromise<void>;

  /**
   * Initialise for an inspection-only agent (`hermes-memory status`, dashboards): must be free of
   * side effects — no background workers, no writes, no session records. The context carries
   * `inspectionOnly: true`. The default delegates to `initialize`; override it when `initialize`
   * starts work an inspector must not trigger.
   */
  initializeForInspection(sessionId: string, context: InitContext): MaybePromise<void> {
    return this.initialize(sessionId, context);
  }

  /** OpenAI function schemas; empty for context-only providers. */
  abstract getToolSchemas(): ToolSchema[];

  /** Static text for the system prompt. Recall does not belong here. */
  systemPromptBlock(): string {
    return '';
  }

  /** Recall for the upcoming turn. Must be fast: serve what `queuePrefetch` prepared. */
  prefetch(_query: string, _options?: PrefetchOptions): MaybePromise<string> {
    return '';
  }

  /** Start background recall for the next turn. */
  queuePrefetch(_query: string, _options?: PrefetchOptions): MaybePromise<void> {}

  /** Persist a finished turn. The manager runs it on this provider's ordered background queue. */
  syncTurn(_userContent: string, _assistantContent: string, _options?: SyncTurnOptions): MaybePromise<void> {}

  /** Handle one of this provider's tools. Must resolve to a JSON string. */
  handleToolCall(toolName: string, _args: unknown, _options?: ToolCallOptions): MaybePromise<string> {
    throw new UnsupportedFeatureError(
      this.name,
      'tool calls',
      `Memory provider '${this.name}' has not implemented handleToolCall for '${toolName}'.`,
    );
  }

  /**
   * Wait until work this provider queued internally (writes behind `syncTurn`, embedding batches)
   * has landed, without closing anything. Resolves false when `timeoutMs` ran out first.
   * `MemoryManager.flushPending` calls it after draining its own queues.
   */
  flush(_timeoutMs?: number): MaybePromise<boolean> {
    return true;
  }

  /**
   * Flush queued writes and close, within `options.timeoutMs` (the manager's `shutdownTimeoutMs`);
   * `options.signal` aborts when that time is spent. Safe to call twice.
   */
  shutdown(_options?: ShutdownOptions): MaybePromise<void> {}

  /** Per-turn tick, called before prefetch with the 1-based user turn number. */
  onTurnStart(_turnNumber: number, _message: string, _info?: TurnStartInfo): MaybePromise<void> {}

  /**
   * End-of-session extraction, only at real boundaries (exit, /new, /reset, expiry). The manager
   * runs it behind this provider's queued writes, so every synced turn has reached it first.
   */
  onSessionEnd(_messages: readonly ChatMessage[], _options?: HookOptions): MaybePromise<void> {}

  /** The session id rotated without teardown. Return false to report a failed rebind. */
  onSessionSwitch(_newSessionId: string, _options: SessionSwitchOptions): MaybePromise<boolean | undefined> {
    return undefined;
  }

  /** Text to add to the compression summary prompt before lossy compression. */
  onPreCompress(_messages: readonly ChatMessage[], _options?: PreCompressOptions): MaybePromise<string> {
    return '';
  }

  /** Mirror of a committed builtin memory write (add, replace and remove). */
  onMemoryWrite(
    _action: MemoryWriteAction,
    _target: MemoryTarget,
    _content: string,
    _metadata?: MemoryWriteMetadata,
    _options?: HookOptions,
  ): MaybePromise<void> {}

  /** Called on the parent when a subagent finishes. */
  onDelegation(_task: string, _result: string, _options?: DelegationOptions): MaybePromise<void> {}

  /** Setup-wizard fields. */
  getConfigSchema(): ConfigField[] {
    return [];
  }

  /** Write non-secret settings to the provider's native config (the first of `configPaths()`). */
  saveConfig(_values: Readonly<Record<string, unknown>>, _hermesHome: string): MaybePromise<void> {}

  /**
   * Settings `saveConfig` saved to a file of the provider's own (mem0.json, supermemory.json), by
   * schema key, so setup keeps them when the user changes something else. Default `{}`: settings
   * saved under config.yaml are already read through `configPaths()`.
   */
  savedConfig(_hermesHome: string): Record<string, unknown> {
    return {};
  }

  /**
   * Where this provider's settings live in config.yaml, most authoritative first (default
   * `memory.<name>`). All are read and merged; a key set differently in two places is warned about
   * and the first wins. A port of a Python plugin lists the place that plugin reads first, so both
   * programs use the same settings.
   */
  configPaths(): readonly string[] {
    return [`memory.${this.name}`];
  }

  /** A hint for the user when `isAvailable()` is false. */
  unavailableReason(): string {
    return '';
  }

  /** What the last prefetch injected, for a "🧠 recalled N memories" indicator. */
  recallStatus(): RecallStatus | null {
    return null;
  }

  /**
   * The provider's own view of its backend's health (a breaker it runs, a connection it lost),
   * from calls it already made: cheap and free of I/O. The manager combines it with what it
   * observed itself (timeouts, failures) and reports the worse. `null`: nothing to add.
   */
  health(): ProviderHealth | null {
    return null;
  }

  /**
   * An explicit connection check for setup and doctor (never called on the hot path): reach the
   * backend once and say what happened. The default reports that there is nothing to probe.
   */
  probe(_options?: HookOptions): MaybePromise<ProbeResult> {
    return { status: 'skipped', message: `Memory provider '${this.name}' has no connection probe.` };
  }

  /** On-disk paths outside HERMES_HOME a backup should include. Works without initialize. */
  backupPaths(): string[] {
    return [];
  }
}

/** `provider.configPaths()`, for structural providers (plain objects) too. */
export function providerConfigPaths(
  provider: Pick<MemoryProvider, 'name'> & Partial<MemoryProvider>,
): readonly string[] {
  const paths = typeof provider.configPaths === 'function' ? provider.configPaths() : [];
  return paths.length > 0 ? paths : [`memory.${provider.name}`];
}

/** True when the agent context may change stored memory. */
export function canWrite(agentContext: AgentContext | undefined): boolean {
  return (agentContext ?? 'primary') === 'primary';
}

/** Structural check, for values that may come from another copy of this package. */
export function isMemoryProvider(value: unknown): value is MemoryProvider {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.name === 'string' &&
    typeof v.isAvailable === 'function' &&
    typeof v.initialize === 'function' &&
    typeof v.getToolSchemas === 'function'
  );
}
