/**
 * Supermemory as the agent's external memory, through the official SDK: a per-user profile plus
 * semantic memories, partitioned by container tags, fed by one full-conversation ingest per
 * session. See decisions 0930 (transport), 0931 (prefetch), 0932 (re-sent ingests).
 *
 * Hot path: `syncTurn` only buffers (no I/O); recall for a message starts at `onTurnStart` and
 * `prefetch` serves it. Turn 1 may wait for it within `api_timeout` and the manager's budget;
 * later turns never wait (`prefetch: 'background'`), or wait for their own query within the same
 * bounds in the reference's synchronous mode (`prefetch: 'per-query'`).
 */
import {
  type ChatMessage,
  CircuitBreaker,
  type Clock,
  type ConfigField,
  describeError,
  type Env,
  guardToolCall,
  HealthMonitor,
  type HookOptions,
  type InitContext,
  isBackendFailure,
  isTrivialPrompt,
  type Logger,
  MemoryProvider,
  type MemoryTarget,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  neutralizeMemoryText,
  neutralizeToolResult,
  type Outbox,
  type OutboxEntry,
  type PrefetchOptions,
  PrefetchSlot,
  type ProbeResult,
  type ProviderHealth,
  type RecallStatus,
  SerialQueue,
  type SessionSwitchOptions,
  type ShutdownOptions,
  type SyncTurnOptions,
  scanWrite,
  silentLogger,
  systemClock,
  type ToolCallOptions,
  type ToolSchema,
  type TurnStartInfo,
  toolError,
  withDeadline,
  writeDrainBudget,
} from '@hermes-memory/core';
import { type ConversationMessage, type Profile, SupermemoryClient } from './client';
import {
  readSupermemoryJson,
  resolveSupermemoryConfig,
  type SupermemoryConfig,
  type SupermemoryProviderSettings,
  saveSupermemoryJson,
} from './config';
import { containerWhitelist, resolveContainerTag } from './containers';
import { DEFAULT_HELD_LIMITS, type HeldLimits, HeldTurns } from './held';
import { isDocument, openSupermemoryOutbox, type StoredWrite } from './outbox';
import { formatRecallBlock, includeProfile } from './recall';
import { missingFrom, REMEMBERED_SESSIONS, SessionIngests, turnsToConversation } from './session-ingests';
import { cleanCapturedText, hermesMetadata, type MetadataValue } from './text';
import { runTool, TOOL_NAMES, toolKind, toolSchemas } from './tools';

/** How `prefetch` gets its text (decision 0931). */
export type PrefetchMode = 'background' | 'per-query';

export interface SupermemoryProviderOptions extends SupermemoryProviderSettings {
  /** Default `background`: only turn 1 waits; `per-query` asks for every query (the reference). */
  prefetchMode?: PrefetchMode;
  /** Tests pass a `ManualClock`: relative ages, retry backoff and the breaker's cooldown run on it. */
  clock?: Clock;
  /** First retry backoff, doubled per retry (a server's Retry-After replaces it). Default 250 ms. */
  retryBaseDelayMs?: number;
  /** Consecutive failed requests (after their retries) that stop requests for a while. Default 5. */
  breakerThreshold?: number;
  /** How long requests stay stopped before one trial goes out. Default 120 000 ms. */
  breakerCooldownMs?: number;
  /**
   * The cap on turns held undelivered — buffered, in a failed ingest, or left on disk by an earlier
   * run (default 1000 turns, 2 000 000 characters): the oldest beyond it are dropped and counted.
   */
  heldLimits?: HeldLimits;
}

/** What the factory hands the constructor besides the settings. */
export interface SupermemoryProviderContext {
  hermesHome?: string;
  env?: Env;
  providerConfig?: Readonly<Record<string, unknown>>;
  logger?: Logger;
}

/** How long shutdown waits for the final ingest and mirrors without a manager deadline. */
const DEFAULT_SHUTDOWN_MS = 5000;
/** A session of one message shorter than this is not worth an ingest. */
const MIN_SINGLE_MESSAGE = 20;
/**
 * The longest a `prefetch` waits for its profile call (turn 1, or every turn in per-query mode):
 * `api_timeout`, but never past the first turn's 3 s budget.
 */
const PREFETCH_WAIT_MS = 3000;
/** The profile query is the message's first 200 characters. */
const PROFILE_QUERY_MAX = 200;

interface BufferedTurn {
  user: string;
  assistant: string;
  /** Its key in `held`: its outbox entry (decision 0115) when journaled, crossed off when an ingest takes the turn. */
  key: string;
}

/** An ingest ready to go: its body, when its content was taken, whether it is the whole transcript. */
interface PreparedIngest {
  body: IngestBody;
  stamp: number;
  complete: boolean;
}

/** A conversation ingest's body. */
interface IngestBody {
  conversationId: string;
  messages: ConversationMessage[];
  containerTags: string[];
  metadata: Record<string, MetadataValue>;
}

export class SupermemoryProvider extends MemoryProvider {
  readonly name = 'supermemory';

