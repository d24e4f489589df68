import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  NotReadyError,
  type ChatMessage,
  type InitContext,
  type Logger,
  MemoryProvider,
  type SessionSwitchOptions,
  type SyncTurnOptions,
  type ToolCallOptions,
  type ToolSchema,
  SerialQueue,
  canWrite,
  loadHermesConfig,
  neutralizeToolResult,
  silentLogger,
  stripRecallBlocks,
} from '@hermes-memory/core';
import { MEMORY_TOOL_NAME, MEMORY_TOOL_SCHEMA, handleMemoryTool } from './memory/memory-tool';
import { type ApplyPendingResult, MemoryStore } from './memory/memory-store';
import type { PendingWrite } from './memory/pending-store';
import {
  type WriteApprovalMode,
  type WriteApprovalSetting,
  resolveWriteApproval,
  writeApprovalFromConfig,
} from './memory/write-approval';
import {
  SESSION_SEARCH_SCHEMA,
  SESSION_SEARCH_TOOL_NAME,
  handleSessionSearch,
} from './sessions/session-search';
import { CLASSIC_SESSION_SEARCH_SCHEMA, handleClassicSessionSearch } from './sessions/session-search-classic';
import { SessionStore, chatMessageToInput, contentToText } from './sessions/session-store';
import type { MessageInput } from './sessions/types';

export interface BuiltinSettings {
  /** Profile root (default: the manager's `hermesHome`). */
  hermesHome?: string;
  /** Default: config.yaml `memory.memory_char_limit` (2,200). */
  memoryCharLimit?: number;
  /** Default: config.yaml `memory.user_char_limit` (1,375). */
  userCharLimit?: number;
  /** Default: config.yaml `memory.memory_enabled` (true). */
  memoryEnabled?: boolean;
  /** Default: config.yaml `memory.user_profile_enabled` (true). */
  userProfileEnabled?: boolean;
  /** Record every turn into state.db (default true). */
  recordSessions?: boolean;
  /** `current` (no model calls, default) or `classic` (LLM summaries through `context.llm`). */
  sessionSearch?: 'current' | 'classic';
  /** Cross-process lock wait for memory writes (default 10 s). */
  lockTimeoutMs?: number;
  /**
   * Write-approval gate for the `memory` tool. Default: config.yaml `memory.write_approval` or
   * top-level `write_approval` (false). `true` / `'stage'`: stage every write for approval;
   * `'block'`: refuse writes; `false` / `'off'`: write freely.
   */
  writeApproval?: WriteApprovalSetting;
}

/** Review helpers for staged memory writes (`provider.pendingWrites`). */
export interface PendingWrites {
  /** Staged writes, oldest first. */
  list(): PendingWrite[];
  /** Commit one (scanned and limit-checked again); mirrors it to providers on success. */
  apply(id: string): Promise<ApplyPendingResult>;
  /** Discard one; false when there was no such record. */
  reject(id: string): Promise<boolean>;
}

export const MEMORY_GUIDANCE =
  'You have persistent memory across sessions (the MEMORY and USER PROFILE blocks above). Save durable facts ' +
  '— user preferences, corrections, environment details — with the memory tool as you learn them; keep ' +
  'entries short and consolidate when memory is full. Use session_search to recall past conversations.';

/**
 * The builtin layer every user runs: curated MEMORY.md / USER.md (frozen into the system prompt
 * at session start), the `memory` tool, the state.db session store with `session_search`, and
 * per-turn recording on an ordered background queue.
 */
export class BuiltinProvider extends MemoryProvider {
  readonly name = 'builtin';
  private readonly settings: BuiltinSettings;
  private memory: MemoryStore | null = null;
  private sessions: SessionStore | null = null;
  private context: InitContext | null = null;
  private sessionId = '';
  private block = '';
  private memoryEnabled = true;
  private userProfileEnabled = true;
  private logger: Logger = silentLogger;
  private queue: SerialQueue | null = null;
  private approval: WriteApprovalMode = 'off';

  constructor(settings: BuiltinSettings = {}) {
    super();
    this.settings = { ...settings };
  }

  isAvailable(): boolean {
    return true;
  }

  /** The curated store (null before `initialize`). */
  get memoryStore(): MemoryStore | null {
    return this.memory;
  }

  /** The session store (null before `initialize`). */
  get sessionStore(): SessionStore | null {
    return this.sessions;
  }

  get currentSessionId(): string {
    return this.sessionId;
  }

  /** The effective write-approval mode (known after `initialize`). */
  get writeApproval(): WriteApprovalMode {
    return this.approval;
  }

  /**
   * Staged memory writes for a review UI (`/memory pending`, `/memory approve`). Throws before
   * `initialize`. Applying bypasses the gate; the write is still scanned and limit-checked.
   */
  get pendingWrites(): PendingWrites {
    const store = this.memory;
    if (!store) throw new NotReadyError('BuiltinProvider', 'not-initialized');
    return {
      list: () => store.listPending(),
      apply: (id) => store.applyPending(id),
      reject: (id) => store.rejectPending(id),
    };
  }

