/**
 * Hindsight as the agent's external memory: banks of facts the service extracts, consolidates
 * into observations and recalls by several strategies, reached through the official SDK. See
 * decisions 0950 (transport, documents, read-after-write) and 0951 (the embedded daemon).
 *
 * Hot path: `syncTurn` only appends to the session log and, every N turns, queues a retain on the
 * single writer (no I/O on the caller's stack). Recall is prepared in the background after each
 * turn (`queuePrefetch`, on core's `PrefetchSlot`), after waiting — bounded — for the writer to
 * drain and the server to finish its async retains, so the next turn sees the last one; the block
 * is formatted when the answer arrives. `prefetch` serves that string without waiting, except on a
 * session's first turn (bounded by 2.5 s and the manager's signal) and in `recall_sync` mode (a
 * live recall for the current message, bounded the same way). A recall `prefetch` itself asks for
 * starts once the turn yields to the event loop: the SDK builds and sends a request on this thread
 * (about 1 ms of CPU), which must not sit inside the turn's `prefetchAll`. A circuit breaker
 * (decision 0953) stops every call to a service that keeps failing; turns are held meanwhile.
 */
import { randomUUID } from 'node:crypto';
import {
  type CircuitBreaker,
  CircuitOpenError,
  type Clock,
  type ConfigField,
  canWrite,
  createProviderBreaker,
  describeError,
  type Env,
  guardToolCall,
  HealthMonitor,
  type HookOptions,
  isBackendFailure,
  type InitContext,
  type Logger,
  MemoryProvider,
  neutralizeMemoryText,
  neutralizeToolResult,
  type Outbox,
  type OutboxEntry,
  type PrefetchOptions,
  PrefetchSlot,
  type ProbeResult,
  type ProviderHealth,
  pollUntil,
  type RecallStatus,
  readJsonConfig,
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
import { type BankPlaceholders, resolveBankId } from './banks';
import { HindsightApi, type RetainItem } from './client';
import {
  type HindsightConfig,
  type HindsightProviderSettings,
  profileConfigPath,
  readHindsightConfigSource,
  resolveHindsightConfig,
  saveHindsightConfig,
} from './config';
import { DEFAULT_HELD_LIMITS, type HeldLimits, HeldTurns, undelivered } from './held';
import { formatRecallBlock, type Recalled, recalledFromHits, recalledFromReflect } from './recall';
import {
  eventTimestamp,
  identityOf,
  lineageTags,
  mergeTags,
  newSessionLog,
  retainMetadata,
  type SessionLog,
  sessionContent,
  type TurnIdentity,
  turnJson,
} from './retain';
import { openHindsightOutbox, type StoredTurn } from './outbox';
import { recallParams, runTool, TOOL_NAMES, toolKind, toolSchemas } from './tools';
import { exclusive } from './writer';

export interface HindsightProviderOptions extends HindsightProviderSettings {
  /** Circuit breaker: consecutive failed requests that open it (default 5). */
  breakerThreshold?: number;
  /** How long it stays open before one trial request (default 120 000 ms). */
  breakerCooldownMs?: number;
  /** The cap on turns held while the breaker is open (default 1000 turns, 2 000 000 characters). */
  heldLimits?: HeldLimits;
  /**
   * The agent's status line (the reference's `status_callback`): receives "👁️ Hindsight — saving to
   * memory…" when a retain is dispatched. Failures are ignored.
   */
  onStatus?: (line: string) => void;
  /** Tests pass a `ManualClock`: deadlines, polling and backoff never read the real clock. */
  clock?: Clock;
}

/** What the factory hands the constructor besides the settings. */
export interface HindsightProviderContext {
  hermesHome?: string;
  env?: Env;
  providerConfig?: Readonly<Record<string, unknown>>;
  logger?: Logger;
}

export const GLYPH = '👁️';
export const SAVING_STATUS = `${GLYPH} Hindsight — saving to memory…`;
/** The longest a prefetch waits for recall: a session's first turn, and every turn in recall_sync mode. */
const PREFETCH_WAIT_MS = 2500;
/** Shutdown: the writer gets at most 10 s, running recall 5 s (the reference's joins). */
const WRITER_DRAIN_MS = 10_000;
const PREFETCH_JOIN_MS = 5000;
/** Status polls of async retains, as the reference spaces them (a server round trip each). */
const OPERATION_POLL_MS = 500;
const FIRST_TURN_KEY = 'first-turn';

/** A recall as the prompt gets it: the formatted block ('' for nothing) and how many memories it holds. */
interface Served {
  block: string;
  count: number;
}

interface PendingOperation {
  bankId: string;
  id: string;
}

export class HindsightProvider extends MemoryProvider {
  readonly name = 'hindsight';

  private readonly options: HindsightProviderOptions;
  private readonly clock: Clock;
  private config: HindsightConfig;
  private api: HindsightApi | null = null;
  private logger: Logger = silentLogger;
  private bank = 'hermes';
  private identity: TurnIdentity = identityOf({});
  private placeholders: BankPlaceholders = {};
  private writable = false;
  private closed = false;
  private log: SessionLog;
  /** The session's first prefetch may wait (bounded) for recall; later ones never wait. */
  private firstPrefetch = true;
  private queuedKey: string | undefined;
  /** Whether the host calls `queuePrefetch` itself (then `prefetch` starts recall only as a fallback). */
  private hostQueues = false;
  /** The query whose recall starts once the turn yields (`scheduleRecall`), and that start. */
  private scheduledQuery: string | undefined;
  private scheduledRun: Promise<void> | null = null;
  private writer = new SerialQueue({ name: 'hindsight writer' });
  private slot = new PrefetchSlot<Served>();
  /** Async retains the server accepted and may not have made recall-visible yet. */
  private pendingOps: PendingOperation[] = [];
  /** Banks whose mission was sent this process (only when a mission is configured). */
  private missionSent = new Set<string>();
  private lifetime = new AbortController();
  private readonly monitor = new HealthMonitor();
  private lastRecall: RecallStatus | null = null;
  /** Stops calls to a service that keeps failing (decision 0953); its close sends what was held. */
  private breaker: CircuitBreaker;
  /** Earlier sessions' undelivered turns and the cap on what an outage holds. */
  private held: HeldTurns;
  /** Every turn until the server holds it, on disk (decision 0115): a restart delivers what is left. */
  private outbox: Outbox<StoredTurn> | undefined;

  constructor(options: HindsightProviderOptions = {}, context: HindsightProviderContext = {}) {
    super();
    this.options = options;
    this.clock = options.clock ?? systemClock;
    if (context.logger) this.logger = context.logger;
    // From the factory context, so isAvailable() and the tool list are right before initialize.
    this.config = this.resolve(context.hermesHome, context.env ?? process.env, context.providerConfig);
    this.log = newSessionLog('', '', this.clock.now());
    this.breaker = this.newBreaker();
    this.held = this.newHeld();
  }

  /**
   * No network. cloud: a key or a URL is configured; local_external: always (the server may run
   * without a key); local_embedded: never — the embedded daemon is not part of this package
   * (decision 0951).
   */
  isAvailable(): boolean {
    if (this.config.mode === 'local_embedded') return false;
    if (this.config.mode === 'local_external') return true;
    return this.config.apiKey !== '' || this.config.apiURLSet;
  }

  override unavailableReason(): string {
    if (this.isAvailable()) return '';
    if (this.config.mode === 'local_embedded')
      return "Hindsight local_embedded mode needs the Python embedded daemon, which this package does not run: start a Hindsight server and use mode 'local_external' (api_url), or 'cloud' (decision 0951).";
    return 'Hindsight needs an API key or an API URL: set HINDSIGHT_API_KEY (in <home>/.env) or api_url in hindsight/config.json.';
  }

  /** Builds the client; no request is made, so a slow service never holds the agent's start. */
  initialize(sessionId: string, context: InitContext): void {
    this.logger = context.logger ?? this.logger;
    this.config = this.resolve(context.hermesHome, context.env ?? process.env, context.providerConfig);
    for (const warning of this.config.warnings) this.logger.warn(warning);
    this.identity = identityOf(context);
    this.placeholders = {
      profile: this.identity.agentIdentity,
      workspace: context.agentWorkspace ?? '',
      platform: this.identity.platform,
      user: this.identity.userId,
      session: sessionId,
    };
    const resolved = resolveBankId(this.config.bankIdTemplate, this.config.bankId, this.placeholders);
    if (resolved.warning) this.logger.warn(resolved.warning);
    this.bank = resolved.bankId;
    this.writable = canWrite(context.agentContext);
    this.closed = false;
    this.firstPrefetch = true;
    this.queuedKey = undefined;
    this.hostQueues = false;
    this.scheduledQuery = undefined;
    this.pendingOps = [];
    this.lastRecall = null;
    this.log = newSessionLog(sessionId.trim(), (context.parentSessionId ?? '').trim(), this.clock.now());
    this.lifetime = new AbortController();
    this.writer = new SerialQueue({ name: 'hindsight writer', logger: this.logger, clock: this.clock });
    this.slot = new PrefetchSlot<Served>({
      logger: this.logger,
      clock: this.clock,
      // A result older than the turn after it was prepared for is never served.
      maxAgeTurns: 1,
      hungAfterMs: this.drainMs + this.timeoutMs * 2,
    });
    this.breaker = this.newBreaker();
    this.held = this.newHeld();
    this.api = null;
    if (!this.isAvailable()) {
      this.logger.warn(`Hindsight inactive: ${this.unavailableReason()}`);
      return;
    }
    this.api = this.newApi();
    // Inspection (status, doctor) never takes the outbox: what waits there is for the next writer.
    if (this.writable && !context.inspectionOnly && this.config.autoRetain)
      this.openOutbox(context.hermesHome);
    this.logger.info(
      `Hindsight initialized: mode=${this.config.mode}, api_url=${this.config.apiURL}, bank=${this.bank}, budget=${this.config.recallBudget}, memory_mode=${this.config.memoryMode}`,
    );
  }

  getToolSchemas(): ToolSchema[] {
    return toolSchemas(this.config);
  }

  override systemPromptBlock(): string {
    if (!this.api || this.closed) return '';
    const { memoryMode, recallBudget } = this.config;
    const tools = `Use ${TOOL_NAMES.recall} to search, ${TOOL_NAMES.reflect} for synthesis, ${TOOL_NAMES.retain} to store facts.`;
    const injected = 'Relevant memories are automatically injected into context.';
    const head = `# Hindsight Memory\nActive${memoryMode === 'hybrid' ? '' : ` (${memoryMode} mode)`}. Bank: ${this.bank}, budget: ${recallBudget}.\n`;
    if (memoryMode === 'context') return head + injected;
    if (memoryMode === 'tools') return head + tools;
    return `${head}${injected} ${tools}`;
  }

  override onTurnStart(turnNumber: number, _message: string, _info?: TurnStartInfo): void {
    this.slot.setTurn(Math.max(0, turnNumber));
  }

  /**
   * Prepare the next turn's recall in the background: first wait (bounded by
   * `prefetch_retain_drain_timeout`) until this turn's retain is recall-visible, then recall.
   */
  override queuePrefetch(query: string, _options?: PrefetchOptions): void {
    this.hostQueues = true;
    this.startRecall(query);
  }

  private startRecall(query: string): void {
    if (!this.api || this.recallDisabled() || this.config.recallSync || this.circuitOpen) return;
    const q = this.truncate(query);
    if (q.trim() === '') return;
    const started = this.slot.start(
      q,
      async (signal) => {
        const bounded = this.signal(signal);
        if (this.config.prefetchWaitsForRetain) await this.waitForRetains(bounded);
        return this.served(await this.recallFor(q, bounded));
      },
      { timeoutMs: this.drainMs + this.timeoutMs * 2 },
    );
    if (started !== 'busy') this.queuedKey = q;
  }

  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    if (!this.api || this.recallDisabled()) {
      this.lastRecall = null;
      return '';
    }
    let recalled: Served | undefined;
    // While the breaker is open nothing starts: what is ready is served, as for an empty prompt.
    const open = this.circuitOpen;
    if (this.config.recallSync) {
      // The reference's synchronous mode: this message's recall, inside the turn's budget.
      const q = this.truncate(query);
      recalled =
        q.trim() === '' || open
          ? undefined
          : await withDeadline(async (signal) => this.served(await this.recallFor(q, this.signal(signal))), {
              timeoutMs: Math.min(this.timeoutMs, PREFETCH_WAIT_MS),
              clock: this.clock,
              label: 'hindsight recall',
              ...(options?.signal ? { signal: options.signal } : {}),
            }).catch((error: unknown) => {
              this.logger.debug(`Hindsight recall failed: ${describeError(error)}`);
              return undefined;
            });
    } else {
      const first = this.firstPrefetch;
      recalled = this.slot.take();
      if (recalled === undefined && first && !open)
        recalled = await this.firstTurnRecall(query, options?.signal);
      // A host that never calls queuePrefetch still gets recall, one turn behind, never waiting
      // (not after turn 1, which recalled this very query: a host that queues has not yet had the
      // chance to); one that does gets this query recalled only when nothing is ready or running.
      if (!open && (recalled === undefined ? !this.slot.isInFlight() : !this.hostQueues && !first))
        this.scheduleRecall(query);
    }
    this.firstPrefetch = false;
    // Formatted and neutralised when it arrived: serving is a field read.
    const block = recalled?.block ?? '';
    this.lastRecall =
      block === '' ? null : { providerLabel: 'Hindsight', count: recalled?.count ?? 0, glyph: GLYPH };
    return block;
  }

  /** What the last prefetch injected (null after an empty turn, or with `recall_indicator` off). */
  override recallStatus(): RecallStatus | null {
    return this.config.recallIndicator ? this.lastRecall : null;
  }

  /**
   * Appends the turn to the session log (no I/O); every `retain_every_n_turns` turns, queues one
   * retain on the writer and shows the saving status.
   */
  override syncTurn(userContent: string, assistantContent: string, options?: SyncTurnOptions): void {
    if (this.closed || !this.api || !this.writable || !this.config.autoRetain) return;
    const sessionId = options?.sessionId?.trim();
    if (sessionId && sessionId !== this.log.sessionId) this.log.sessionId = sessionId;
    const user = this.safe(userContent, 'a user message');
    const assistant = this.safe(assistantContent, 'an assistant message');
    if (user === '' && assistant === '') return;
    this.log.turns.push(turnJson(user, assistant, this.config, this.clock.now()));
    this.journal(this.log);
    if (this.circuitOpen) {
      // Held, not sent and not lost: the breaker's close sends it, first and in order (capped).
      this.held.cap(this.log);
      return;
    }
    if (this.log.turns.length % this.config.retainEveryNTurns !== 0) return;
    this.dispatchHeld();
    this.dispatch(this.log);
    this.emitSaving();
  }

  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    const result = await guardToolCall(async () => {
      const kind = toolKind(toolName);
      if (!kind || this.config.memoryMode === 'context') return toolError(`Unknown tool: ${toolName}`);
      const api = this.api;
      if (!api || this.closed) return toolError('Hindsight is not configured.');
      if (this.circuitOpen) return toolError(this.breaker.unavailableMessage());
      return runTool(kind, args, {
        api,
        config: this.config,
        bankId: this.bank,
        writable: this.writable,
        eventTimestamp: () => eventTimestamp(this.clock.now()),
        metadata: () =>
          retainMetadata(
            {
              config: this.config,
              identity: this.identity,
              sessionId: this.log.sessionId,
              messageCount: 1,
              turnIndex: this.log.turns.length,
            },
            this.clock.now(),
          ),
        signal: this.signal(options?.signal),
      });
    });
    // Results quote stored text: nothing in them may open, close or imitate the recall fence.
    return neutralizeToolResult(result);
  }

  /**
   * Flushes turns not yet sent to the old session's document (through the same writer, behind its
   * queued retains), drops recall prepared for the old session, and starts a new log: new document
   * id, counters at zero, the parent recorded for lineage tags.
   */
  override onSessionSwitch(newSessionId: string, options: SessionSwitchOptions = {}): undefined {
    const id = newSessionId.trim();
    if (id === '') return undefined;
    const old = this.log;
    if (!this.closed && this.api && this.writable && undelivered(old) > 0) {
      // While the breaker is open the old session's turns wait for its close, in its own document.
      if (this.circuitOpen) {
        old.dispatched = old.turns.length;
        this.held.hold(old);
      } else this.dispatch(old);
    }
    this.slot.newGeneration();
    this.queuedKey = undefined;
    this.scheduledQuery = undefined;
    this.firstPrefetch = true;
    this.lastRecall = null;
    const parent = options.parentSessionId?.trim() || old.parentSessionId;
    this.log = newSessionLog(id, parent, this.clock.now());
    return undefined;
  }

  override health(): ProviderHealth | null {
    const health = this.monitor.snapshot();
    if (this.api && this.circuitOpen) {
      const held = this.held.count(this.log);
      return {
        ...health,
        status: 'down',
        reason:
          `circuit breaker open: ${this.breaker.unavailableMessage()}` +
          (held > 0 ? ` ${held} turn(s) held for delivery.` : '') +
          this.held.losses.note() +
          (this.outbox && this.outbox.size > 0 ? ` ${this.outbox.size} turn(s) wait on disk.` : ''),
        since: this.breaker.openedAt,
        consecutiveFailures: this.breaker.failures,
      };
    }
    return health.status === 'unknown' ? null : health;
  }

  /** The version and the bank's memory count (setup's and doctor's connection test; never refused by the breaker). */
  override async probe(options?: HookOptions): Promise<ProbeResult> {
    if (!this.isAvailable()) return { status: 'failed', message: this.unavailableReason() };
    return (this.api ?? this.newApi(0)).probe(this.bank, options?.signal);
  }

  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'mode',
        description: 'How Hindsight is reached',
        choices: ['cloud', 'local_external'],
        default: 'cloud',
      },
      {
        key: 'api_key',
        description: 'Hindsight API key (cloud; optional for a self-hosted server)',
        secret: true,
        envVar: 'HINDSIGHT_API_KEY',
        url: 'https://ui.hindsight.vectorize.io',
        when: { mode: 'cloud' },
      },
      {
        key: 'api_url',
        description: 'Hindsight API URL',
        defaultFrom: {
          field: 'mode',
          map: { cloud: 'https://api.hindsight.vectorize.io', local_external: 'http://localhost:8888' },
        },
      },
      { key: 'bank_id', description: 'Memory bank name', default: 'hermes' },
      {
        key: 'bank_id_template',
        description:
          'Optional template for the bank id. Placeholders: {profile}, {workspace}, {platform}, {user}, {session}. Example: hermes-{profile}',
        default: '',
      },
      {
        key: 'recall_budget',
        description: 'Recall thoroughness',
        choices: ['low', 'mid', 'high'],
        default: 'mid',
      },
      {
        key: 'memory_mode',
        description: 'Memory integration mode',
        choices: ['hybrid', 'context', 'tools'],
        default: 'hybrid',
      },
      { key: 'timeout', description: 'API request timeout in seconds', type: 'integer', default: 120 },
    ];
  }

  /** Merges into `hindsight/config.json` (atomic, 0600, sorted keys); the key never goes there. */
  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    saveHindsightConfig(hermesHome, values);
  }

  /** The non-secret schema keys `hindsight/config.json` holds, so setup keeps them. */
  override savedConfig(hermesHome: string): Record<string, unknown> {
    const read = readJsonConfig(profileConfigPath(hermesHome));
    const out: Record<string, unknown> = {};
    for (const field of this.getConfigSchema()) {
      if (!field.secret && read.data[field.key] !== undefined) out[field.key] = read.data[field.key];
    }
    return out;
  }

  override configPaths(): readonly string[] {
    return ['memory.hindsight'];
  }

  /** Queued retains, then a recall that is scheduled or running (hosts' "background work settled"). */
  override async flush(timeoutMs?: number): Promise<boolean> {
    const deadline = timeoutMs === undefined ? undefined : this.clock.now() + timeoutMs;
    const left = () =>
      deadline === undefined ? this.drainMs + this.timeoutMs * 3 : Math.max(0, deadline - this.clock.now());
    const written = await this.writer.drain(timeoutMs);
    await this.scheduledRun;
    return (await this.slot.idle(left())) && written;
  }

  /**
   * Later `syncTurn` calls are dropped; turns not yet sent are retained; the writer gets at most
   * 10 s (and the manager's deadline) to drain, what is left is abandoned with a warning; running
   * recall gets 5 s; then every request still open is aborted and the client dropped.
   */
  override async shutdown(options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    if (this.api && this.writable) {
      const held = this.held.count(this.log);
      if (!this.circuitOpen) this.resumeDelivery();
      else if (held > 0 && !this.outbox)
        this.logger.warn(
          `Hindsight: ${this.breaker.unavailableMessage()} ${held} held turn(s) were not retained.`,
        );
    }
    this.closed = true;
    this.scheduledQuery = undefined;
    this.writer.close();
    // The writer stops early enough to wind down within the caller's deadline: one still draining
    // when it passes is abandoned by the manager ("shutdown failed"), its prefetch left running.
    const budget = options?.timeoutMs ?? WRITER_DRAIN_MS;
    const started = this.clock.now();
    const drainFor = Math.min(WRITER_DRAIN_MS, writeDrainBudget(budget));
    const drained = await this.writer.drain(drainFor, options?.signal);
    if (!drained) {
      const dropped = this.writer.abandon();
      this.logger.warn(
        `Hindsight writer did not finish within its shutdown deadline; abandoning ${dropped.length} pending retain(s).`,
      );
    }
    const left = Math.max(0, budget - (this.clock.now() - started));
    // Running recall may finish within 5 s; the manager's signal ends that wait by aborting it.
    const stop = () => this.lifetime.abort(new Error('Hindsight shut down.'));
    options?.signal?.addEventListener('abort', stop, { once: true });
    if (options?.signal?.aborted) stop();
    await this.slot.idle(Math.min(PREFETCH_JOIN_MS, left));
    options?.signal?.removeEventListener('abort', stop);
    stop();
    this.slot.close();
    this.api = null;
    const outbox = this.outbox;
    this.outbox = undefined;
    const onDisk = (await outbox?.close()) ?? 0;
    if (onDisk > 0)
      this.logger.warn(
        `Hindsight: ${onDisk} turn(s) not retained stay on disk (hindsight/outbox in HERMES_HOME) and are retained at the next start.`,
      );
  }

  /** Queued or running background work (tests, the conformance harness, the bench). */
  get pendingWork(): number {
    return this.writer.size + (this.scheduledQuery !== undefined || this.slot.isInFlight() ? 1 : 0);
  }

  /** Resolves when every turn so far is journaled on disk (decision 0115); at once without an outbox. */
  async journaled(): Promise<void> {
    await this.outbox?.flushed().catch(() => undefined);
  }

  /** Turns journaled and not yet retained (what a restart would deliver from this process). */
  get turnsOnDisk(): number {
    return this.outbox?.size ?? 0;
  }

  /** Resolves when queued retains and scheduled or running recall have finished. */
  async idle(): Promise<void> {
    await this.writer.drain();
    await this.scheduledRun;
    await this.slot.idle(this.drainMs + this.timeoutMs * 3);
  }

  /** The bank in use (after the template). */
  get bankId(): string {
    return this.bank;
  }

  /** Async retain operations still awaited by the read-after-write wait. */
  get pendingOperations(): readonly string[] {
    return this.pendingOps.map((op) => op.id);
  }

  /** The settings in use. */
  get settings(): Readonly<HindsightConfig> {
    return this.config;
  }

  private resolve(
    hermesHome: string | undefined,
    env: Env,
    providerConfig: Readonly<Record<string, unknown>> | undefined,
  ): HindsightConfig {
    const source = readHindsightConfigSource(hermesHome, env);
    return resolveHindsightConfig(this.options, {
      ...source,
      env,
      ...(providerConfig ? { providerConfig } : {}),
    });
  }

  private newApi(maxRetries?: number): HindsightApi {
    return new HindsightApi({
      baseURL: this.config.apiURL,
      apiKey: this.config.apiKey,
      timeoutMs: this.timeoutMs,
      health: this.monitor,
      clock: this.clock,
      breaker: this.breaker,
      ...(maxRetries !== undefined ? { maxRetries } : {}),
    });
  }

  /**
   * Per attempt: server errors, timeouts, resets, malformed bodies and 408/409/429 count (decision
   * 0953); its close sends what was held (after the attempt that closed it reported).
   */
  private newBreaker(): CircuitBreaker {
    return createProviderBreaker({
      name: 'Hindsight',
      threshold: this.options.breakerThreshold,
      cooldownMs: this.options.breakerCooldownMs,
      clock: this.clock,
      logger: this.logger,
      onClose: () => {
        if (!this.closed) this.resumeDelivery();
      },
    });
  }

  private newHeld(): HeldTurns {
    return new HeldTurns(
      this.options.heldLimits ?? DEFAULT_HELD_LIMITS,
      () => this.logger,
      (log) => this.settle(log),
    );
  }

  /** Take this process's outbox and queue what earlier runs left, per session, oldest first. */
  private openOutbox(hermesHome: string): void {
    void this.outbox?.close();
    this.outbox = undefined;
    try {
      this.outbox = openHindsightOutbox(hermesHome, this.logger);
    } catch (error) {
      this.logger.warn(
        `Hindsight: the outbox could not be opened (${describeError(error)}); unsent turns are kept in memory only.`,
      );
      return;
    }
    const adopted = this.outbox.entries();
    if (adopted.length === 0) return;
    for (const log of replayLogs(adopted, this.clock.now())) this.held.hold(log);
    this.held.cap(this.log);
    // Taken over from this process's outbox before it was initialized again, or left by earlier runs.
    const earlier = adopted.length - this.outbox.handedOver;
    const parts = [
      ...(this.outbox.handedOver > 0
        ? [`${this.outbox.handedOver} turn(s) held before Hindsight was initialized again`]
        : []),
      ...(earlier > 0 ? [`${earlier} turn(s) an earlier run could not retain`] : []),
    ];
    this.logger.info(`Hindsight: ${parts.join(' and ')} are on disk; they are sent once Hindsight answers.`);
    this.dispatchHeld();
  }

  /** Journal `log`'s newest turn (written in the background: the turn never waits on the disk). */
  private journal(log: SessionLog): void {
    if (!this.outbox) return;
    const index = log.turns.length - 1;
    try {
      const [entry] = this.outbox.add([
        {
          sessionId: log.sessionId,
          parentSessionId: log.parentSessionId,
          turn: log.turns[index]!,
          bankId: log.bankId ?? this.bank,
        },
      ]);
      log.outboxIds ??= [];
      log.outboxIds[index] = entry!.id;
    } catch {
      // Closed: memory only, as without an outbox.
    }
  }

  /** Turns below the watermark are in the document (or dropped by the cap): not replayed. */
  private settle(log: SessionLog): void {
    const ids = log.outboxIds;
    const from = log.settled ?? 0;
    if (!this.outbox || !ids || from >= log.retained) return;
    const done: string[] = [];
    for (let i = from; i < log.retained; i++) if (ids[i] !== undefined) done.push(ids[i]!);
    log.settled = log.retained;
    this.outbox.ack(done);
  }

  /**
   * Skip the log's next turns whose outbox entries are gone: another log holding the same turns
   * retained them (a retain queued before a re-initialize, and the replay of what the new outbox
   * took over from the old one; both run in order under the bank's lock), so none is sent twice.
   */
  private skipSettled(log: SessionLog): void {
    const outbox = this.outbox;
    const ids = log.outboxIds;
    if (!outbox || !ids) return;
    let i = log.retained;
    // Emptied as well (never sent, as the cap's): a server that replaces documents (< 0.5.0) gets
    // the whole log each time, and those turns are in the other log's document already.
    while (i < log.turns.length && ids[i] !== undefined && !outbox.has(ids[i]!)) log.turns[i++] = '';
    if (i === log.retained) return;
    log.retained = i;
    log.settled = Math.max(log.settled ?? 0, i);
    log.dispatched = Math.max(log.dispatched, i);
  }

  /**
   * Whether every undelivered turn of `log` was journaled: each is then in an outbox (this one's,
   * replayed as its own log, or, acknowledged there, already sent) or on disk for the next start.
   */
  private carried(log: SessionLog): boolean {
    const ids = log.outboxIds;
    if (!this.outbox || !ids) return false;
    for (let i = log.retained; i < log.turns.length; i++)
      if (log.turns[i] !== '' && ids[i] === undefined) return false;
    return true;
  }

  /** Whether the breaker refuses requests now (half-open lets the trial through). */
  private get circuitOpen(): boolean {
    return this.breaker.state === 'open';
  }

  /** Earlier sessions' held turns go to the writer first, in order (a dispatch follows them). */
  private dispatchHeld(): void {
    for (const log of this.held.take()) this.dispatch(log);
  }

  /** Everything held, first the earlier sessions', then this one's (the breaker closed, or shutdown). */
  private resumeDelivery(): void {
    if (!this.api || !this.writable) return;
    this.dispatchHeld();
    if (undelivered(this.log) > 0) this.dispatch(this.log);
  }

  private get timeoutMs(): number {
    return Math.round(this.config.timeout * 1000);
  }

  private get drainMs(): number {
    return Math.round(this.config.prefetchRetainDrainTimeout * 1000);
  }

  private recallDisabled(): boolean {
    return this.closed || this.config.memoryMode === 'tools' || !this.config.autoRecall;
  }

  private truncate(query: string): string {
    const max = this.config.recallMaxInputChars;
    return max > 0 && query.length > max ? query.slice(0, max) : query;
  }

  /**
   * Start recall for `query` once the turn yields to the event loop (the host's model call); a
   * later call before then replaces the query. Dropped by a session switch or shutdown.
   */
  private scheduleRecall(query: string): void {
    if (!this.api || this.recallDisabled() || this.config.recallSync) return;
    this.scheduledQuery = query;
    this.scheduledRun ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.scheduledRun = null;
      const q = this.scheduledQuery;
      this.scheduledQuery = undefined;
      if (q !== undefined) this.startRecall(q);
    });
  }

  /** A recall as `prefetch` serves it, formatted once, when it arrives. */
  private served(recalled: Recalled): Served {
    return {
      block: formatRecallBlock(recalled.text, this.config.recallPromptPreamble),
      count: recalled.count,
    };
  }

  /** One recall (or reflect) for `query`. */
  private async recallFor(query: string, signal: AbortSignal): Promise<Recalled> {
    const api = this.api;
    if (!api) return { text: '', count: 0 };
    if (this.config.prefetchMethod === 'reflect') {
      return recalledFromReflect(await api.reflect(this.bank, query, this.config.recallBudget, signal));
    }
    return recalledFromHits(await api.recall(this.bank, query, recallParams(this.config), signal));
  }

  /** The session's first turn: join what runs (or recall this message), at most 2.5 s and the signal. */
  private async firstTurnRecall(query: string, signal?: AbortSignal): Promise<Served | undefined> {
    let key = this.queuedKey;
    if (key === undefined || !this.slot.isInFlight(key)) {
      const q = this.truncate(query);
      if (q.trim() === '') return undefined;
      key = FIRST_TURN_KEY;
      this.slot.start(key, async (s) => this.served(await this.recallFor(q, this.signal(s))), {
        timeoutMs: this.timeoutMs,
      });
    }
    return this.slot.join(key, Math.min(this.timeoutMs, PREFETCH_WAIT_MS), signal);
  }

  /**
   * Read-after-write, bounded by `prefetch_retain_drain_timeout`: (1) the writer has sent every
   * queued retain; (2) each async retain the server accepted reports completed or failed (404 =
   * evicted, so done), polled every 0.5 s; a failing status read counts as not done yet. At the
   * deadline unresolved operations are dropped (with a warning) so later prefetches stay fast.
   */
  private async waitForRetains(signal: AbortSignal): Promise<void> {
    const deadline = this.clock.now() + this.drainMs;
    const drained = await this.writer.drain(this.drainMs, signal);
    if (!drained || this.pendingOps.length === 0) return;
    const api = this.api;
    if (!api) return;
    const result = await pollUntil(
      async () => {
        for (const op of [...this.pendingOps]) {
          let state: 'done' | 'pending' = 'pending';
          try {
            state = await api.operationState(op.bankId, op.id, signal);
          } catch (error) {
            // Refused by the breaker: the recall this wait is for would be refused too.
            if (signal.aborted || CircuitOpenError.isInstance(error)) throw error;
            this.logger.debug(`Hindsight: status of operation ${op.id} unavailable: ${describeError(error)}`);
          }
          if (state === 'done') this.pendingOps = this.pendingOps.filter((p) => p !== op);
        }
        return this.pendingOps.length;
      },
      {
        intervalMs: OPERATION_POLL_MS,
        timeoutMs: Math.max(0, deadline - this.clock.now()),
        isDone: (left) => left === 0,
        signal,
        clock: this.clock,
      },
    );
    if (result.status === 'timeout' && this.pendingOps.length > 0) {
      this.logger.warn(
        `Hindsight: ${this.pendingOps.length} retain operation(s) not finished after ${this.config.prefetchRetainDrainTimeout} s; recalling without them.`,
      );
      this.pendingOps = [];
    }
  }

  /**
   * Queue one retain of `log` on the writer. Which turns and which document are decided when it
   * runs, in order behind earlier retains: on a server that appends (≥ 0.5.0) the session's
   * document gets only the turns it does not have yet (the watermark moves on success, so a failed
   * retain is resent with the next); an older server replaces a per-process document, so the
   * whole session is sent each time.
   */
  private dispatch(log: SessionLog): void {
    const api = this.api;
    if (!api) return;
    const upTo = log.turns.length;
    log.dispatched = upTo;
    const at = this.clock.now();
    const bank = log.bankId ?? this.bank;
    const config = this.config;
    const identity = this.identity;
    // Replaced by a re-initialize: this retain was queued before it (see the catch below).
    const held = this.held;
    this.writer.push(async () => {
      try {
        await exclusive(`${api.baseURL}|${bank}`, () =>
          withDeadline(
            async (signal) => {
              const bounded = this.signal(signal);
              this.skipSettled(log);
              await this.ensureBank(api, bank, bounded);
              // Decided by the session's first retain that goes through, then kept: a probe that
              // failed during an outage must not turn a session whose retains all failed into an
              // old server's.
              const appends = log.appends ?? (await api.serverVersion(bounded)).appends;
              const from = appends ? Math.min(log.retained, upTo) : 0;
              // Turns an outage dropped over the cap are empty: never sent.
              const turns = log.turns.slice(from, upTo).filter((turn) => turn !== '');
              if (turns.length === 0) return;
              const item: RetainItem = {
                content: sessionContent(turns),
                timestamp: eventTimestamp(at),
                metadata: retainMetadata(
                  {
                    config,
                    identity,
                    sessionId: log.sessionId,
                    messageCount: turns.length * 2,
                    turnIndex: upTo,
                  },
                  at,
                ),
                context: config.retainContext,
                tags: mergeTags(config.retainTags, lineageTags(log)),
                ...(config.observationScopes ? { observation_scopes: config.observationScopes } : {}),
                document_id: appends ? log.sessionId : log.processDocumentId,
                ...(appends ? { update_mode: 'append' as const } : {}),
              };
              const outcome = await api.retain(
                bank,
                [item],
                config.retainAsync ? { async: true, operationId: randomUUID() } : { async: false },
                bounded,
              );
              // The document holds these turns now (an old server's: the whole session so far).
              log.appends ??= appends;
              log.retained = Math.max(log.retained, upTo);
              this.settle(log);
              this.held.delivered();
              if (config.retainAsync)
                for (const id of outcome.operationIds) this.pendingOps.push({ bankId: bank, id });
            },
            { timeoutMs: this.timeoutMs * 3, clock: this.clock, label: 'hindsight retain' },
          ),
        );
      } catch (error) {
        if (CircuitOpenError.isInstance(error)) {
          // Refused before it went out: held, sent first once the breaker closes.
          this.logger.debug(`Hindsight retain held: ${describeError(error)}`);
        } else this.logger.warn(`Hindsight retain failed: ${describeError(error)}`);
        // The current session's turns are resent with its next retain; an earlier session's are
        // held for the next one (not after a client error, which a resend would only repeat).
        // Queued before a re-initialize, with the turns in the new outbox: they are replayed as
        // their own log, so holding this one too would send them twice.
        if (held !== this.held && this.carried(log)) return;
        if (log !== this.log && (CircuitOpenError.isInstance(error) || isBackendFailure(error)))
          this.held.hold(log);
        this.held.cap(this.log);
      }
    }, 'retain');
  }

  /** Sends the configured missions once per bank (the service creates banks on first use anyway). */
  private async ensureBank(api: HindsightApi, bank: string, signal: AbortSignal): Promise<void> {
    const { bankMission, bankRetainMission } = this.config;
    if ((bankMission === '' && bankRetainMission === '') || this.missionSent.has(bank)) return;
    await api.upsertBank(bank, { mission: bankMission, retainMission: bankRetainMission }, signal);
    this.missionSent.add(bank);
  }

  private emitSaving(): void {
    if (!this.config.retainIndicator || !this.options.onStatus) return;
    try {
      this.options.onStatus(SAVING_STATUS);
    } catch (error) {
      this.logger.debug(`Hindsight status line failed: ${describeError(error)}`);
    }
  }

  /** `text` trimmed, or '' (logged) when the write scanner blocks it. */
  private safe(text: string, what: string): string {
    const trimmed = typeof text === 'string' ? text.trim() : '';
    if (trimmed === '') return '';
    const scan = scanWrite(trimmed);
    if (!scan.ok) {
      this.logger.warn(`Hindsight did not retain ${what}: ${scan.message}`);
      return '';
    }
    return neutralizeMemoryText(trimmed);
  }

  private signal(extra?: AbortSignal): AbortSignal {
    return extra ? AbortSignal.any([extra, this.lifetime.signal]) : this.lifetime.signal;
  }
}

/**
 * An earlier run's journaled turns as one held log per session and bank (first appearance order),
 * already on disk.
 */
function replayLogs(entries: readonly OutboxEntry<StoredTurn>[], nowMs: number): SessionLog[] {
  const logs = new Map<string, SessionLog>();
  for (const { id, data } of entries) {
    const key = JSON.stringify([data.bankId ?? null, data.sessionId]);
    let log = logs.get(key);
    if (!log) {
      log = newSessionLog(data.sessionId, data.parentSessionId, nowMs);
      if (typeof data.bankId === 'string' && data.bankId !== '') log.bankId = data.bankId;
      log.outboxIds = [];
      logs.set(key, log);
    }
    log.turns.push(data.turn);
    log.outboxIds!.push(id);
    log.dispatched = log.turns.length;
  }
  return [...logs.values()];
}