  private readonly options: SupermemoryProviderOptions;
  private readonly clock: Clock;
  private config: SupermemoryConfig;
  private client: SupermemoryClient | null = null;
  private logger: Logger = silentLogger;
  private primaryTag = 'hermes';
  private allowedTags: string[] = ['hermes'];
  /** Only the primary agent writes (capture, ingest, mirror); cron, flush and subagents read. */
  private writable = false;
  private closed = false;
  private sessionId = '';
  private turn = 0;
  private prefetched = false;
  private buffer: BufferedTurn[] = [];
  private queue = new SerialQueue({ name: 'supermemory writes' });
  private slot = new PrefetchSlot<Profile>({ concurrency: 'per-key' });
  /** Messages whose recall starts once the turn yields to the event loop (`scheduleRecall`). */
  private scheduled = new Set<string>();
  private scheduledRun: Promise<void> | null = null;
  private lifetime = new AbortController();
  private readonly monitor = new HealthMonitor();
  private breaker: CircuitBreaker;
  private lastRecall: RecallStatus | null = null;
  /** Buffered turns and unsent ingests, on disk until the service has them (decision 0115). */
  private outbox: Outbox<StoredWrite> | undefined;
  /** Every undelivered turn, bounded by `heldLimits` (decision 0115). */
  private held: HeldTurns;
  /** Keys of turns with no outbox entry (no outbox, or the journal closed). */
  private memoryKeys = 0;
  /** Outbox ids in a queued or running ingest: not sent again by `resend`. */
  private inFlight = new Set<string>();
  /** An ingest failed: its turns wait in the outbox until the service answers again (`resend`). */
  private undelivered = false;
  /** The ingest clock: turns and ingests are stamped in the order their content was taken. */
  private stamp = 0;
  /** When each journaled turn was captured (or adopted), on the ingest clock. */
  private turnStamps = new Map<string, number>();
  /** The newest ingest of each session the service took (decision 0932). */
  private ingests = new SessionIngests();
  /** Per session, the stamp of the ingest whose messages are journaled as its document (0933). */
  private documents = new Map<string, number>();

  constructor(options: SupermemoryProviderOptions = {}, context: SupermemoryProviderContext = {}) {
    super();
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.breaker = this.newBreaker();
    this.held = this.newHeld();
    if (context.logger) this.logger = context.logger;
    // From the factory context, so isAvailable() and the tool schemas are right before initialize.
    this.config = resolveSupermemoryConfig(options, {
      file: readSupermemoryJson(context.hermesHome),
      ...(context.providerConfig ? { providerConfig: context.providerConfig } : {}),
      env: context.env ?? process.env,
    });
    this.applyTags(undefined);
  }

  /** A key is all it needs (no I/O). */
  isAvailable(): boolean {
    return this.config.apiKey !== '';
  }

  override unavailableReason(): string {
    return this.isAvailable()
      ? ''
      : 'Supermemory needs an API key: set SUPERMEMORY_API_KEY (in <home>/.env).';
  }

  /** Builds the client; no request is made, so a slow service never holds the agent's start. */
  initialize(sessionId: string, context: InitContext): void {
    this.logger = context.logger ?? this.logger;
    this.config = resolveSupermemoryConfig(this.options, {
      file: readSupermemoryJson(context.hermesHome),
      ...(context.providerConfig ? { providerConfig: context.providerConfig } : {}),
      env: context.env ?? process.env,
    });
    this.applyTags(context.agentIdentity);
    this.sessionId = sessionId;
    this.writable = (context.agentContext ?? 'primary') === 'primary';
    this.closed = false;
    this.turn = 0;
    this.prefetched = false;
    this.buffer = [];
    this.held = this.newHeld();
    this.inFlight = new Set();
    this.undelivered = false;
    this.turnStamps = new Map();
    this.ingests = new SessionIngests();
    this.documents = new Map();
    this.lifetime = new AbortController();
    this.breaker = this.newBreaker();
    this.queue = this.nextQueue();
    this.slot = new PrefetchSlot<Profile>({
      concurrency: 'per-key',
      logger: this.logger,
      clock: this.clock,
      hungAfterMs: this.timeoutMs * 2,
    });
    this.client = null;
    if (!this.isAvailable()) {
      this.logger.warn(`Supermemory inactive: ${this.unavailableReason()}`);
      return;
    }
    try {
      this.client = new SupermemoryClient({
        apiKey: this.config.apiKey,
        baseURL: this.config.baseURL,
        timeoutMs: this.timeoutMs,
        health: this.monitor,
        breaker: this.breaker,
        clock: this.clock,
        ...(this.options.retryBaseDelayMs !== undefined
          ? { baseDelayMs: this.options.retryBaseDelayMs }
          : {}),
      });
    } catch (error) {
      this.logger.warn(`Supermemory inactive: ${describeError(error)}`);
    }
    // Inspection (status, doctor) never takes the outbox: what waits there is for the next writer.
    if (this.client && this.writable && !context.inspectionOnly) this.openOutbox(context.hermesHome);
  }

