import type { Embedder } from '../embeddings/types';
import type { ProviderHealth } from '../health/health';
import type { ChatMessage, LlmClient } from '../llm/types';
import type { Logger } from '../logging/logger';

export type MaybePromise<T> = T | Promise<T>;

/** A JSON Schema object (draft 2020-12 subset used by OpenAI function parameters). */
export type JsonSchema = { [key: string]: unknown };

/** An OpenAI function-calling schema in its bare form. */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/**
 * Who is running the agent. Only `primary` may write: subagents, cron jobs and flush forks read
 * memory but never change it.
 */
export type AgentContext = 'primary' | 'subagent' | 'cron' | 'flush';

/** Everything `initialize` receives: the reference's kwargs plus the injected services. */
export interface InitContext {
  /** Profile root (`HERMES_HOME`, default `~/.hermes`). */
  hermesHome: string;
  /** "cli", "telegram", "discord", "cron", ... */
  platform: string;
  agentContext: AgentContext;
  /** Active profile name. */
  agentIdentity?: string;
  /** Shared workspace name ("hermes" for the main agent). */
  agentWorkspace?: string;
  /** Only set for multi-user gateways; never for the CLI. */
  userId?: string;
  userIdAlt?: string;
  userName?: string;
  chatId?: string;
  chatName?: string;
  chatType?: string;
  threadId?: string;
  sessionTitle?: string;
  parentSessionId?: string;
  /** The provider's own config block (`memory.<name>` in config.yaml), already parsed. */
  providerConfig?: Readonly<Record<string, unknown>>;
  /** Environment visible to the provider: process.env overlaid with `<hermesHome>/.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Injected services. */
  llm?: LlmClient;
  embedder?: Embedder;
  logger: Logger;
  /**
   * Set by the manager: a provider that owns the curated MEMORY.md / USER.md store (builtin) calls
   * it after every committed add, replace or remove, whatever path made the write (tool call,
   * flush, background review), so external providers can mirror all three.
   */
  onMemoryWrite?: (
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ) => void;
  /**
   * Aborted when the host shuts the agent down (the manager's lifetime). Keep it for background
   * work that should stop at shutdown.
   */
  signal?: AbortSignal;
  /**
   * Aborts when `initialize`'s own budget runs out (`MemoryManager`'s `initializeTimeoutMs`):
   * pass it to connection set-up. A provider whose backend is slow should finish initialising in
   * the background and return, not hold the agent's start.
   */
  initializeSignal?: AbortSignal;
  /** Set by `MemoryManager.initializeAllForInspection`: read state only, start nothing, write nothing. */
  inspectionOnly?: boolean;
}

/** What `MemoryManager.initializeAll` accepts: the context minus what it can fill in itself. */
export type InitContextInput = Partial<InitContext>;

export interface PrefetchOptions {
  sessionId?: string;
  signal?: AbortSignal;
}

/**
 * The signal every hook call receives from the manager: it aborts when the call's budget runs out
 * (or the host aborted). Pass it to fetches, SDK calls and child processes; work that ignores it
 * is abandoned at the deadline, never awaited.
 */
export interface HookOptions {
  signal?: AbortSignal;
}

export interface ShutdownOptions extends HookOptions {
  /** The time this provider has to flush and close; `signal` aborts when it is spent. */
  timeoutMs?: number;
}

/**
 * Who wrote the user side of a turn, on a gateway where several participants share a session —
 * humans, and other agents relaying messages (the reference's `turn_author` / `author_*` kwargs).
 * `isBot` marks an agent-to-agent turn: providers keep it out of what they store about the human.
 */
export interface TurnAuthor {
  /** The platform's id of the author (`bot:<name>` for a relayed agent). */
  id?: string;
  name?: string;
  isBot?: boolean;
}

export interface SyncTurnOptions extends HookOptions {
  sessionId?: string;
  /** The full OpenAI-style transcript of the turn, tool calls included. */
  messages?: readonly ChatMessage[];
  /** Who wrote the user side; a bare string is the author's id (a human). */
  turnAuthor?: string | TurnAuthor;
}

export interface ToolCallOptions {
  sessionId?: string;
  signal?: AbortSignal;
}

export interface TurnStartInfo extends HookOptions {
  /** Who wrote this turn's message (gateways); tools may refuse writes during a bot's turn. */
  author?: TurnAuthor;
  remainingTokens?: number;
  model?: string;
  platform?: string;
  toolCount?: number;
}

export interface SessionSwitchOptions extends HookOptions {
  parentSessionId?: string;
  /** A genuinely new conversation: providers flush per-session buffers. */
  reset?: boolean;
  /** Only present (and true) for /undo-style rewinds that keep the same id. */
  rewound?: boolean;
  [key: string]: unknown;
}

export interface PreCompressOptions extends HookOptions {
  /** Fail-closed checkpoint (API v2 providers only): throw rather than return "" on failure. */
  requireCheckpoint?: boolean;
}

export interface DelegationOptions extends HookOptions {
  childSessionId?: string;
  [key: string]: unknown;
}

export type MemoryWriteAction = 'add' | 'replace' | 'remove';
export type MemoryTarget = 'memory' | 'user';

export interface MemoryWriteMetadata {
  writeOrigin?: string;
  executionContext?: string;
  sessionId?: string;
  parentSessionId?: string;
  platform?: string;
  toolName?: string;
  /** For replace/remove: the substring the model used to locate the entry. */
  oldText?: string;
  /** For replace/remove: the full entry text before the write, as the store reported it. */
  previousContent?: string;
}

/** One setup-wizard field, in the reference's shape. */
export interface ConfigField {
  key: string;
  description: string;
  type?: 'text' | 'integer' | 'number' | 'boolean';
  secret?: boolean;
  required?: boolean;
  default?: string | number | boolean;
  choices?: readonly string[];
  minimum?: number;
  maximum?: number;
  step?: number;
  url?: string;
  envVar?: string;
  /** Show only when every listed field has the given value. */
  when?: Readonly<Record<string, string | number | boolean>>;
  /** Derive the default from another field's answer. */
  defaultFrom?: { field: string; map: Readonly<Record<string, string | number | boolean>> };
}

export interface RecallStatus {
  providerLabel: string;
  /** Number of recalled items; 0 means content without a discrete count. */
  count: number;
  glyph?: string;
}

/** What `MemoryManager.recallStatuses()` reports per provider: the last recall and the runtime health. */
export interface ProviderRecallStatus {
  provider: string;
  recall: RecallStatus | null;
  health: ProviderHealth;
}
