import {
  type ConfigField,
  type Env,
  HealthMonitor,
  type HookOptions,
  type InitContext,
  type Logger,
  type MemoryTarget,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  MemoryProvider,
  type PrefetchOptions,
  PrefetchSlot,
  type ProbeResult,
  type ProviderHealth,
  type RecallStatus,
  SerialQueue,
  type SessionSwitchOptions,
  type ShutdownOptions,
  type SyncTurnOptions,
  type ToolCallOptions,
  type ToolSchema,
  type TurnStartInfo,
  canWrite,
  describeError,
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
import { TemplateClient, type TemplateMemory } from './client';
import {
  type ResolvedTemplateSettings,
  type TemplateProviderSettings,
  requireApiKey,
  resolveTemplateSettings,
} from './template-settings';

const SEARCH_TOOL = 'template_search';
const REMEMBER_TOOL = 'template_remember';
/** How long shutdown waits for queued writes when the manager gives no deadline. */
const DEFAULT_SHUTDOWN_MS = 5000;
/** How many of the latest notes a new one is scanned together with (payloads split across notes). */
const SCAN_CONTEXT_NOTES = 8;

/** What the factory hands the constructor besides the settings (see `createTemplateProvider`). */
export interface TemplateProviderContext {
  env?: Env;
  providerConfig?: Readonly<Record<string, unknown>>;
}

/**
 * A remote memory provider: a memory service reached over HTTP (`TemplateClient`), with one search
 * tool and one write tool. It has the shape most backends take:
 *
 * - writes (`syncTurn`, mirrors, the write tool) go through one ordered `SerialQueue`, so
 *   turn N lands before turn N+1 is searched, and no hook waits for the network;
 * - recall is started by `queuePrefetch` into a `PrefetchSlot` and served by `prefetch` from
 *   memory (session generations drop an old session's late results);
 * - every call carries the manager's signal; `shutdown` keeps its deadline even when the service
 *   hangs;
 * - failures never escape a hook: tools answer JSON errors, background writes are logged and
 *   recorded in `health()`.
 *
 * Fork it with `pnpm new:provider <id>` and change `client.ts` to your backend's API.
 */
export class TemplateProvider extends MemoryProvider {
  readonly name = 'template';

  private readonly settingsInput: TemplateProviderSettings;
  private settings: ResolvedTemplateSettings;
  private client: TemplateClient | null = null;
  private logger: Logger = silentLogger;
  /** Only the primary agent writes; subagents, cron jobs and flush forks read. */
  private writable = false;
  private closed = false;
  private sessionId = '';
  private queue = new SerialQueue({ name: 'template memory' });
  private slot = new PrefetchSlot<{ text: string; count: number }>();
  /** Aborted at shutdown: in-flight requests stop instead of holding the process. */
  private lifetime = new AbortController();
  /** What the service's answers said lately; the manager adds what it observed itself. */
  private readonly monitor = new HealthMonitor();
  private lastRecall: RecallStatus | null = null;

  constructor(settings: TemplateProviderSettings = {}, context: TemplateProviderContext = {}) {
    super();
    this.settingsInput = settings;
    // Resolved from the factory context (env with <home>/.env, config.yaml), so isAvailable() can
    // answer before initialize without any I/O.
    this.settings = resolveTemplateSettings(settings, context.providerConfig, context.env ?? process.env);
  }

  /** Synchronous and free of I/O: a key and not switched off. */
  isAvailable(): boolean {
    return this.settings.enabled && this.settings.apiKey !== '';
  }

  override unavailableReason(): string {
    if (!this.settings.enabled) return 'Template memory is disabled (enabled: false).';
    if (this.settings.apiKey === '') return 'Template memory needs an API key: set TEMPLATE_API_KEY.';
    return '';
  }

  /** Builds the client; no request is made, so a slow service never holds the agent's start. */
  async initialize(sessionId: string, context: InitContext): Promise<void> {
    this.settings = resolveTemplateSettings(
      this.settingsInput,
      context.providerConfig,
      context.env ?? process.env,
    );
    this.logger = context.logger ?? silentLogger;
    this.sessionId = sessionId;
    this.writable = canWrite(context.agentContext);
    this.closed = false;
    this.lifetime = new AbortController();
    this.queue = new SerialQueue({ name: 'template memory', logger: this.logger });
    this.slot = new PrefetchSlot({ logger: this.logger });
    this.client = new TemplateClient({
      baseURL: this.settings.baseURL,
      apiKey: requireApiKey(this.settings),
      timeoutMs: this.settings.timeoutMs,
      maxRetries: this.settings.maxRetries,
      health: this.monitor,
    });
  }

  /** Tools are static, so the manager can read them at registration, before initialize. */
  getToolSchemas(): ToolSchema[] {
    return [
      {
        name: SEARCH_TOOL,
        description:
          'Search long-term template memory. Returns the stored entries (past turns, remembered facts) that best match the query, with scores.',
        parameters: {
          type: 'object',
          properties: {
            query: { type: 'string', description: 'What to look for.' },
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

  override systemPromptBlock(): string {
    if (!this.client || this.closed) return '';
    return `Template memory is active. Use ${SEARCH_TOOL} to look up past conversations and ${REMEMBER_TOOL} to store durable facts.`;
  }

  override onTurnStart(turn: number, _message: string, _info?: TurnStartInfo): void {
    this.slot.setTurn(turn);
  }

  /** Start recall for the next turn in the background; `prefetch` serves it. */
  override queuePrefetch(query: string, _options?: PrefetchOptions): void {
    const client = this.client;
    if (!client || this.closed || isTrivialPrompt(query)) return;
    this.slot.start(query, async (signal) => {
      const hits = await client.search(query, this.settings.maxResults, this.signal(signal));
      return formatRecall(hits);
    });
  }

  /**
   * Serve what `queuePrefetch` prepared: this query's result, else the newest one (the agent
   * queues with the previous message for the next turn). Never waits, never calls the service.
   */
  override prefetch(query: string, _options?: PrefetchOptions): string {
    if (this.closed) return '';
    const ready = this.slot.take(query) ?? this.slot.take();
    this.lastRecall = ready && ready.count > 0 ? { providerLabel: 'Template', count: ready.count } : null;
    return ready?.text ?? '';
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall;
  }

  /** Queue the turn's write and return at once; a failure is logged and shows in `health()`. */
  override syncTurn(userContent: string, assistantContent: string, options?: SyncTurnOptions): void {
    if (this.closed || !this.writable || isTrivialPrompt(userContent)) return;
    // Recall the manager injected is not part of the turn; stored turns come back as recall, so
    // one the scanner blocks is not sent.
    const turn = `User: ${stripRecallBlocks(userContent)}\nAssistant: ${stripRecallBlocks(assistantContent)}`;
    const content = this.guard(turn.slice(0, this.settings.maxEntryChars), 'a turn');
    if (content === null) return;
    const sessionId = options?.sessionId ?? this.sessionId;
    this.background('sync turn', (client, signal) =>
      client.add({ content, kind: 'turn', sessionId }, signal),
    );
  }

  /** Tool calls answer JSON, always: bad arguments and service failures become `{success: false}`. */
  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    const result = await guardToolCall(async () => {
      const client = this.client;
      if (!client || this.closed) return toolError('Template memory is not running.');
      const signal = this.signal(options?.signal);
      if (toolName === SEARCH_TOOL) return await this.searchTool(client, args, signal);
      if (toolName === REMEMBER_TOOL) return await this.rememberTool(client, args, signal);
      return toolError(`Unknown tool '${toolName}' for the template memory provider.`);
    });
    // Results quote stored text: nothing in them may open, close or imitate the recall fence.
    return neutralizeToolResult(result);
  }

  /** Mirror builtin MEMORY.md / USER.md writes: add stores, replace swaps, remove deletes. */
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ): void {
    if (this.closed || !this.writable) return;
    const previous = metadata?.previousContent ?? (action === 'remove' ? content : undefined);
    // The mirror is a write path like any other: what the scanner blocks is never stored (and the
    // old mirror stays, as the builtin store refuses the same write).
    const text = action === 'remove' ? '' : this.guard(content, 'a mirrored memory write');
    if (text === null) return;
    this.background(`mirror ${action}`, async (client, signal) => {
      if (action !== 'add') {
        const mirrors = await client.list({ kind: 'mirror', target }, signal);
        for (const old of matchingMirrors(mirrors, previous, metadata?.oldText)) {
          await client.remove(old.id, signal);
        }
      }
      if (action !== 'remove') await client.add({ content: text, kind: 'mirror', target }, signal);
    });
  }

  /** A new conversation: recall prepared for the old one is dropped, even if it arrives later. */
  override onSessionSwitch(newSessionId: string, options: SessionSwitchOptions): undefined {
    this.sessionId = newSessionId;
    if (options.reset) this.slot.newGeneration();
    return undefined;
  }

  /** Runs behind the queued writes; waits for them within the boundary's budget. */
  override async onSessionEnd(_messages: unknown, options?: HookOptions): Promise<void> {
    await this.queue.drain(undefined, options?.signal);
  }

  override health(): ProviderHealth | null {
    const health = this.monitor.snapshot();
    return health.status === 'unknown' ? null : health;
  }

  /** One authenticated request, for setup and doctor (never on the hot path). */
  override async probe(options?: HookOptions): Promise<ProbeResult> {
    const client = this.client ?? this.clientForProbe();
    if (!client) return { status: 'failed', message: this.unavailableReason() };
    return client.probe(options?.signal);
  }

  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'api_key',
        description: 'Template API key',
        type: 'text',
        secret: true,
        required: true,
        envVar: 'TEMPLATE_API_KEY',
      },
      {
        key: 'base_url',
        description: 'Template service URL',
        type: 'text',
        default: 'http://127.0.0.1:8765',
        envVar: 'TEMPLATE_BASE_URL',
      },
      {
        key: 'max_results',
        description: 'Entries returned per search and per prefetch',
        type: 'integer',
        default: 5,
        minimum: 1,
        maximum: 50,
        envVar: 'TEMPLATE_MAX_RESULTS',
      },
    ];
  }

  /** Wait for queued writes without closing (`MemoryManager.flushPending()`). */
  override flush(timeoutMs?: number): Promise<boolean> {
    return this.queue.drain(timeoutMs);
  }

  /**
   * Flush queued writes within the deadline, then stop: what is still running is aborted, so a
   * hung service never holds the agent's exit. Safe to call twice.
   */
  override async shutdown(options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue.close();
    const drained = await this.queue.drain(options?.timeoutMs ?? DEFAULT_SHUTDOWN_MS, options?.signal);
    if (!drained) {
      const dropped = this.queue.abandon();
      this.logger.warn(`Template memory: ${dropped.length} queued write(s) not sent before shutdown.`);
    }
    this.lifetime.abort(new Error('Template memory shut down.'));
    this.slot.close();
  }

  /** Queued or running background work (for tests and the conformance harness). */
  get pendingWork(): number {
    return this.queue.size + (this.slot.isInFlight() ? 1 : 0);
  }

  /** Resolves when every queued write and the running recall have finished. */
  async idle(): Promise<void> {
    await this.queue.drain();
    await this.slot.idle(this.settings.timeoutMs * (this.settings.maxRetries + 1));
  }

  /** The caller's signal joined with the provider's lifetime. */
  private signal(extra?: AbortSignal): AbortSignal {
    return extra ? AbortSignal.any([extra, this.lifetime.signal]) : this.lifetime.signal;
  }

  /** A write on the ordered queue; failures are logged (the client records them in health). */
  private background(
    label: string,
    work: (client: TemplateClient, signal: AbortSignal) => Promise<unknown>,
  ): void {
    const client = this.client;
    if (!client) return;
    this.queue.push(async () => {
      try {
        await work(client, this.lifetime.signal);
      } catch (error) {
        this.logger.warn(`Template memory: ${label} failed: ${describeError(error)}`);
      }
    }, label);
  }

  /** Run a write on the queue and wait for its result, so the tool reports real success. */
  private enqueue<T>(label: string, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const accepted = this.queue.push(() => task().then(resolve, reject), label);
      if (!accepted) reject(new Error('Template memory is shutting down.'));
    });
  }

  private async searchTool(client: TemplateClient, args: unknown, signal: AbortSignal): Promise<string> {
    const parsed = parseToolArgs(args);
    const query = requiredString(parsed, 'query');
    const limit = integerArg(parsed, 'limit', { fallback: this.settings.maxResults, min: 1, max: 20 });
    const hits = await client.search(query, limit, signal);
    return toolResult({
      success: true,
      count: hits.length,
      results: hits.map((hit) => ({
        id: hit.id,
        kind: hit.kind,
        text: hit.content,
        score: hit.score ?? null,
        created_at: hit.created_at,
      })),
    });
  }

  private async rememberTool(client: TemplateClient, args: unknown, signal: AbortSignal): Promise<string> {
    if (!this.writable)
      return toolError('Template memory is read-only in this context (only the primary agent writes).');
    const content = requiredString(parseToolArgs(args), 'content').trim();
    if (content === '') return toolError("'content' must not be empty.");
    if (content.length > this.settings.maxEntryChars) {
      return toolError(
        `Content is ${content.length} characters; the limit is ${this.settings.maxEntryChars}.`,
      );
    }
    // Stored text comes back into later prompts: refuse injection and exfiltration payloads,
    // whole (before any request) or split across notes, and store fence markup escaped.
    const alone = scanWrite(content);
    if (!alone.ok) return toolError(alone.message);
    const stored = await this.enqueue('remember', async () => {
      const recent = await client.recent('note', SCAN_CONTEXT_NOTES, signal);
      const scan = scanWriteInContext(
        content,
        recent.map((m) => m.content),
      );
      if (!scan.ok) return scan.message;
      return client.add(
        { content: neutralizeMemoryText(content), kind: 'note', sessionId: this.sessionId },
        signal,
      );
    });
    if (typeof stored === 'string') return toolError(stored);
    return toolResult({ success: true, id: stored.id, message: 'Remembered.' });
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

  /** A client for `probe()` before initialize (setup runs it on a fresh provider). */
  private clientForProbe(): TemplateClient | null {
    if (!this.isAvailable()) return null;
    return new TemplateClient({
      baseURL: this.settings.baseURL,
      apiKey: this.settings.apiKey,
      timeoutMs: this.settings.timeoutMs,
      maxRetries: 0,
    });
  }
}

/**
 * The recall block the model sees: one line per memory, whitespace folded, fence markup escaped
 * (the service may hold text written by something other than this provider).
 */
export function formatRecall(hits: readonly TemplateMemory[]): { text: string; count: number } {
  if (hits.length === 0) return { text: '', count: 0 };
  const lines = hits.map((hit) => `- ${neutralizeMemoryText(hit.content.replace(/\s+/g, ' ').trim())}`);
  return { text: `## Template memory\n${lines.join('\n')}`, count: hits.length };
}

/** Mirrors equal to the previous text, else containing `oldText` (builtin's replace/remove by substring). */
function matchingMirrors(
  mirrors: readonly TemplateMemory[],
  previous: string | undefined,
  oldText: string | undefined,
): TemplateMemory[] {
  if (previous !== undefined) {
    // Mirrors are stored neutralised (a fixed point), so compare with the neutralised text too.
    const escaped = neutralizeMemoryText(previous);
    const exact = mirrors.filter((m) => m.content === previous || m.content === escaped);
    if (exact.length > 0) return exact;
  }
  return oldText ? mirrors.filter((m) => m.content.includes(oldText)) : [];
}