  /**
   * The write queue of this initialize. Writes still queued or running from before (initialized
   * again without a shutdown, or one whose drain gave up) run to their end first, in order: an
   * ingest still in flight cannot then land after a newer one of its session, its turns (taken
   * over by the new outbox) are not sent again once it went through, and the old mirrored memory
   * writes, which are not journaled, still go out. Each of them is bounded by its own deadline.
   */
  private nextQueue(): SerialQueue {
    const earlier = this.queue;
    earlier.close();
    const queue = new SerialQueue({ name: 'supermemory writes', logger: this.logger, clock: this.clock });
    if (earlier.size > 0) {
      this.logger.info(
        `Supermemory: ${earlier.size} write(s) from before this initialize still running; newer writes follow them.`,
      );
      queue.push(async () => {
        await earlier.drain();
      }, 'earlier writes');
    }
    return queue;
  }

  getToolSchemas(): ToolSchema[] {
    return toolSchemas(this.config.enableCustomContainerTags ? this.allowedTags : null);
  }

  override systemPromptBlock(): string {
    if (!this.client || this.closed) return '';
    const lines = [
      '# Supermemory',
      `Active. Container: ${this.primaryTag}.`,
      `Use ${Object.values(TOOL_NAMES).join(', ')} (or supermemory-save, supermemory-search, supermemory-forget, supermemory-profile) for explicit memory operations.`,
    ];
    if (this.config.enableCustomContainerTags) {
      lines.push(
        `Custom containers are enabled. Pass container_tag to any tool to use one of: ${this.allowedTags.join(', ')} (default ${this.primaryTag}).`,
      );
      if (this.config.customContainerInstructions !== '') lines.push(this.config.customContainerInstructions);
    }
    return lines.join('\n');
  }

