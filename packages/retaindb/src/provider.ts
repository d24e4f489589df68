import fs from 'node:fs';
import path from 'node:path';
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
  type SessionSwitchOptions,
  type ShutdownOptions,
  type SyncTurnOptions,
  type ToolCallOptions,
  type ToolSchema,
  type TurnStartInfo,
  canWrite,
  describeError,
  neutralizeMemoryText,
  neutralizeToolResult,
  parseBoolean,
  saveConfigValues,
  scanWrite,
  silentLogger,
  stripRecallBlocks,
  toolError,
  writeDrainBudget,
} from '@hermes-memory/core';
import {
  type JsonObject,
  RetaindbClient,
  type RetaindbMessage,
  isPermanentFailure,
  retryAfterMs,
} from './client';
import type { DurableQueue } from './queue/durable-queue';
import { QUEUE_FILE } from './queue/queue-db';
import { type QueueHandle, acquireQueue } from './queue/registry';
import { buildOverlay, isObject, joinParts, reasoningLevel, selfModelBlock, synthesisBlock } from './recall';
import {
  type ResolvedRetaindbSettings,
  type RetaindbProviderSettings,
  projectFor,
  requireApiKey,
  resolveRetaindbSettings,
} from './settings';
import { TOOL_SCHEMAS, type ToolHost, dispatchTool } from './tools';

/** What the factory hands the constructor besides the settings (see `createRetaindbProvider`). */
export interface RetaindbProviderContext {
  env?: Env;
  providerConfig?: Readonly<Record<string, unknown>>;
  hermesHome?: string;
}

/** How long shutdown sends queued turns when the manager gives no deadline (the reference joins 10 s). */
const DEFAULT_SHUTDOWN_MS = 10_000;
/** A prefetch request running longer than this stops blocking the next batch. */
const HUNG_PREFETCH_MS = 16_000;
type PrefetchPart = 'context' | 'dialectic' | 'agent';
const PARTS: readonly PrefetchPart[] = ['context', 'dialectic', 'agent'];

/**
 * RetainDB: a cloud memory API behind a durable local write-behind queue.
 *
 * - `syncTurn` commits the turn to `$HERMES_HOME/retaindb_queue.db` before it returns; a
 *   background writer (one per database across processes) sends it with its idempotency key and
 *   deletes it once the service stored it — a crash, a kill -9 or an outage loses nothing.
 * - `queuePrefetch` starts three background jobs (context overlay, user synthesis, agent
 *   self-model); `prefetch` serves and clears what finished, without waiting or any I/O.
 * - Ten tools (memory and shared files); every call answers JSON.
 */
export class RetaindbProvider extends MemoryProvider {
  readonly name = 'retaindb';

  private readonly settingsInput: RetaindbProviderSettings;
  private readonly factoryHome: string | undefined;
  private settings: ResolvedRetaindbSettings;
  private client: RetaindbClient | null = null;
  private queueHandle: QueueHandle | null = null;
  private logger: Logger = silentLogger;
  private hermesHome = '';
  private sessionId = '';
  private userId = 'default';
  private writable = false;
  private closed = false;
  private readonly slots = new Map<PrefetchPart, PrefetchSlot<string>>();
  private readonly monitor = new HealthMonitor();
  private lastRecall: RecallStatus | null = null;
  private seeding: Promise<void> | null = null;
  private lifetime = new AbortController();

  constructor(settings: RetaindbProviderSettings = {}, context: RetaindbProviderContext = {}) {
    super();
    this.settingsInput = settings;
    this.factoryHome = context.hermesHome;
    this.settings = resolveRetaindbSettings(settings, context.providerConfig, context.env ?? process.env);
    for (const part of PARTS)
      this.slots.set(part, new PrefetchSlot<string>({ hungAfterMs: HUNG_PREFETCH_MS }));
  }

  /** Synchronous and free of I/O: a key and not switched off. */
  isAvailable(): boolean {
    return this.settings.enabled && this.settings.apiKey !== '';
  }

  override unavailableReason(): string {
    if (!this.settings.enabled) return 'RetainDB memory is disabled (enabled: false).';
    if (this.settings.apiKey === '') return 'RetainDB memory needs an API key: set RETAINDB_API_KEY.';
    return '';
  }