  initialize(sessionId: string, context: InitContext): void {
    this.context = context;
    this.logger = context.logger ?? silentLogger;
    this.sessionId = sessionId;
    const hermesHome = this.settings.hermesHome ?? context.hermesHome;
    let config: ReturnType<typeof loadHermesConfig>['memory'] | null = null;
    let raw: Record<string, unknown> | undefined;
    try {
      const loaded = loadHermesConfig(hermesHome);
      config = loaded.memory;
      raw = loaded.raw;
    } catch (error) {
      this.logger.warn(`config.yaml ignored: ${error instanceof Error ? error.message : String(error)}`);
    }
    for (const problem of config?.problems ?? [])
      this.logger.warn(`config.yaml: ${problem.message}; using the default.`);
    this.memoryEnabled = this.settings.memoryEnabled ?? config?.memoryEnabled ?? true;
    this.userProfileEnabled = this.settings.userProfileEnabled ?? config?.userProfileEnabled ?? true;
    this.approval =
      this.settings.writeApproval !== undefined
        ? resolveWriteApproval(this.settings.writeApproval)
        : writeApprovalFromConfig(raw);
    this.memory = new MemoryStore({
      hermesHome,
      memoryCharLimit: this.settings.memoryCharLimit ?? config?.memoryCharLimit,
      userCharLimit: this.settings.userCharLimit ?? config?.userCharLimit,
      logger: this.logger,
      lockTimeoutMs: this.settings.lockTimeoutMs,
      onWrite: (action, target, content, metadata) => {
        context.onMemoryWrite?.(action, target, content, {
          sessionId: this.sessionId,
          platform: context.platform,
          ...metadata,
        });
      },
    }).load({ createDir: canWrite(context.agentContext) });
    this.block = this.renderBlock();
    this.queue = new SerialQueue({ name: 'builtin-sessions', logger: this.logger });
    this.sessions = this.openSessions(hermesHome, canWrite(context.agentContext));
    if (this.recording() && this.sessions) {
      this.sessions.createSession(sessionId, {
        source: context.platform || 'cli',
        userId: context.userId ?? null,
        parentSessionId: context.parentSessionId ?? null,
      });
    }
  }

  /** Read-only contexts search an existing state.db but never create or change one. */
  private openSessions(hermesHome: string, writable: boolean): SessionStore | null {
    try {
      if (writable) return new SessionStore({ hermesHome, logger: this.logger });
      if (!fs.existsSync(path.join(hermesHome, 'state.db'))) return null;
      return new SessionStore({ hermesHome, logger: this.logger, readonly: true });
    } catch (error) {
      this.logger.warn(
        `Session store unavailable: ${error instanceof Error ? error.message : String(error)}`,
      );
      return null;
    }
  }

  private recording(): boolean {
    return (this.settings.recordSessions ?? true) && canWrite(this.context?.agentContext);
  }

  private renderBlock(): string {
    if (!this.memory) return '';
    const parts: string[] = [];
    const mem = this.memoryEnabled ? this.memory.formatForSystemPrompt('memory') : null;
    const user = this.userProfileEnabled ? this.memory.formatForSystemPrompt('user') : null;
    if (mem) parts.push(mem);
    if (user) parts.push(user);
    if (this.memoryEnabled || this.userProfileEnabled) parts.push(MEMORY_GUIDANCE);
    return parts.join('\n\n');
  }

  /**
   * Re-read MEMORY.md / USER.md and re-render the snapshot (`systemPromptBlock`,
   * `memoryStore.formatForSystemPrompt`). For long-lived hosts that have no prompt cache to keep
   * stable — an MCP server serving the snapshot as a resource shows the store as it is when read,
   * not as it was at launch. An agent session keeps its frozen snapshot and never calls this.
   */
  refreshSnapshot(): void {
    if (!this.memory) return;
    this.memory.load({ createDir: false });
    this.block = this.renderBlock();
  }

  /** Precomputed at load: MEMORY snapshot, USER snapshot, short guidance. */
  override systemPromptBlock(): string {
    return this.block;
  }

  getToolSchemas(): ToolSchema[] {
    const tools: ToolSchema[] = [];
    if (this.memoryEnabled || this.userProfileEnabled) tools.push(MEMORY_TOOL_SCHEMA);
    tools.push(
      this.settings.sessionSearch === 'classic' ? CLASSIC_SESSION_SEARCH_SCHEMA : SESSION_SEARCH_SCHEMA,
    );
    return tools;
  }