  /** Starts recall for this turn's message, so `prefetch` finds it ready. */
  override onTurnStart(turnNumber: number, message: string, _info?: TurnStartInfo): void {
    this.turn = Math.max(0, turnNumber);
    this.slot.setTurn(this.turn);
    if (this.options.prefetchMode !== 'per-query') this.scheduleRecall(message);
  }

  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    if (!this.client || this.closed || !this.config.autoRecall || query.trim() === '') return '';
    const key = profileQuery(query);
    const first = !this.prefetched;
    this.prefetched = true;
    let profile = this.slot.take(key);
    if (profile === undefined && this.breaker.state === 'open') {
      // A dead service: nothing to wait for, and no request until the cooldown passed.
      profile = this.slot.take();
    } else if (profile === undefined && (first || this.options.prefetchMode === 'per-query')) {
      // Turn 1 (and every turn in per-query mode): wait for this query, within api_timeout (at
      // most 3 s) and the manager's signal, never longer.
      this.unschedule(key);
      this.startRecall(query);
      profile = await this.slot.join(key, Math.min(this.timeoutMs, PREFETCH_WAIT_MS), options?.signal);
    } else if (profile === undefined) {
      // Never wait after turn 1: serve what the previous turn prepared; this query's recall (if
      // onTurnStart was skipped) runs for the next turn.
      this.scheduleRecall(query);
      profile = this.slot.take();
    }
    if (!profile) {
      this.lastRecall = null;
      return '';
    }
    const block = formatRecallBlock(profile, {
      withProfile: includeProfile(this.turn, this.config.profileFrequency),
      max: this.config.maxRecallResults,
      now: this.clock.now(),
    });
    this.lastRecall = block.count > 0 ? { providerLabel: 'Supermemory', count: block.count } : null;
    return block.text;
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall;
  }

  /** Buffers the cleaned turn: no network. The session is ingested whole at its end. */
  override syncTurn(userContent: string, assistantContent: string, _options?: SyncTurnOptions): void {
    if (this.closed || !this.writable || !this.config.autoCapture) return;
    const user = this.safe(cleanCapturedText(userContent), 'a user message');
    const assistant = this.safe(cleanCapturedText(assistantContent), 'an assistant message');
    if (user === '' && assistant === '') return;
    this.journalDocument(this.sessionId);
    const key =
      this.journal({ sessionId: this.sessionId, user, assistant, containerTag: this.primaryTag }) ??
      `memory-${++this.memoryKeys}`;
    this.buffer.push({ user, assistant, key });
    this.turnStamps.set(key, ++this.stamp);
    // Only an outage is capped: a long healthy session keeps every turn for its session-end ingest.
    const dropped = this.held.add(key, user.length + assistant.length, {
      cap: this.breaker.state === 'open',
    });
    if (dropped.length > 0) this.drop(dropped);
  }

  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    const result = await guardToolCall(async () => {
      const kind = toolKind(toolName);
      if (!kind) return toolError(`Unknown tool '${toolName}' for the supermemory memory provider.`);
      const client = this.client;
      if (!client || this.closed) return toolError('Supermemory is not configured');
      return runTool(kind, args, {
        client,
        config: this.config,
        primaryTag: this.primaryTag,
        allowedTags: this.allowedTags,
        writable: this.writable,
        signal: this.signal(options?.signal),
      });
    });
    // Results quote stored text: nothing in them may open, close or imitate the recall fence.
    return neutralizeToolResult(result);
  }

  /** Mirrors a builtin `add` as an `explicit_memory` document (replace and remove are not mirrored). */
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    _metadata?: MemoryWriteMetadata,
  ): void {
    if (this.closed || !this.writable || action !== 'add' || content.trim() === '') return;
    const text = this.safe(content.trim(), 'a mirrored memory write');
    if (text === '') return;
    const containerTag = this.primaryTag;
    const entityContext = this.config.entityContext;
    this.background('mirror add', (client, signal) =>
      client.addDocument(
        {
          content: text,
          containerTag,
          metadata: hermesMetadata({ target, type: 'explicit_memory' }),
          entityContext,
        },
        signal,
      ),
    );
  }

  /**
   * The whole session in one conversation ingest: the user and assistant messages the host passes
   * (else the buffered turns), skipped when empty or a single short message.
   */
  override async onSessionEnd(messages: readonly ChatMessage[], options?: HookOptions): Promise<void> {
    if (this.closed || !this.writable || this.sessionId === '') return;
    let conversation = conversationOf(messages).flatMap((m) => {
      const content = this.safe(m.content, `a ${m.role} message`);
      return content === '' ? [] : [{ role: m.role, content }];
    });
    const complete = conversation.length > 0;
    if (!complete) conversation = bufferToConversation(this.buffer);
    const buffered = this.buffer;
    const taken = this.takeBuffer();
    if (
      conversation.length === 0 ||
      (conversation.length === 1 &&
        (conversation[0] as ConversationMessage).content.length < MIN_SINGLE_MESSAGE)
    ) {
      this.settle(taken); // not worth an ingest: not replayed either
      return;
    }
    const sessionId = this.sessionId;
    if (complete) this.ingest(sessionId, conversation, { message_count: conversation.length }, taken, true);
    else this.ingestBuffered(sessionId, buffered, { message_count: conversation.length });
    await this.queue.drain(undefined, options?.signal);
  }

  /** Flushes the old session's buffer under its id (`partial` unless it was a reset), in the background. */
  override onSessionSwitch(newSessionId: string, options: SessionSwitchOptions): undefined {
    const previous = this.sessionId;
    if (!this.closed && this.writable && this.buffer.length > 0 && previous !== '') {
      const buffered = this.buffer;
      this.takeBuffer();
      this.ingestBuffered(previous, buffered, {
        message_count: 2 * buffered.length,
        partial: !options.reset,
      });
    }
    this.buffer = [];
    this.turn = 0;
    this.prefetched = false;
    if (newSessionId.trim() !== '') this.sessionId = newSessionId;
    this.scheduled.clear();
    this.slot.newGeneration();
    return undefined;
  }

  override health(): ProviderHealth | null {
    if (this.breaker.state === 'open') {
      return {
        status: 'down',
        reason:
          `Supermemory requests paused after ${this.breaker.failures} consecutive failures; next try in ${Math.ceil(Math.max(0, this.breaker.retryAt - this.clock.now()) / 1000)} s` +
          (this.writesOnDisk > 0 ? `; ${this.writesOnDisk} turn(s) wait on disk.` : '.') +
          this.held.losses.note(),
        since: this.breaker.openedAt,
        consecutiveFailures: this.breaker.failures,
      };
    }
    const health = this.monitor.snapshot();
    return health.status === 'unknown' ? null : health;
  }

  /** One profile call (setup's and doctor's connection test). */
  override async probe(options?: HookOptions): Promise<ProbeResult> {
    if (!this.isAvailable()) return { status: 'failed', message: this.unavailableReason() };
    const client =
      this.client ??
      new SupermemoryClient({
        apiKey: this.config.apiKey,
        baseURL: this.config.baseURL,
        timeoutMs: this.timeoutMs,
      });
    return client.probe(this.primaryTag, options?.signal);
  }

  /** Only the key is asked for (it goes to `.env`); everything else lives in `supermemory.json`. */
  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'api_key',
        description: 'Supermemory API key',
        type: 'text',
        secret: true,
        required: true,
        envVar: 'SUPERMEMORY_API_KEY',
        url: 'https://console.supermemory.ai',
      },
    ];
  }

  /** Merges into `supermemory.json` (atomic, 0600, sorted keys); the key never goes there. */
  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    saveSupermemoryJson(hermesHome, values);
  }

  override configPaths(): readonly string[] {
    return ['memory.supermemory'];
  }

  /** Queued writes and running recall (the bench's and hosts' "background work settled"). */
  override async flush(timeoutMs?: number): Promise<boolean> {
    const deadline = timeoutMs === undefined ? undefined : this.clock.now() + timeoutMs;
    const left = () =>
      deadline === undefined ? this.timeoutMs * 3 : Math.max(0, deadline - this.clock.now());
    const writes = await this.queue.drain(timeoutMs);
    await this.scheduledRun;
    return (await this.slot.idle(left())) && writes;
  }

  /** Ingests what is still buffered (`partial: true`) and waits for writes within the deadline. */
  override async shutdown(options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    // Turns of a failed ingest get one more try while the service answers; else the next start.
    if (this.breaker.state !== 'open') this.resend();
    if (this.writable && this.buffer.length > 0 && this.sessionId !== '') {
      this.logger.warn(
        `Supermemory: ${this.buffer.length} buffered turn(s) were not ingested at session end; ingesting them now (partial).`,
      );
      const buffered = this.buffer;
      this.takeBuffer();
      this.ingestBuffered(this.sessionId, buffered, { message_count: 2 * buffered.length, partial: true });
    }
    this.buffer = [];
    this.closed = true;
    this.queue.close();
    // Writes stop early enough to wind down within the caller's deadline: one still draining when
    // it passes is abandoned by the manager ("shutdown failed"), its recall left running.
    const budget = options?.timeoutMs ?? DEFAULT_SHUTDOWN_MS;
    const drained = await this.queue.drain(writeDrainBudget(budget), options?.signal);
    if (!drained) {
      const dropped = this.queue.abandon();
      this.logger.warn(`Supermemory: ${dropped.length} write(s) not sent before shutdown.`);
    }
    this.scheduled.clear();
    this.lifetime.abort(new Error('Supermemory shut down.'));
    this.slot.close();
    const outbox = this.outbox;
    this.outbox = undefined;
    const onDisk = (await outbox?.close()) ?? 0;
    if (onDisk > 0)
      this.logger.warn(
        `Supermemory: ${onDisk} turn(s) not delivered stay on disk (supermemory/outbox in HERMES_HOME) and are sent at the next start.`,
      );
  }

  /** Resolves when every write so far is journaled on disk (decision 0115); at once without an outbox. */
  async journaled(): Promise<void> {
    await this.outbox?.flushed().catch(() => undefined);
  }

  /** Undelivered turns the cap dropped (the oldest) since the provider was initialized. */
  get heldDropped(): number {
    return this.held.dropped;
  }

  /** Turns journaled and not yet delivered. */
  get writesOnDisk(): number {
    if (!this.outbox) return 0;
    let documents = 0;
    for (const { data } of this.outbox.entries()) if (isDocument(data)) documents += 1;
    return this.outbox.size - documents;
  }

  /** Journal writes queued and not on disk yet (background work besides `pendingWork`'s network writes). */
  get journalPending(): number {
    return this.outbox?.writing ?? 0;
  }

  /** Queued or running background work (tests, the conformance harness, the bench). */
  get pendingWork(): number {
    return this.queue.size + this.scheduled.size + (this.slot.isInFlight() ? 1 : 0);
  }

  /** Resolves when queued writes and running recall have finished. */
  async idle(): Promise<void> {
    await this.queue.drain();
    await this.scheduledRun;
    await this.slot.idle(this.timeoutMs * 3);
  }

  /** The primary container tag in use (after `{identity}` and sanitising). */
  get containerTag(): string {
    return this.primaryTag;
  }

  /** Turns buffered for the session-end ingest. */
  get bufferedTurns(): number {
    return this.buffer.length;
  }

  private get timeoutMs(): number {
    return Math.round(this.config.apiTimeout * 1000);
  }

  private applyTags(identity: string | undefined): void {
    this.primaryTag = resolveContainerTag(this.config.containerTag, identity);
    this.allowedTags = containerWhitelist(this.primaryTag, this.config.customContainers);
  }

  /**
   * Start recall for `message` once the turn yields to the event loop (the host's model call).
   * The SDK builds and sends a request on this thread — about 1 ms of CPU, mostly Stainless'
   * request assembly and undici's fetch — and started at once that work ran inside the turn's
   * `prefetchAll`, whose result it cannot change (it is served next turn).
   */
  private scheduleRecall(message: string): void {
    this.scheduled.add(message);
    this.scheduledRun ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.scheduledRun = null;
      const messages = [...this.scheduled];
      this.scheduled.clear();
      for (const m of messages) this.startRecall(m);
    });
  }

  /** Drop a scheduled start that `prefetch` is about to make itself (turn 1, per-query). */
  private unschedule(key: string): void {
    for (const m of this.scheduled) if (profileQuery(m) === key) this.scheduled.delete(m);
  }

  private startRecall(message: string): void {
    const client = this.client;
    if (!client || this.closed || !this.config.autoRecall || isTrivialPrompt(message)) return;
    if (this.breaker.state === 'open') return;
    const q = profileQuery(message);
    if (q === '') return;
    const containerTag = this.primaryTag;
    this.slot.start(q, (signal) => client.profile({ containerTag, q }, this.signal(signal)), {
      timeoutMs: this.timeoutMs * 2,
    });
  }

  /**
   * Queue one conversation ingest; the journaled turns it holds (`taken`) are crossed off once the
   * service accepted it. A failed ingest leaves them on disk: sent again in this run (`resend`) or
   * by the next start. `complete`: the host's whole transcript (session end), not buffered turns.
   */
  private ingest(
    sessionId: string,
    messages: ConversationMessage[],
    extra: Record<string, number | boolean>,
    taken: readonly string[] = [],
    complete = false,
  ): void {
    const prepared: PreparedIngest = {
      body: this.ingestBody(sessionId, messages, extra),
      stamp: ++this.stamp,
      complete,
    };
    this.sendIngest(sessionId, taken, () => prepared);
  }

  private ingestBody(
    sessionId: string,
    messages: ConversationMessage[],
    extra: Record<string, number | boolean>,
    containerTag = this.primaryTag,
  ): IngestBody {
    return {
      conversationId: sessionId,
      messages,
      containerTags: [containerTag],
      metadata: hermesMetadata({ type: 'full_session', session_id: sessionId, ...extra }),
    };
  }

  /**
   * The ingest on the write queue, its body built when its turn comes (`prepare`; null: the
   * service already holds all of it); `ids` are crossed off the outbox when it went through. A
   * failed one leaves them there, sent again (`resend`) once an ingest goes through or the breaker
   * closes.
   */
  private sendIngest(sessionId: string, ids: readonly string[], prepare: () => PreparedIngest | null): void {
    // This initialize's: an ingest from before a re-initialize leaves the new one's marks alone.
    const inFlight = this.inFlight;
    for (const id of ids) inFlight.add(id);
    let sent: PreparedIngest | null = null;
    const queued = this.background(
      'session ingest',
      async (client, signal) => {
        sent = prepare();
        if (sent) await client.ingestConversation(sent.body, signal);
      },
      (ok) => {
        for (const id of ids) inFlight.delete(id);
        if (!ok) {
          if (ids.length > 0) this.undelivered = true;
          return;
        }
        if (sent) this.deliveredIngest(sessionId, sent, ids);
        else this.settle(ids); // a newer ingest of the session holds them
        this.held.delivered();
        this.resend();
      },
    );
    if (!queued) for (const id of ids) inFlight.delete(id);
  }

  /**
   * `ingest` is the session's document now. Older turns of the session still waiting (a failed
   * ingest's) that it holds leave the outbox with its own; if it lacks some, its own stay too, so
   * the re-send that merges them — and, if the process dies first, the next start — sends both.
   */
  private deliveredIngest(sessionId: string, ingest: PreparedIngest, ids: readonly string[]): void {
    if (!this.ingests.delivered(sessionId, { ...ingest, messages: ingest.body.messages })) {
      this.settle(ids);
      return;
    }
    const own = new Set(ids);
    const earlier = this.waiting().filter(
      ({ id, data }) =>
        data.sessionId === sessionId && !own.has(id) && (this.turnStamps.get(id) ?? 0) <= ingest.stamp,
    );
    // The session's journaled document: this ingest was built on it (or is the whole transcript).
    this.settle(earlier.filter(({ data }) => isDocument(data)).map(({ id }) => id));
    const older = earlier.filter(({ data }) => !isDocument(data));
    const lacking = new Set(
      missingFrom(
        { ...ingest, messages: ingest.body.messages },
        older.map(({ id, data }) => ({ ...data, id })),
      ).map(({ id }) => id),
    );
    this.settle(older.filter(({ id }) => !lacking.has(id)).map(({ id }) => id));
    if (lacking.size === 0) this.settle(ids);
    else this.undelivered = true;
  }

  /** Outbox turns in no queued or running ingest and not buffered for the current session. */
  private waiting(): OutboxEntry<StoredWrite>[] {
    if (!this.outbox) return [];
    const buffered = new Set(this.buffer.map((turn) => turn.key));
    return this.outbox.entries().filter(({ id }) => !this.inFlight.has(id) && !buffered.has(id));
  }

  /**
   * The service answers again: ingest, per session and in order, the outbox turns an earlier ingest
   * of this process failed to deliver (not those buffered for the current session, nor those in
   * an ingest already queued). An upsert by session id, as at the next start, so never twice.
   */
  private resend(): void {
    if (!this.undelivered || !this.outbox || this.closed) return;
    this.undelivered = false;
    this.ingestEntries(this.waiting());
  }

  /**
   * One partial conversation ingest per session of `entries` (oldest first), under the session's
   * id, built when it goes out (`rebuild`): merged with the newest ingest of the session that went
   * through, so it never replaces newer content with older.
   */
  private ingestEntries(entries: readonly OutboxEntry<StoredWrite>[]): void {
    // Per session and container: a turn goes to the container it was written for.
    const turns = new Map<string, Array<StoredWrite & { id: string }>>();
    for (const { id, data } of entries) {
      if (isDocument(data)) continue; // a merge base, not a turn
      const key = JSON.stringify([data.containerTag ?? this.primaryTag, data.sessionId]);
      const group = turns.get(key) ?? [];
      group.push({ ...data, id });
      turns.set(key, group);
    }
    for (const group of turns.values()) {
      const { sessionId, containerTag = this.primaryTag } = group[0]!;
      this.sendIngest(
        sessionId,
        group.map(({ id }) => id),
        // Only turns still waiting when it goes out: an ingest queued before a re-initialize may
        // have delivered (and crossed off) some of those the new outbox took over.
        () =>
          this.rebuild(
            sessionId,
            group.filter(({ id }) => this.outbox?.has(id) ?? true),
            containerTag,
          ),
      );
    }
  }

  /**
   * A re-sent session's ingest: its turns older than the newest delivered ingest of the session
   * that it lacks, then that ingest's messages, then its newer turns. Null when that adds nothing.
   */
  private rebuild(
    sessionId: string,
    group: ReadonlyArray<StoredWrite & { id: string }>,
    containerTag: string,
    /** Metadata when nothing is merged (a buffered ingest's `message_count`, `partial`). */
    extra: Record<string, number | boolean> = { partial: true },
  ): PreparedIngest | null {
    const newest = this.ingests.get(sessionId);
    const stampOf = (id: string) => this.turnStamps.get(id) ?? 0;
    let messages = turnsToConversation(group);
    let metadata: Record<string, number | boolean> = { message_count: messages.length, ...extra };
    if (newest) {
      const older = group.filter(({ id }) => stampOf(id) <= newest.stamp);
      const newer = group.filter(({ id }) => stampOf(id) > newest.stamp);
      const lacking = missingFrom(newest, older);
      if (lacking.length === 0 && newer.length === 0) return null;
      messages = [...turnsToConversation(lacking), ...newest.messages, ...turnsToConversation(newer)];
      metadata = { ...metadata, message_count: messages.length, partial: true };
    }
    if (messages.length === 0) return null;
    return {
      body: this.ingestBody(sessionId, messages, metadata, containerTag),
      // As new as its newest part: a turn stamped no later and not in it is older, a later one newer.
      stamp: Math.max(newest?.stamp ?? 0, ...group.map(({ id }) => stampOf(id))),
      complete: newest?.complete ?? false,
    };
  }

  /**
   * An ingest of buffered turns alone (session switch, shutdown, a session end without the host's
   * messages), built when it goes out like a re-sent one: after the newest ingest of the session
   * the service took from this process (its messages, then these turns), so the document never
   * loses the turns that ingest held (decision 0933).
   */
  private ingestBuffered(
    sessionId: string,
    turns: readonly BufferedTurn[],
    extra: Record<string, number | boolean>,
  ): void {
    const group = turns.map(({ user, assistant, key }) => ({ sessionId, user, assistant, id: key }));
    const containerTag = this.primaryTag;
    this.sendIngest(
      sessionId,
      group.map(({ id }) => id),
      () => this.rebuild(sessionId, group, containerTag, extra),
    );
  }

  /** Journal `write` (in the background: the caller never waits on the disk); its id, if journaled. */
  private journal(write: StoredWrite): string | undefined {
    if (!this.outbox) return undefined;
    try {
      return this.outbox.add([write])[0]!.id;
    } catch {
      return undefined; // closed: memory only, as without an outbox
    }
  }

  /** Empty the buffer; the keys (outbox ids) of its turns. */
  private takeBuffer(): string[] {
    const keys = this.buffer.map((turn) => turn.key);
    this.buffer = [];
    return keys;
  }

  /** Delivered or not worth sending: no longer held, crossed off the outbox. */
  private settle(keys: readonly string[]): void {
    this.held.release(keys);
    this.outbox?.ack(keys);
    for (const key of keys) this.turnStamps.delete(key);
  }

  /** The cap dropped these (the oldest): out of the buffer, crossed off the outbox (not replayed). */
  private drop(keys: readonly string[]): void {
    this.outbox?.ack(keys);
    for (const key of keys) this.turnStamps.delete(key);
    const gone = new Set(keys);
    if (this.buffer.some((turn) => gone.has(turn.key)))
      this.buffer = this.buffer.filter((turn) => !gone.has(turn.key));
  }

  private newHeld(): HeldTurns {
    return new HeldTurns(this.options.heldLimits ?? DEFAULT_HELD_LIMITS, () => this.logger);
  }

  /**
   * Take this process's outbox and queue what earlier runs left undelivered: per session, its
   * turns as one partial conversation ingest (an upsert by the session's id). Initialized again,
   * the old outbox need not be awaited: core's `Outbox.open` takes over its entries while its
   * close still waits for queued writes (decision 0115), so they are sent in this run.
   */
  private openOutbox(hermesHome: string): void {
    void this.outbox?.close();
    this.outbox = undefined;
    try {
      this.outbox = openSupermemoryOutbox(hermesHome, this.logger);
    } catch (error) {
      this.logger.warn(
        `Supermemory: the outbox could not be opened (${describeError(error)}); unsent writes are kept in memory only.`,
      );
      return;
    }
    const entries = this.outbox.entries();
    if (entries.length === 0) return;
    // Older than anything this run captures or ingests.
    for (const { id } of entries) this.turnStamps.set(id, ++this.stamp);
    const adopted = entries.filter(({ data }) => !isDocument(data));
    // Adopted turns count against this process's cap: beyond it the oldest are dropped, not sent.
    const dropped = new Set<string>();
    for (const { id, data } of adopted)
      for (const key of this.held.add(id, data.user.length + data.assistant.length)) dropped.add(key);
    if (dropped.size > 0) this.drop([...dropped]);
    const kept = adopted.filter(({ id }) => !dropped.has(id));
    this.adoptDocuments(
      entries.filter(({ data }) => isDocument(data)),
      kept,
    );
    this.ingestEntries(kept);
    this.logger.info(
      `Supermemory: ${adopted.length} turn(s) an earlier run could not deliver are on disk; they are sent once Supermemory answers.`,
    );
  }

  /**
   * Session documents an earlier run journaled (0933): each is what its session's conversation
   * document holds, so the turns of the session replayed now are merged onto it. One whose session
   * has no turn left to send is crossed off: the service holds it already.
   */
  private adoptDocuments(
    documents: readonly OutboxEntry<StoredWrite>[],
    turns: readonly OutboxEntry<StoredWrite>[],
  ): void {
    const pending = new Set(turns.map(({ data }) => data.sessionId));
    const done: string[] = [];
    for (const { id, data } of documents) {
      if (!pending.has(data.sessionId)) {
        done.push(id);
        continue;
      }
      const stamp = this.turnStamps.get(id) ?? 0;
      this.ingests.delivered(data.sessionId, {
        stamp,
        messages: data.document ?? [],
        complete: data.complete === true,
      });
      this.documents.set(data.sessionId, stamp);
    }
    this.settle(done);
  }

  /**
   * The session goes on after an ingest the service took: journal what its document holds now,
   * once per ingest, so that if this run ends before the next ingest of the session went through,
   * the next start merges the turns left on disk onto it rather than replacing it (0933).
   */
  private journalDocument(sessionId: string): void {
    const newest = this.ingests.get(sessionId);
    if (!newest || this.documents.get(sessionId) === newest.stamp) return;
    const id = this.journal({
      sessionId,
      user: '',
      assistant: '',
      document: newest.messages,
      complete: newest.complete,
    });
    if (id === undefined) return;
    this.documents.delete(sessionId);
    this.documents.set(sessionId, newest.stamp);
    this.turnStamps.set(id, newest.stamp);
    for (const oldest of this.documents.keys()) {
      if (this.documents.size <= REMEMBERED_SESSIONS) break;
      this.documents.delete(oldest);
    }
  }

  /** `text` with fence markup escaped, or '' (logged) when the write scanner blocks it. */
  private safe(text: string, what: string): string {
    if (text === '') return '';
    const scan = scanWrite(text);
    if (!scan.ok) {
      this.logger.warn(`Supermemory did not store ${what}: ${scan.message}`);
      return '';
    }
    return neutralizeMemoryText(text);
  }

  private newBreaker(): CircuitBreaker {
    const cooldownMs = this.options.breakerCooldownMs ?? 120_000;
    return new CircuitBreaker({
      threshold: this.options.breakerThreshold ?? 5,
      cooldownMs,
      isFailure: isBackendFailure,
      name: 'Supermemory',
      clock: this.clock,
      onStateChange: (state) => {
        if (state === 'open')
          this.logger.warn(
            `Supermemory: ${this.breaker.failures} consecutive requests failed; pausing requests for ${Math.round(cooldownMs / 1000)} s.`,
          );
        else if (state === 'closed') {
          this.logger.info('Supermemory: the service answers again; requests resumed.');
          this.resend();
        }
      },
    });
  }

  private signal(extra?: AbortSignal): AbortSignal {
    return extra ? AbortSignal.any([extra, this.lifetime.signal]) : this.lifetime.signal;
  }

  /** A write on the ordered queue, bounded by twice the ingest timeout; failures are logged. */
  private background(
    label: string,
    work: (client: SupermemoryClient, signal: AbortSignal) => Promise<unknown>,
    /** After the work: whether it went through. */
    done?: (ok: boolean) => void,
  ): boolean {
    const client = this.client;
    if (!client) return false;
    return this.queue.push(async () => {
      try {
        await withDeadline((signal) => work(client, this.signal(signal)), {
          timeoutMs: (this.timeoutMs + 3000) * 3,
          clock: this.clock,
          label: `supermemory ${label}`,
        });
      } catch (error) {
        this.logger.warn(`Supermemory ${label} failed: ${describeError(error)}`);
        done?.(false);
        return;
      }
      done?.(true);
    }, label);
  }
}

/** The profile query for a message: its first 200 characters. */
export function profileQuery(message: string): string {
  return message.trim().slice(0, PROFILE_QUERY_MAX);
}

/** User and assistant messages with non-empty cleaned text (tool calls and system messages dropped). */
function conversationOf(messages: readonly ChatMessage[] | undefined): ConversationMessage[] {
  const out: ConversationMessage[] = [];
  for (const message of messages ?? []) {
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const content = cleanCapturedText(textOf(message.content));
    if (content !== '') out.push({ role: message.role, content });
  }
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'object' && part !== null && typeof part.text === 'string' ? part.text : '',
    )
    .filter((t) => t !== '')
    .join('\n');
}

function bufferToConversation(buffer: readonly BufferedTurn[]): ConversationMessage[] {
  return turnsToConversation(buffer);
}