  /**
   * Build the client and open (or join) the durable queue; no request is made, so a slow service
   * never holds the agent's start. SOUL.md, when non-empty, seeds the agent identity in the
   * background. In tools-only mode (`memory_provider_mode: tools`) neither happens: no automatic
   * remote writes.
   */
  async initialize(sessionId: string, context: InitContext): Promise<void> {
    this.settings = resolveRetaindbSettings(
      this.settingsInput,
      context.providerConfig,
      context.env ?? process.env,
    );
    this.logger = context.logger ?? silentLogger;
    this.hermesHome = context.hermesHome;
    this.sessionId = sessionId;
    this.userId = this.settings.userId || context.userId || 'default';
    this.writable = canWrite(context.agentContext) && !context.inspectionOnly;
    this.closed = false;
    this.lifetime = new AbortController();
    // Initialised again without a shutdown: give the previous queue share back first.
    void this.queueHandle?.release({ timeoutMs: 0 });
    this.queueHandle = null;
    const client = new RetaindbClient({
      baseURL: this.settings.baseURL,
      apiKey: requireApiKey(this.settings),
      project: projectFor(this.settings, context.hermesHome),
      ...(this.settings.timeoutMs ? { timeoutMs: this.settings.timeoutMs } : {}),
      health: this.monitor,
    });
    this.client = client;
    const toolsOnly = isToolsOnly(context.providerConfig);
    if (!this.writable || toolsOnly) return;
    this.queueHandle = acquireQueue(
      path.join(context.hermesHome, QUEUE_FILE),
      (row, signal) =>
        client
          .ingestSession(
            { userId: row.userId, sessionId: row.sessionId },
            row.messages,
            row.idempotencyKey,
            signal,
          )
          .then(() => undefined),
      {
        logger: this.logger,
        leaseMs: this.settings.leaseMs,
        backoffMs: this.settings.backoffMs,
        maxBackoffMs: this.settings.maxBackoffMs,
        failures: { permanent: isPermanentFailure, retryAfterMs },
      },
    );
    this.seedSoul(client, context.hermesHome);
  }

  /** The durable queue this provider writes to (null in tools-only mode and non-primary contexts). */
  get queue(): DurableQueue | null {
    return this.queueHandle?.queue ?? null;
  }

  getToolSchemas(): ToolSchema[] {
    return TOOL_SCHEMAS.map((schema) => structuredClone(schema));
  }

  override systemPromptBlock(): string {
    if (!this.client || this.closed) return '';
    return (
      `# RetainDB Memory\nActive. Project: ${neutralizeMemoryText(this.client.project)}.\n` +
      'Use retaindb_search to find memories, retaindb_remember to store facts, retaindb_profile for a user overview, retaindb_context for current-task context.'
    );
  }

  override onTurnStart(turn: number, _message: string, _info?: TurnStartInfo): void {
    for (const slot of this.slots.values()) slot.setTurn(turn);
  }

  /**
   * Start the three background jobs for the next turn: the context overlay (query + profile), the
   * user synthesis (dialectic, reasoning level by query length), the agent self-model. Skipped for
   * another session's query and while the previous batch still runs.
   */
  override queuePrefetch(query: string, options?: PrefetchOptions): void {
    const client = this.client;
    if (!client || this.closed || query.trim() === '') return;
    if (options?.sessionId && options.sessionId !== this.sessionId) return;
    if (PARTS.some((part) => this.slot(part).isInFlight())) {
      this.logger.debug('RetainDB prefetch still running; skipping new batch');
      return;
    }
    const owner = this.sessionId;
    const userId = this.userId;
    const agentId = this.settings.agentId;
    this.slot('context').start(
      'next',
      async (signal) => (await this.context(query, owner, this.signal(signal))).context,
    );
    this.slot('dialectic').start('next', async (signal) => {
      const answer = await client.askUser(userId, query, reasoningLevel(query), this.signal(signal));
      return synthesisBlock(answer.answer);
    });
    this.slot('agent').start('next', async (signal) =>
      selfModelBlock(await client.getAgentModel(agentId, this.signal(signal))),
    );
  }

  /** Serve and clear what the jobs prepared: never waits, never calls the service. */
  override prefetch(_query: string, options?: PrefetchOptions): string {
    if (this.closed || !this.client) return '';
    if (options?.sessionId && options.sessionId !== this.sessionId) return '';
    const parts = PARTS.map((part) => this.slot(part).take() ?? '');
    const text = joinParts(parts);
    this.lastRecall = text ? { providerLabel: 'RetainDB', count: parts.filter(Boolean).length } : null;
    return text;
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall;
  }