  /** Tool results are memory text: whatever they echo (entries, transcripts) is neutralised. */
  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    return neutralizeToolResult(await this.callTool(toolName, args, options));
  }

  private async callTool(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    if (toolName === MEMORY_TOOL_NAME) {
      return handleMemoryTool(this.memory, args, {
        canWrite: canWrite(this.context?.agentContext),
        writeOrigin: 'assistant_tool',
        metadata: { sessionId: options?.sessionId ?? this.sessionId },
        writeApproval: this.approval,
      });
    }
    if (toolName === SESSION_SEARCH_TOOL_NAME) {
      const currentSessionId = options?.sessionId ?? this.sessionId;
      if (this.settings.sessionSearch === 'classic') {
        return handleClassicSessionSearch(this.sessions, args, {
          currentSessionId,
          llm: this.context?.llm,
          signal: options?.signal,
        });
      }
      return handleSessionSearch(this.sessions, args, { currentSessionId });
    }
    return JSON.stringify({
      success: false,
      error: `Unknown tool '${toolName}' for the builtin memory provider.`,
    });
  }

  override onTurnStart(): void {
    this.memory?.resetTurn();
  }

  /**
   * Record the turn into state.db on the ordered background queue (returns at once). With
   * `messages`, everything from the last user message matching `userContent` on is stored (tool
   * calls and results included), so hosts may pass the turn or the whole transcript.
   */
  override syncTurn(userContent: string, assistantContent: string, options?: SyncTurnOptions): void {
    if (!this.recording() || !this.sessions || !this.queue) return;
    const sessionId = options?.sessionId || this.sessionId;
    const rows = turnRows(userContent, assistantContent, options?.messages);
    const sessions = this.sessions;
    const source = this.context?.platform || 'cli';
    this.queue.push(async () => {
      await nextTick();
      if (!sessions.isOpen) return;
      if (!sessions.getSession(sessionId)) sessions.ensureSession(sessionId, source);
      sessions.appendMessages(sessionId, rows);
    }, 'syncTurn');
  }

  /** The id rotated: end the old session and create the child with parent lineage, then reload the snapshot. */
  override onSessionSwitch(newSessionId: string, options: SessionSwitchOptions): boolean | undefined {
    if (!newSessionId || newSessionId === this.sessionId) return undefined;
    const old = this.sessionId;
    const parent = options.parentSessionId ?? old;
    this.sessionId = newSessionId;
    if (this.memory) {
      this.memory.load({ createDir: canWrite(this.context?.agentContext) });
      this.block = this.renderBlock();
    }
    if (this.recording() && this.sessions && this.queue) {
      const sessions = this.sessions;
      const source = this.context?.platform || 'cli';
      const reason =
        typeof options.endReason === 'string'
          ? options.endReason
          : options.reset
            ? 'session_reset'
            : 'compression';
      this.queue.push(async () => {
        await nextTick();
        if (!sessions.isOpen) return;
        const prev = old ? sessions.getSession(old) : null;
        if (prev && prev.ended_at === null) sessions.endSession(old, reason);
        sessions.createSession(newSessionId, {
          source,
          userId: this.context?.userId ?? null,
          parentSessionId: parent && sessions.getSession(parent) ? parent : null,
        });
      }, 'onSessionSwitch');
    }
    return true;
  }

  override onSessionEnd(_messages: readonly ChatMessage[]): void {
    if (!this.recording() || !this.sessions || !this.queue) return;
    const sessions = this.sessions;
    const id = this.sessionId;
    this.queue.push(async () => {
      await nextTick();
      if (!sessions.isOpen) return;
      const s = sessions.getSession(id);
      if (s && s.ended_at === null) sessions.endSession(id, 'session_end');
    }, 'onSessionEnd');
  }

  /** Queued or running session-recording tasks. */
  get pendingWork(): number {
    return this.queue?.size ?? 0;
  }

  /** Wait for queued session writes (tests, hosts before exit). */
  override async flush(timeoutMs = 5000): Promise<boolean> {
    return this.queue ? this.queue.drain(timeoutMs) : true;
  }

  override async shutdown(): Promise<void> {
    await this.flush(5000);
    this.sessions?.close();
  }
}

/** Yield to the event loop so SQLite work never runs on the caller's stack. */
function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The rows a turn stores. A recall block a host left in its API copy of the user message is
 * removed and any other fence markup neutralised, so state.db never holds a fence.
 */
function turnRows(user: string, assistant: string, messages?: readonly ChatMessage[]): MessageInput[] {
  return rawTurnRows(user, assistant, messages).map((row) =>
    typeof row.content === 'string' ? { ...row, content: stripRecallBlocks(row.content) } : row,
  );
}

function rawTurnRows(user: string, assistant: string, messages?: readonly ChatMessage[]): MessageInput[] {
  if (messages && messages.length > 0) {
    let start = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.role === 'user' && contentToText(m.content) === user) {
        start = i;
        break;
      }
    }
    if (start < 0) start = messages.findIndex((m) => m.role !== 'system');
    if (start >= 0) {
      const rows = messages
        .slice(start)
        .filter((m) => m.role !== 'system')
        .map(chatMessageToInput);
      if (rows.length > 0) return rows;
    }
  }
  return [
    { role: 'user', content: user },
    { role: 'assistant', content: assistant },
  ];
}

/** Factory with the project's naming convention. */
export function createBuiltinProvider(settings: BuiltinSettings = {}): BuiltinProvider {
  return new BuiltinProvider(settings);
}
