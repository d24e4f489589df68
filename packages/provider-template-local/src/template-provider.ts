import path from 'node:path';
import {
  type ConfigField,
  type InitContext,
  type Logger,
  type MemoryTarget,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  MemoryProvider,
  NotReadyError,
  type PrefetchOptions,
  type RecallStatus,
  type SessionSwitchOptions,
  SerialQueue,
  type SyncTurnOptions,
  type ToolCallOptions,
  type ToolSchema,
  canWrite,
  guardToolCall,
  integerArg,
  isTrivialPrompt,
  neutralizeMemoryText,
  neutralizeToolResult,
  parseToolArgs,
  requiredString,
  scanWrite,
  scanWriteInContext,
  silentLogger,
  stripRecallBlocks,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import {
  type ResolvedTemplateSettings,
  type TemplateProviderSettings,
  resolveTemplateSettings,
} from './template-provider-settings';
import { searchEntries } from './template-search';
import { type EntryKind, JsonlStore, type StoredEntry } from './template-store';

const SEARCH_TOOL = 'template_search';
const REMEMBER_TOOL = 'template_remember';

/**
 * A small but complete memory provider: a JSON-lines file in HERMES_HOME, keyword search, one read
 * tool and one write tool. Fork it (`pnpm new:provider <id>`) and replace the store with your backend;
 * the lifecycle, the context rules and the queueing stay the same.
 */
export class TemplateProvider extends MemoryProvider {
  readonly name = 'template';

  private readonly settingsInput: TemplateProviderSettings;
  private settings: ResolvedTemplateSettings;
  private store: JsonlStore | null = null;
  private logger: Logger = silentLogger;
  /** Only the primary agent writes; subagents, cron jobs and flush forks read. */
  private writable = false;
  private closed = false;
  private sessionId = '';
  /**
   * Every write and every background recall runs here, one at a time and in order, so turn N's
   * write lands before turn N+1's prefetch looks for it, and no hook waits for the disk.
   */
  private queue = new SerialQueue({ name: 'template memory' });
  /** Results prepared by `queuePrefetch`, served by `prefetch` without touching the store. */
  private readonly prefetched = new Map<string, { text: string; count: number }>();
  private latestPrefetch: { text: string; count: number } | null = null;
  private lastRecall: RecallStatus | null = null;

  constructor(settings: TemplateProviderSettings = {}) {
    super();
    this.settingsInput = settings;
    // Resolve once without config or env so isAvailable() can answer before initialize.
    this.settings = resolveTemplateSettings(settings);
  }

  /** Synchronous and free of I/O: the manager calls it before deciding to initialize. */
  isAvailable(): boolean {
    return this.settings.enabled;
  }

  override unavailableReason(): string {
    return this.settings.enabled ? '' : 'Template memory is disabled (enabled: false).';
  }

  /** Open the store. Called once per agent start, with the profile root and the agent context. */
  async initialize(sessionId: string, context: InitContext): Promise<void> {
    this.settings = resolveTemplateSettings(this.settingsInput, context.providerConfig, context.env);
    this.logger = context.logger ?? silentLogger;
    this.sessionId = sessionId;
    this.writable = canWrite(context.agentContext);
    this.closed = false;
    this.queue = new SerialQueue({ name: 'template memory', logger: this.logger });
    const store = new JsonlStore(path.join(context.hermesHome, this.settings.fileName), this.logger);
    // A read-only context must not even repair a torn line: it leaves the file exactly as it found it.
    await store.load({ repair: this.writable });
    this.store = store;
  }

  /** Tools are static, so the manager can read them at registration, before initialize. */
  getToolSchemas(): ToolSchema[] {
    return [
      {
        name: SEARCH_TOOL,
        description:
          'Search long-term template memory by keywords. Returns the best matching stored entries (past turns, remembered facts) with scores.',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'Keywords to look for.' },
            limit: {
              type: 'integer',
              description: 'Maximum number of results (1-20).',
              minimum: 1,
              maximum: 20,
            },
          },
          required: ['query'],
        },
      },
      {
        name: REMEMBER_TOOL,
        description:
          'Store one durable fact in template memory so later sessions can find it. Use for stable facts and preferences, not for transient task state.',
        parameters: {
          type: 'object',
          properties: {
            content: { type: 'string', description: 'The fact to remember, one self-contained sentence.' },
          },
          required: ['content'],
        },
      },
    ];
  }

  /** Static guidance for the system prompt. Recall itself goes through prefetch, not here. */
  override systemPromptBlock(): string {
    if (!this.store || this.closed) return '';
    return `Template memory is active (${this.store.size} stored entries). Use ${SEARCH_TOOL} to look up past conversations and ${REMEMBER_TOOL} to store durable facts.`;
  }

  /**
   * Start recall for the next turn in the background. The result waits in a cache for `prefetch`,
   * which must answer at once: the agent is about to call the model.
   */
  override queuePrefetch(query: string, _options?: PrefetchOptions): void {
    if (this.closed || isTrivialPrompt(query)) return;
    this.queue.push(() => {
      const result = this.recall(query);
      this.prefetched.set(query, result);
      // Keep the cache small: only the most recent queries matter.
      if (this.prefetched.size > 8) this.prefetched.delete(this.prefetched.keys().next().value as string);
      this.latestPrefetch = result;
    }, 'prefetch');
  }

  /**
   * Serve what `queuePrefetch` prepared: the result for this exact query, else the latest prepared
   * one (the reference queues recall with the previous message for the next turn). Never searches,
   * never waits; '' when nothing is ready.
   */
  override prefetch(query: string, _options?: PrefetchOptions): string {
    if (this.closed) return '';
    const ready = this.prefetched.get(query) ?? this.latestPrefetch;
    if (!ready || ready.text === '') {
      this.lastRecall = null;
      return '';
    }
    this.lastRecall = { providerLabel: 'Template', count: ready.count };
    return ready.text;
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall;
  }

  /**
   * Persist a finished turn. Must not block: the write is queued and this returns at once. The
   * manager already runs it off the turn's critical path; queueing here keeps it cheap for hosts
   * that call the provider directly.
   */
  override syncTurn(userContent: string, assistantContent: string, options?: SyncTurnOptions): void {
    if (this.closed || !this.writable || isTrivialPrompt(userContent)) return;
    const turn = `User: ${stripRecallBlocks(userContent)}\nAssistant: ${stripRecallBlocks(assistantContent)}`;
    const sessionId = options?.sessionId ?? this.sessionId;
    this.queue.push(async () => {
      // Stored turns come back as recall: one the scanner blocks is not kept.
      const text = this.guard(turn.slice(0, this.settings.maxEntryChars), 'a turn');
      if (text !== null) await this.requireStore().add('turn', text, { sessionId });
    }, 'sync turn');
  }

  /** Tool calls answer JSON, always: bad arguments become `{"success": false, "error": ...}`. */
  override async handleToolCall(
    toolName: string,
    args: unknown,
    _options?: ToolCallOptions,
  ): Promise<string> {
    const result = await guardToolCall(async () => {
      if (!this.store || this.closed) return toolError('Template memory is not running.');
      if (toolName === SEARCH_TOOL) return this.searchTool(args);
      if (toolName === REMEMBER_TOOL) return await this.rememberTool(args);
      return toolError(`Unknown tool '${toolName}' for the template memory provider.`);
    });
    // Results quote stored text: nothing in them may open, close or imitate the recall fence.
    return neutralizeToolResult(result);
  }

  /**
   * Mirror of the builtin MEMORY.md / USER.md writes, so this store never contradicts them: add
   * stores the entry, replace swaps it, remove deletes it.
   */
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ): void {
    if (this.closed || !this.writable) return;
    this.queue.push(async () => {
      const store = this.requireStore();
      const previous = this.findMirrors(
        target,
        metadata?.previousContent ?? (action === 'remove' ? content : undefined),
        metadata?.oldText,
      );
      if (action === 'remove') {
        await store.remove(previous);
        return;
      }
      // The mirror is a write path like any other: what the scanner blocks is never stored.
      const text = this.guard(content, 'a mirrored memory write');
      if (text === null) return;
      if (action === 'add') await store.add('mirror', text, { target });
      else await store.replace(previous, 'mirror', text, { target });
    }, `mirror ${action}`);
  }

  /** A new conversation: forget prepared recall so it cannot leak into the next one. */
  override onSessionSwitch(newSessionId: string, options: SessionSwitchOptions): undefined {
    this.sessionId = newSessionId;
    if (options.reset) {
      this.prefetched.clear();
      this.latestPrefetch = null;
    }
    return undefined;
  }

  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'max_results',
        description: 'Entries returned per search and per prefetch',
        type: 'integer',
        default: 5,
        minimum: 1,
        maximum: 50,
        envVar: 'TEMPLATE_MAX_RESULTS',
      },
      {
        key: 'file_name',
        description: 'Memory file name inside HERMES_HOME',
        type: 'text',
        default: 'template-memory.jsonl',
        envVar: 'TEMPLATE_FILE',
      },
    ];
  }

  /** Drain queued writes, then refuse further work. Safe to call twice. */
  override async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue.close();
    await this.queue.drain();
  }

  /** Queued or running background tasks (for tests and the conformance harness). */
  get pendingWork(): number {
    return this.queue.size;
  }

  /**
   * Wait for queued writes without closing: `MemoryManager.flushPending()` calls this so a host can
   * know a turn has landed.
   */
  override flush(timeoutMs?: number): Promise<boolean> {
    return this.queue.drain(timeoutMs);
  }

  /** Resolves when every queued task has finished. */
  async idle(): Promise<void> {
    await this.queue.drain();
  }

  private requireStore(): JsonlStore {
    if (!this.store) throw new NotReadyError('Template memory', 'not-initialized');
    return this.store;
  }

  private recall(query: string, limit = this.settings.maxResults): { text: string; count: number } {
    const hits = searchEntries(this.requireStore().all(), query, limit);
    if (hits.length === 0) return { text: '', count: 0 };
    const lines = hits.map((hit) => `- ${neutralizeMemoryText(hit.entry.text.replace(/\s+/g, ' ').trim())}`);
    return { text: `## Template memory\n${lines.join('\n')}`, count: hits.length };
  }

  private searchTool(args: unknown): string {
    const parsed = parseToolArgs(args);
    const query = requiredString(parsed, 'query');
    const limit = integerArg(parsed, 'limit', { fallback: this.settings.maxResults, min: 1, max: 20 });
    const hits = searchEntries(this.requireStore().all(), query, limit);
    return toolResult({
      success: true,
      count: hits.length,
      results: hits.map((hit) => ({
        id: hit.entry.id,
        kind: hit.entry.kind,
        text: hit.entry.text,
        score: Math.round(hit.score * 1000) / 1000,
        created_at: new Date(hit.entry.createdAt).toISOString(),
      })),
    });
  }

  private async rememberTool(args: unknown): Promise<string> {
    if (!this.writable)
      return toolError('Template memory is read-only in this context (only the primary agent writes).');
    const content = requiredString(parseToolArgs(args), 'content').trim();
    if (content.length > this.settings.maxEntryChars) {
      return toolError(
        `Content is ${content.length} characters; the limit is ${this.settings.maxEntryChars}.`,
      );
    }
    // Stored text comes back into later prompts: refuse injection and exfiltration payloads,
    // whole or split across notes, and store fence markup escaped.
    const scan = scanWriteInContext(content, this.recentTexts());
    if (!scan.ok) return toolError(scan.message);
    const text = neutralizeMemoryText(content);
    const entry = await this.enqueue(() =>
      this.requireStore().add('note', text, { sessionId: this.sessionId }),
    );
    return toolResult({ success: true, id: entry.id, message: 'Remembered.' });
  }

  /** The latest stored texts, which a new note is judged together with. */
  private recentTexts(): string[] {
    return this.requireStore()
      .all()
      .slice(-8)
      .map((e) => e.text);
  }

  /** `text` neutralised, or null (logged) when the write scanner blocks it. */
  private guard(text: string, what: string): string | null {
    const scan = scanWrite(text);
    if (!scan.ok) {
      this.logger.warn(`Template memory did not store ${what}: ${scan.message}`);
      return null;
    }
    return neutralizeMemoryText(text);
  }

  /** Run a task on the write queue and wait for its result (tool calls report real success). */
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const accepted = this.queue.push(async () => {
        try {
          resolve(await task());
        } catch (error) {
          reject(error);
        }
      }, 'tool write');
      if (!accepted) reject(new Error('Template memory is shutting down.'));
    });
  }

  /** Ids of mirrored entries matching the previous text exactly, else containing `oldText`. */
  private findMirrors(
    target: MemoryTarget,
    previousContent: string | undefined,
    oldText: string | undefined,
  ): string[] {
    const mirrors = this.requireStore()
      .all()
      .filter((e: StoredEntry) => e.kind === ('mirror' satisfies EntryKind) && e.target === target);
    if (previousContent !== undefined) {
      const exact = mirrors.filter((e) => e.text === previousContent);
      if (exact.length > 0) return exact.map((e) => e.id);
    }
    if (oldText) return mirrors.filter((e) => e.text.includes(oldText)).map((e) => e.id);
    return [];
  }
}