  /**
   * Commit the turn (user, then assistant, one ISO timestamp) to the durable queue and return:
   * when this returns the turn is on disk. Empty user text stores nothing; a turn the write
   * scanner blocks is not stored (it would come back as recall).
   */
  override syncTurn(userContent: string, assistantContent: string, options?: SyncTurnOptions): void {
    const queue = this.queueHandle?.queue;
    if (!queue || this.closed || !this.writable) return;
    const user = stripRecallBlocks(userContent);
    if (user.trim() === '') return;
    const assistant = stripRecallBlocks(assistantContent);
    for (const text of [user, assistant]) {
      const scan = scanWrite(text);
      if (!scan.ok) {
        this.logger.warn(`RetainDB memory did not store a turn: ${scan.message}`);
        return;
      }
    }
    const timestamp = new Date().toISOString();
    const messages: RetaindbMessage[] = [
      { role: 'user', content: neutralizeMemoryText(user), timestamp },
      { role: 'assistant', content: neutralizeMemoryText(assistant), timestamp },
    ];
    queue.enqueue(this.userId, options?.sessionId || this.sessionId, messages);
  }

  /** Every call answers JSON: missing arguments, unknown tools and service failures included. */
  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    const client = this.client;
    if (!client || this.closed) return toolError('RetainDB not initialized');
    let result: string;
    try {
      const value = await dispatchTool(this.toolHost(client), toolName, args, this.signal(options?.signal));
      result = JSON.stringify(value ?? null);
    } catch (error) {
      result = toolError(describeError(error));
    }
    // Results quote stored text: nothing in them may open, close or imitate the recall fence.
    return neutralizeToolResult(result);
  }

  /** Mirror builtin writes: add to the user profile → preference, to memory → factual; nothing else. */
  override async onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    _metadata?: MemoryWriteMetadata,
    options?: HookOptions,
  ): Promise<void> {
    const client = this.client;
    if (!client || this.closed || !this.writable || action !== 'add' || content.trim() === '') return;
    const scan = scanWrite(content, { scope: 'strict' });
    if (!scan.ok) {
      this.logger.warn(`RetainDB memory did not mirror a memory write: ${scan.message}`);
      return;
    }
    try {
      await client.addMemory(
        { userId: this.userId, sessionId: this.sessionId },
        {
          content: neutralizeMemoryText(content),
          memoryType: target === 'user' ? 'preference' : 'factual',
          importance: 0.7,
        },
        this.signal(options?.signal),
      );
    } catch (error) {
      this.logger.debug(`RetainDB memory mirror failed: ${describeError(error)}`);
    }
  }

  /** A new session: recall prepared for the old one is dropped, even when it arrives later. */
  override onSessionSwitch(newSessionId: string, _options: SessionSwitchOptions): undefined {
    const id = newSessionId.trim();
    if (id === '') return undefined;
    this.sessionId = id;
    for (const slot of this.slots.values()) slot.newGeneration();
    return undefined;
  }

  override health(): ProviderHealth | null {
    const health = this.monitor.snapshot();
    return health.status === 'unknown' ? null : health;
  }

  override async probe(options?: HookOptions): Promise<ProbeResult> {
    const client = this.client ?? this.clientForProbe();
    if (!client) return { status: 'failed', message: this.unavailableReason() };
    return client.probe(this.userId, options?.signal);
  }

  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'api_key',
        description: 'RetainDB API key',
        type: 'text',
        secret: true,
        required: true,
        envVar: 'RETAINDB_API_KEY',
        url: 'https://retaindb.com',
      },
      { key: 'base_url', description: 'API endpoint', type: 'text', default: 'https://api.retaindb.com' },
      {
        key: 'project',
        description: "Project identifier (optional — uses 'default' project if not set)",
        type: 'text',
        default: '',
      },
    ];
  }

  /** base_url and project go to `memory.retaindb` in config.yaml; the key stays in `.env`. */
  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    const patch: Record<string, unknown> = {};
    for (const key of ['base_url', 'project']) {
      if (typeof values[key] === 'string') patch[`memory.retaindb.${key}`] = values[key];
    }
    if (Object.keys(patch).length > 0) saveConfigValues(hermesHome, patch);
  }

  /** Wait until the queue is empty (`MemoryManager.flushPending()`). */
  override async flush(timeoutMs?: number): Promise<boolean> {
    const queue = this.queueHandle?.queue;
    return queue ? queue.drain(timeoutMs) : true;
  }

  /**
   * Send queued turns within the deadline, then stop. What is not sent stays in the queue file for
   * the next start — never lost. Safe to call twice (the queue share is released once).
   */
  override async shutdown(options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const handle = this.queueHandle;
    this.queueHandle = null;
    // Sending stops early enough to close the queue within the caller's deadline: a queue left
    // open past it is abandoned by the manager ("shutdown failed") with its writer lease held.
    const budget = options?.timeoutMs ?? DEFAULT_SHUTDOWN_MS;
    try {
      await handle?.release({
        timeoutMs: writeDrainBudget(budget),
        ...(options?.signal ? { signal: options.signal } : {}),
      });
    } finally {
      this.lifetime.abort(new Error('RetainDB memory shut down.'));
      for (const slot of this.slots.values()) slot.close();
    }
  }

  /** Rows waiting in the queue plus running prefetch jobs and the SOUL.md seed. */
  get pendingWork(): number {
    const queued = this.closed ? 0 : (this.queueHandle?.queue.pendingCount() ?? 0);
    const prefetching = PARTS.filter((part) => this.slot(part).isInFlight()).length;
    return queued + prefetching + (this.seeding ? 1 : 0);
  }

  /** Resolves when the queue is empty and the prefetch jobs have settled (or `timeoutMs` passed). */
  async idle(timeoutMs = 30_000): Promise<void> {
    await this.seeding;
    if (!this.closed) await this.queueHandle?.queue.drain(timeoutMs);
    await Promise.all(PARTS.map((part) => this.slot(part).idle(timeoutMs)));
  }

  /** The overlay and the raw query result (the `retaindb_context` tool and the context job). */
  private async context(
    query: string,
    sessionId: string,
    signal?: AbortSignal,
  ): Promise<{ context: string; raw: JsonObject }> {
    const client = this.client;
    if (!client) return { context: '', raw: {} };
    const [raw, profile] = await Promise.all([
      client.queryContext({ userId: this.userId, sessionId }, query, signal),
      client.getProfile(this.userId, signal).catch(() => ({}) as JsonObject),
    ]);
    return { context: buildOverlay(profile, raw), raw };
  }

  private toolHost(client: RetaindbClient): ToolHost {
    return {
      client,
      userId: this.userId,
      sessionId: this.sessionId,
      agentId: this.settings.agentId,
      hermesHome: this.hermesHome,
      writable: this.writable,
      context: (query, signal) => this.context(query, this.sessionId, signal),
    };
  }

  private seedSoul(client: RetaindbClient, hermesHome: string): void {
    let soul = '';
    try {
      soul = fs.readFileSync(path.join(hermesHome, 'SOUL.md'), 'utf8').trim();
    } catch {
      return;
    }
    if (soul === '') return;
    this.seeding = client
      .seedAgentIdentity(this.settings.agentId, soul, this.lifetime.signal)
      .then(
        () => undefined,
        (error: unknown) => this.logger.debug(`RetainDB soul seed failed: ${describeError(error)}`),
      )
      .finally(() => {
        this.seeding = null;
      });
  }

  private slot(part: PrefetchPart): PrefetchSlot<string> {
    return this.slots.get(part)!;
  }

  /** The caller's signal joined with the provider's lifetime. */
  private signal(extra?: AbortSignal): AbortSignal {
    return extra ? AbortSignal.any([extra, this.lifetime.signal]) : this.lifetime.signal;
  }

  private clientForProbe(): RetaindbClient | null {
    if (!this.isAvailable()) return null;
    return new RetaindbClient({
      baseURL: this.settings.baseURL,
      apiKey: this.settings.apiKey,
      project: projectFor(this.settings, this.factoryHome),
      ...(this.settings.timeoutMs ? { timeoutMs: this.settings.timeoutMs } : {}),
    });
  }
}

/** The reference's tools-only variant: `memory_provider_mode: tools` (or `tools_only: true`). */
function isToolsOnly(config: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!isObject(config)) return false;
  return config.memory_provider_mode === 'tools' || parseBoolean(config.tools_only) === true;
}
