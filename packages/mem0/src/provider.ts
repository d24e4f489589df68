import path from 'node:path';
import {
  CircuitBreaker,
  CircuitOpenError,
  type Clock,
  type ConfigField,
  canWrite,
  describeError,
  type Embedder,
  guardToolCall,
  type HookOptions,
  type InitContext,
  integerArg,
  isTrivialPrompt,
  type LlmClient,
  type Logger,
  type Outbox,
  loadDefaultEmbedder,
  MemoryProvider,
  type MemoryTarget,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  mergeJsonConfig,
  readJsonConfig,
  SettingsError,
  neutralizeToolResult,
  type PrefetchOptions,
  PrefetchSlot,
  type ProbeResult,
  type ProviderFactoryContext,
  type ProviderHealth,
  parseBoolean,
  parseToolArgs,
  type RecallStatus,
  type SessionSwitchOptions,
  type ShutdownOptions,
  type SyncTurnOptions,
  silentLogger,
  systemClock,
  TimeoutError,
  type ToolCallOptions,
  type ToolSchema,
  type TurnStartInfo,
  toolError,
  toolResult,
  UndeliveredWrites,
  withDeadline,
} from '@hermes-memory/core';
import { isMem0ClientError } from './backend/errors';
import { OssBackend } from './backend/oss';
import { PlatformBackend } from './backend/platform';
import { SelfHostedBackend } from './backend/self-hosted';
import type { AddResult, Mem0Backend, Mem0Message } from './backend/types';
import {
  isConfigured,
  MEM0_CONFIG_FILE,
  type Mem0ProviderSettings,
  type ResolvedMem0Config,
  readMem0Json,
  resolveMem0Config,
  resolveUserId,
  unavailableReasonFor,
} from './config';
import { formatRecallBlock, guardTurnText, guardWrite, type Mem0Hit } from './text';
import {
  ADD_TOOL,
  DELETE_TOOL,
  SEARCH_DEFAULT_TOP_K,
  SEARCH_MAX_TOP_K,
  SEARCH_TOOL,
  TOOL_NAMES,
  TOOL_SCHEMAS,
  UPDATE_TOOL,
} from './tools';
import { settlesWithin, TurnWriter } from './turn-writer';
import { lateWrite, openMem0Outbox, type StoredWrite } from './outbox';
import { importEmbeddings } from './embeddings-peer';

const UNAVAILABLE = 'Mem0 temporarily unavailable (multiple consecutive failures). Will retry automatically.';
const MODE_LABELS = {
  platform: 'platform (cloud API)',
  selfhosted: 'self-hosted (HTTP API)',
  oss: 'OSS (self-hosted)',
} as const;
const PREFETCH_TOP_K = 10;
const DEFAULT_SHUTDOWN_MS = 5000;
/** The most writes waiting on disk: past it the oldest are dropped (honcho's cap is 2000 messages). */
export const MAX_WAITING_WRITES = 1000;

/**
 * Mem0 as the agent's external memory: the Platform through the official SDK, or a self-hosted
 * server over HTTP. Mem0 extracts facts from each turn server-side; recall is a semantic search
 * for the turn's message, started at turn start.
 *
 * Hot path: turn 1's prefetch may wait for its search (at most 3 s); every later prefetch serves
 * what is ready — this turn's search if it already finished, else the previous turn's, which
 * finished while the model answered — and never waits. Writes go through `TurnWriter` (skip, not
 * queue, behind a slow write; a skipped turn is sent later from the outbox, in the background);
 * every call has a deadline and passes the circuit breaker.
 */
export class Mem0Provider extends MemoryProvider {
  readonly name = 'mem0';

  private readonly settingsInput: Mem0ProviderSettings;
  private readonly factoryContext: ProviderFactoryContext | undefined;
  /** From the factory context (no I/O in `isAvailable`); replaced at `initialize`. */
  private config: ResolvedMem0Config | undefined;
  private configError: unknown;
  private readonly clock: Clock;
  private logger: Logger = silentLogger;
  private backend: Mem0Backend | undefined;
  private initError = '';
  private userId = '';
  private channel = 'cli';
  private hermesHome = '';
  private writable = false;
  private closed = false;
  private initialized = false;
  /** Whether a prefetch already ran: only the first may wait for the backend. */
  private prefetched = false;
  private turn = 0;
  private breaker: CircuitBreaker;
  private slot: PrefetchSlot<string>;
  private writer: TurnWriter;
  /** Accepted writes Mem0 never confirmed (none are held: they are counted and told). */
  private undelivered: UndeliveredWrites;
  /** Accepted writes on disk until Mem0 confirms them; the next start sends what is left. */
  private outbox: Outbox<StoredWrite> | undefined;
  /** Waiting writes dropped (the oldest) because more than `MAX_WAITING_WRITES` waited. */
  private droppedOverCap = 0;
  /** Outbox ids handed to the writer and not started yet (it sends or skips them, not the replay). */
  private pushed = new Set<string>();
  /** Outbox ids whose add is running: never sent a second time while it runs. */
  private inFlight = new Set<string>();
  /**
   * Outbox ids of turns skipped behind a write still running (the reference skips them rather
   * than queue them, §3.8.19): not sent while it runs. Once it ended they are released to
   * `redeliver`, which sends them from the journal in the background, in order.
   */
  private skippedIds = new Set<string>();
  /**
   * Outbox ids this run counted in `undelivered` (failed, refused by the open breaker, skipped):
   * one later delivered from the journal leaves the count.
   */
  private countedIds = new Set<string>();
  /**
   * Outbox ids the writer reached while older writes still waited in the journal (failed, skipped,
   * refused, or being sent again): handed to the redelivery, which sends in journal order, so a
   * newer turn never reaches Mem0 before an older one (Mem0 decides ADD/UPDATE/DELETE against what
   * it holds). Not counted as undelivered unless the redelivery stops before them.
   */
  private deferred = new Set<string>();
  /** Why the last add failed (the reason deferred writes are counted with). */
  private lastAddError = '';
  /** Whether the last add Mem0 answered went through: skipped turns are sent only then. */
  private lastAddOk = true;
  /** The redelivery running in the background, if any (one at a time). */
  private replaying: Promise<void> | undefined;
  private lifetime = new AbortController();
  private lastRecallCount = 0;
  /** Services the host injected at initialize (OSS mode uses them). */
  private services: { llm?: LlmClient | undefined; embedder?: Embedder | undefined } = {};

  constructor(settings: Mem0ProviderSettings = {}, context?: ProviderFactoryContext) {
    super();
    this.settingsInput = settings;
    this.factoryContext = context;
    this.clock = settings.clock ?? systemClock;
    try {
      this.config = resolveMem0Config(settings, {
        providerConfig: context?.providerConfig,
        env: context?.env,
        file: readMem0Json(context?.hermesHome),
      });
    } catch (error) {
      this.configError = error;
    }
    if (context?.logger) this.logger = context.logger;
    this.breaker = this.newBreaker();
    this.slot = this.newSlot();
    this.undelivered = new UndeliveredWrites({
      now: () => this.clock.now(),
      missed: 'not delivered to Mem0',
    });
    this.writer = this.newWriter();
  }

  // ---- availability and configuration (no I/O) -------------------------------------------------

  isAvailable(): boolean {
    // A broken config is "available" so that initialize reports the error instead of hiding it.
    if (this.configError !== undefined) return true;
    return this.config !== undefined && isConfigured(this.config);
  }

  override unavailableReason(): string {
    if (this.configError !== undefined) return describeError(this.configError);
    return this.config ? unavailableReasonFor(this.config) : '';
  }

  /**
   * The reference's setup flow: choose the Platform or a self-hosted server, then the key (to
   * `.env`), the server URL, whose memories and the agent id (to mem0.json, see `saveConfig`).
   */
  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'mode',
        description: 'Where the memories live: the Mem0 Platform (cloud) or your own Mem0 server',
        choices: ['platform', 'selfhosted'],
        default: 'platform',
      },
      {
        key: 'api_key',
        description: 'Mem0 Platform API key (app.mem0.ai), or the key of a self-hosted server',
        secret: true,
        required: false,
        envVar: 'MEM0_API_KEY',
        url: 'https://app.mem0.ai/dashboard/api-keys',
      },
      {
        key: 'host',
        description: 'Self-hosted Mem0 server URL (e.g. http://localhost:8888)',
        required: true,
        when: { mode: 'selfhosted' },
      },
      {
        key: 'user_id',
        description: 'Whose memories ("hermes-user" lets a gateway user id win)',
        default: 'hermes-user',
      },
      { key: 'agent_id', description: 'Agent id attached to writes', default: 'hermes' },
      { key: 'rerank', description: 'Rerank searches (Platform only)', type: 'boolean', default: false },
    ];
  }

  /**
   * Merge-writes the non-secret values into `$HERMES_HOME/mem0.json` (0600, atomic); keys go to
   * `.env`. As the reference's setup: choosing the Platform writes `host: ""` (a stale server URL
   * would keep routing to it), and a self-hosted server is `mode: "platform"` plus its `host`.
   */
  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    mergeJsonConfig(path.join(hermesHome, MEM0_CONFIG_FILE), mem0JsonPatch(values, this.getConfigSchema()));
  }

  /** mem0.json read back into setup's terms: a server URL there means the self-hosted mode. */
  override savedConfig(hermesHome: string): Record<string, unknown> {
    const read = readJsonConfig(path.join(hermesHome, MEM0_CONFIG_FILE));
    if (read.status === 'invalid') throw new SettingsError(MEM0_CONFIG_FILE, `Mem0 config ${read.error}.`);
    const out: Record<string, unknown> = {};
    for (const field of this.getConfigSchema()) {
      if (!field.secret && read.data[field.key] !== undefined) out[field.key] = read.data[field.key];
    }
    if (read.status === 'ok' && ('mode' in read.data || 'host' in read.data)) {
      const host = typeof read.data.host === 'string' ? read.data.host.trim() : '';
      out.mode = host ? 'selfhosted' : 'platform';
    }
    return out;
  }

  // ---- lifecycle -------------------------------------------------------------------------------

  async initialize(_sessionId: string, context: InitContext): Promise<void> {
    this.logger = context.logger ?? this.logger;
    this.hermesHome = context.hermesHome;
    this.closed = false;
    this.prefetched = false;
    this.turn = 0;
    this.lifetime = new AbortController();
    this.breaker = this.newBreaker();
    this.slot = this.newSlot();
    this.undelivered = new UndeliveredWrites({
      now: () => this.clock.now(),
      missed: 'not delivered to Mem0',
    });
    this.droppedOverCap = 0;
    this.pushed = new Set();
    this.inFlight = new Set();
    this.skippedIds = new Set();
    this.countedIds = new Set();
    this.deferred = new Set();
    this.lastAddError = '';
    this.lastAddOk = true;
    this.replaying = undefined;
    this.writer = this.newWriter();
    const config = resolveMem0Config(this.settingsInput, {
      providerConfig: context.providerConfig ?? this.factoryContext?.providerConfig,
      env: context.env ?? this.factoryContext?.env,
      file: readMem0Json(context.hermesHome),
    });
    this.config = config;
    this.configError = undefined;
    this.userId = resolveUserId(config.userId, context.userId);
    this.channel = context.platform || 'cli';
    this.writable = canWrite(context.agentContext);
    this.services = { llm: context.llm, embedder: context.embedder };
    try {
      this.backend = await this.openBackend(config);
      this.initError = '';
      if (this.writable && !context.inspectionOnly) this.openOutbox();
    } catch (error) {
      this.backend = undefined;
      this.initError = describeError(error);
      throw error;
    } finally {
      this.initialized = true;
    }
  }

  /** Take this process's journal; writes an earlier run left are sent first, in the background. */
  private openOutbox(): void {
    try {
      this.outbox = openMem0Outbox(this.hermesHome, this.logger, this.clock);
    } catch (error) {
      this.logger.warn(
        `Mem0: no outbox (${describeError(error)}); writes not delivered die with the process.`,
      );
      return;
    }
    const earlier = this.outbox.entries();
    if (earlier.length === 0) return;
    this.logger.info(`Mem0: sending ${earlier.length} write(s) an earlier run could not deliver.`);
    for (const entry of earlier) this.push(lateWrite(entry), entry.id);
  }

  /** Hand a journaled write to the writer (which sends it in turn, or skips it behind a stuck one). */
  private push(request: StoredWrite, id: string | undefined): void {
    if (id === undefined) {
      this.writer.push(() => this.send(request, undefined));
      return;
    }
    this.pushed.add(id);
    this.writer.push(
      () => {
        this.pushed.delete(id);
        if (!this.isOldestWaiting(id)) {
          // Older writes wait for redelivery: this one goes after them, never before.
          this.deferred.add(id);
          this.redeliver();
          return Promise.resolve(false);
        }
        return this.send(request, id);
      },
      () => {
        this.pushed.delete(id);
        this.skippedIds.add(id);
        this.countedIds.add(id);
      },
    );
  }

  /**
   * Whether nothing older than `id` waits in the journal. The writer decides in order and only
   * after the previous write settled, so any older entry still there is one Mem0 has not
   * confirmed: failed, skipped, refused by the open breaker, deferred, or being sent again.
   */
  private isOldestWaiting(id: string): boolean {
    const outbox = this.outbox;
    if (!outbox) return true;
    for (const entry of outbox.entries()) return entry.id === id;
    return true;
  }

  /**
   * One add; acknowledged in the outbox once Mem0 confirmed it, else counted (it stays on disk).
   * A replayed write (`replay`) was counted when it first failed or was skipped: its failure is not
   * counted again, and its delivery takes it out of the count. Resolves whether Mem0 confirmed it.
   */
  private send(request: StoredWrite, id: string | undefined, replay = false): Promise<boolean> {
    const backend = this.backend;
    if (!backend || (id !== undefined && this.inFlight.has(id))) return Promise.resolve(false);
    if (id !== undefined) this.inFlight.add(id);
    const what = writeKind(request);
    return this.call('add', (s) => backend.add(request, s)).then(
      () => {
        this.lastAddOk = true;
        if (id !== undefined) {
          this.inFlight.delete(id);
          this.deferred.delete(id);
          this.outbox?.ack([id]);
          if (this.countedIds.delete(id)) this.undelivered.recovered(1);
        }
        this.undelivered.delivered();
        if (!replay) this.redeliver();
        return true;
      },
      (error: unknown) => {
        this.lastAddOk = false;
        this.lastAddError = describeError(error);
        if (id !== undefined) this.inFlight.delete(id);
        if (replay) return false;
        this.countDeferred(`held behind an undelivered write (${this.lastAddError})`);
        if (id !== undefined) this.countedIds.add(id);
        this.undelivered.lost(1, `${what}: ${describeError(error)}`);
        this.logger.warn(
          what === 'turn'
            ? `Mem0 sync failed: ${describeError(error)}`
            : `Mem0 memory mirror failed: ${describeError(error)}`,
        );
        return false;
      },
    );
  }

  /**
   * Mem0 is reachable again (a write went through, the breaker closed, a stuck write ended well):
   * send, in the background, the journaled writes an earlier failure, an open breaker or a skip
   * left on disk — oldest first, one at a time, stopping at the first failure (the next success
   * starts again). One replay runs at a time. It never sends past the oldest entry: one the
   * writer holds, one in flight or a turn skipped behind a write still running stops it, so
   * nothing overtakes them. Writes the writer deferred behind older ones go with it, in journal
   * order; if it stops on a failure before them they are counted then.
   */
  private redeliver(): void {
    const outbox = this.outbox;
    if (this.replaying || this.closed || !outbox) return;
    if (outbox.size <= this.pushed.size + this.inFlight.size + this.skippedIds.size) return;
    const waiting = (id: string) =>
      !this.pushed.has(id) && !this.inFlight.has(id) && !this.skippedIds.has(id);
    const run = async (): Promise<'sent' | 'failed' | 'stopped'> => {
      while (!this.closed && this.outbox === outbox) {
        const next = outbox.entries()[0];
        if (!next) return 'sent';
        // Never past an older write the writer still holds or is sending: it goes first (its
        // success starts this again; its failure counts what waits behind it).
        if (!waiting(next.id)) return 'stopped';
        if (!(await this.send(lateWrite(next), next.id, true))) return 'failed';
      }
      return 'stopped';
    };
    const replaying = run().then((outcome) => {
      if (this.replaying === replaying) this.replaying = undefined;
      if (outcome === 'failed') this.countDeferred(`held behind an undelivered write (${this.lastAddError})`);
      // A write deferred while this run was finishing would otherwise wait for the next trigger.
      else if (outcome === 'sent' && [...this.deferred].some((id) => outbox.has(id))) this.redeliver();
    });
    this.replaying = replaying;
  }

  /** Deferred writes the redelivery did not reach are undelivered: counted (once), as failed ones. */
  private countDeferred(reason: string): void {
    if (this.deferred.size === 0) return;
    for (const entry of this.outbox?.entries() ?? []) {
      if (!this.deferred.has(entry.id)) continue;
      this.countedIds.add(entry.id);
      this.undelivered.lost(1, `${writeKind(entry.data)}: ${reason}`);
    }
    this.deferred.clear();
  }

  /**
   * The write turns were skipped behind has ended: they may go now, from the journal, in the
   * background (never on `syncTurn`'s path) — at once if that write went through, else with the
   * next write that does or when the breaker closes.
   */
  private releaseSkipped(): void {
    if (this.skippedIds.size === 0) return;
    this.skippedIds.clear();
    if (this.lastAddOk) this.redeliver();
  }

  /** Journal an accepted write (when the outbox is open); its id, for the acknowledgement. */
  private journal(request: StoredWrite): string | undefined {
    const outbox = this.outbox;
    if (!outbox) return undefined;
    try {
      const id = outbox.add([request])[0]?.id;
      if (outbox.size > MAX_WAITING_WRITES) {
        // A long outage: the oldest go (on purpose, counted, told once), so the journal and the
        // next start's replay stay bounded.
        const over = outbox.entries().slice(0, outbox.size - MAX_WAITING_WRITES);
        outbox.ack(over.map((e) => e.id));
        for (const e of over) {
          this.skippedIds.delete(e.id);
          this.countedIds.delete(e.id);
          // Dropped before the redelivery reached it: undelivered for good.
          if (this.deferred.delete(e.id))
            this.undelivered.lost(1, `${writeKind(e.data)}: dropped over the cap`);
        }
        if (this.droppedOverCap === 0)
          this.logger.warn(
            `Mem0: more than ${MAX_WAITING_WRITES} writes wait for delivery; dropping the oldest (the count is in health()).`,
          );
        this.droppedOverCap += over.length;
      }
      return id;
    } catch {
      return undefined;
    }
  }

  private async openBackend(config: ResolvedMem0Config): Promise<Mem0Backend> {
    if (config.backend === 'oss') {
      return OssBackend.create({
        hermesHome: this.hermesHome || this.factoryContext?.hermesHome || '',
        oss: config.oss,
        embedder: this.services.embedder ?? (await loadDefaultEmbedder(importEmbeddings, this.logger)),
        llm: this.services.llm,
        llmTimeoutMs: config.requestTimeoutMs,
        telemetry: config.telemetry,
        logger: this.logger,
      });
    }
    if (config.backend === 'selfhosted') {
      return new SelfHostedBackend({
        host: config.host,
        apiKey: config.apiKey,
        timeoutMs: config.requestTimeoutMs,
        clock: this.clock,
      });
    }
    return PlatformBackend.create({
      apiKey: config.apiKey,
      host: config.platformURL,
      telemetry: config.telemetry,
    });
  }

  override async shutdown(options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.writer.close();
    const drained = await this.writer.idle(options?.timeoutMs ?? DEFAULT_SHUTDOWN_MS);
    const abandoned = drained ? 0 : this.writer.pending;
    // A redelivery stops after the add it is in; what it did not send stays on disk (counted).
    if (this.replaying)
      await settlesWithin(this.replaying, options?.timeoutMs ?? DEFAULT_SHUTDOWN_MS, this.clock);
    // Writes deferred behind older ones and not reached yet stay on disk, undelivered.
    this.countDeferred('waiting behind an undelivered write at shutdown');
    const lost = this.undelivered.seal(abandoned);
    const outbox = this.outbox;
    this.outbox = undefined;
    const onDisk = outbox ? await outbox.close().catch(() => 0) : 0;
    if (lost > 0 || onDisk > 0)
      this.logger.warn(
        `Mem0: ${lost} write(s) accepted this session were not delivered (${abandoned} abandoned in flight at shutdown; last: ${this.undelivered.lastReason || 'none this session'}); ${onDisk} stay on disk and are sent at the next start${this.droppedOverCap > 0 ? `, ${this.droppedOverCap} older one(s) were dropped over the cap of ${MAX_WAITING_WRITES}` : ''}.`,
      );
    this.slot.close();
    this.lifetime.abort(new Error('Mem0 provider shut down.'));
    const backend = this.backend;
    this.backend = undefined;
    await backend?.close();
  }

  /** Waits for queued turn writes and running searches (the manager's `flushPending`). */
  override async flush(timeoutMs?: number): Promise<boolean> {
    return this.idle(timeoutMs ?? DEFAULT_SHUTDOWN_MS);
  }

  // ---- prompt and recall -----------------------------------------------------------------------

  override systemPromptBlock(): string {
    const config = this.config;
    if (!this.initialized || !config || !this.backend) return '';
    const rerank = config.backend === 'platform' ? ' Rerank is available on search.' : '';
    return [
      '# Mem0 Memory',
      `Active. Mode: ${MODE_LABELS[config.backend]}. User: ${this.userId}.`,
      `Call ${SEARCH_TOOL} before answering anything that may depend on earlier conversations or on facts about the user; for multi-hop questions, run several searches. Use ${ADD_TOOL} to store a durable fact verbatim, and ${UPDATE_TOOL} or ${DELETE_TOOL} with an id from a search to correct one.${rerank}`,
    ].join('\n');
  }

  override onTurnStart(turnNumber: number, message: string, _info?: TurnStartInfo): void {
    this.turn = turnNumber;
    this.slot.setTurn(turnNumber);
    if (!isTrivialPrompt(message)) this.startSearch(message);
  }

  /** Start (or join) the background search for `query`; the slot keeps its formatted block. */
  private startSearch(query: string): void {
    const backend = this.backend;
    const config = this.config;
    if (this.closed || !backend || !config || query.trim() === '' || this.breaker.state === 'open') return;
    this.slot.start(query, async (signal) => {
      const hits = await this.call(
        'search',
        (s) => backend.search({ query, userId: this.userId, topK: PREFETCH_TOP_K, rerank: config.rerank }, s),
        { signal },
      );
      this.lastRecallCount = hits.length;
      return formatRecallBlock(hits);
    });
  }

  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    if (this.closed || !this.backend || !this.config) return '';
    const first = !this.prefetched;
    this.prefetched = true;
    const ready = this.slot.take(query);
    if (ready !== undefined) return ready;
    if (first && this.turn <= 1) {
      // Turn 1 has nothing prepared: wait for its search, within the reference's 3 s.
      if (this.breaker.state === 'open') return '';
      this.startSearch(query);
      return (await this.slot.join(query, this.config.prefetchTimeoutMs, options?.signal)) ?? '';
    }
    // Later turns never wait: the previous turn's search finished while the model answered. A host
    // that skips onTurnStart still gets this turn's search started here, for the next turn.
    this.startSearch(query);
    return this.slot.take() ?? '';
  }

  // ---- writes ----------------------------------------------------------------------------------

  override syncTurn(user: string, assistant: string, _options?: SyncTurnOptions): void {
    const backend = this.backend;
    const config = this.config;
    if (this.closed || !this.writable || !backend || !config) return;
    // Mem0 extracts facts from the turn and recall brings them back: a turn the write scanner
    // blocks is not sent at all (either message can carry the payload into an extracted fact).
    const messages: Mem0Message[] = [];
    for (const [role, text] of [
      ['user', user],
      ['assistant', assistant],
    ] as const) {
      if (text.trim() === '') continue;
      const guarded = guardTurnText(text, config.syncMaxChars);
      if (!guarded.ok) {
        this.logger.warn(`Mem0 did not send turn ${this.turn} for extraction: ${guarded.error}`);
        return;
      }
      if (guarded.text.trim() !== '') messages.push({ role, content: guarded.text });
    }
    if (messages.length === 0) return;
    this.accept({
      messages,
      userId: this.userId,
      agentId: config.agentId,
      infer: config.syncInfer,
      metadata: { channel: this.channel },
    });
  }

  /**
   * Journal a write, then send it behind the previous one — or, while the breaker is open, keep
   * it on disk for the next start (counted).
   */
  private accept(request: StoredWrite): void {
    const id = this.journal(request);
    const what = writeKind(request);
    if (this.breaker.state === 'open') {
      this.undelivered.lost(1, `${what} refused: circuit breaker open`);
      if (id !== undefined) this.countedIds.add(id);
      return;
    }
    this.push(request, id);
  }

  /**
   * Built-in `add`s are stored verbatim (`infer: false`), as a stored variant of the reference does.
   * Replace and remove are not mirrored: Mem0 keeps its own ids and extracted facts, with no link
   * back to a MEMORY.md line (decision 0910).
   */
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    _metadata?: MemoryWriteMetadata,
    _options?: HookOptions,
  ): void {
    const backend = this.backend;
    const config = this.config;
    if (action !== 'add' || this.closed || !this.writable || !backend || !config || content.trim() === '')
      return;
    const guarded = guardWrite(content);
    if (!guarded.ok) {
      this.logger.warn(`Mem0 did not mirror a ${target} memory write: ${guarded.error}`);
      return;
    }
    this.accept({
      messages: [{ role: 'user', content: guarded.text }],
      userId: this.userId,
      agentId: config.agentId,
      infer: false,
      metadata: { channel: this.channel, write_origin: 'builtin_memory_mirror', target },
    });
  }

  override onSessionSwitch(_newSessionId: string, _options: SessionSwitchOptions): undefined {
    // Searches of the old session must not answer the new one.
    this.slot.newGeneration();
    return undefined;
  }

  // ---- tools -----------------------------------------------------------------------------------

  getToolSchemas(): ToolSchema[] {
    return TOOL_SCHEMAS.map((schema) => ({ ...schema }));
  }

  override async handleToolCall(name: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    // Results quote stored text, which other Mem0 clients may have written: nothing in them may
    // open, close or imitate the recall fence (decision 0113).
    return neutralizeToolResult(await this.runTool(name, args, options));
  }

  private runTool(name: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    return guardToolCall(async () => {
      if (!TOOL_NAMES.includes(name)) return toolError(`Unknown tool: ${name}`);
      const backend = this.backend;
      const config = this.config;
      if (this.closed || !backend || !config) {
        return toolError(
          `Mem0 backend not initialized: ${this.closed ? 'shut down' : this.initError || 'not started'}.`,
        );
      }
      if (this.breaker.state === 'open') return toolError(UNAVAILABLE);
      const parsed = parseToolArgs(args);
      const missing = (keys: string[]) => keys.find((key) => stringArg(parsed[key]) === '');
      const signal = options?.signal;

      if (name === SEARCH_TOOL) {
        const absent = missing(['query']);
        if (absent) return toolError(`Missing required parameter: ${absent}`);
        const topK = integerArg(parsed, 'top_k', {
          fallback: SEARCH_DEFAULT_TOP_K,
          min: 1,
          max: SEARCH_MAX_TOP_K,
        });
        const rerank = parseBoolean(parsed.rerank) ?? config.rerank;
        const query = stringArg(parsed.query);
        return this.toolCall('Search failed', async () => {
          const hits = await this.call(
            'search',
            (s) => backend.search({ query, userId: this.userId, topK, rerank }, s),
            { signal },
          );
          if (hits.length === 0) return toolResult({ result: 'No relevant memories found.' });
          return toolResult({
            results: hits.map(({ id, memory, score }) => ({ id, memory, score })),
            count: hits.length,
          });
        });
      }

      if (!this.writable)
        return toolError('Mem0 memory is read-only in this context (subagent, cron or flush).');

      if (name === ADD_TOOL) {
        const absent = missing(['content']);
        if (absent) return toolError(`Missing required parameter: ${absent}`);
        const guarded = guardWrite(stringArg(parsed.content));
        if (!guarded.ok) return toolError(guarded.error);
        const content = guarded.text;
        return this.toolCall('Failed to store', async () => {
          const added: AddResult = await this.call(
            'add',
            (s) =>
              backend.add(
                {
                  messages: [{ role: 'user', content }],
                  userId: this.userId,
                  agentId: config.agentId,
                  infer: false,
                  metadata: { channel: this.channel },
                },
                s,
              ),
            { signal, countClientErrors: true },
          );
          return toolResult({
            result: added.queued ? 'Fact queued for storage.' : 'Fact stored.',
            event_id: added.eventId ?? null,
          });
        });
      }

      const absent = missing(name === UPDATE_TOOL ? ['memory_id', 'text'] : ['memory_id']);
      if (absent) return toolError(`Missing required parameter: ${absent}`);
      const memoryId = stringArg(parsed.memory_id);
      if (name === UPDATE_TOOL) {
        const guarded = guardWrite(stringArg(parsed.text));
        if (!guarded.ok) return toolError(guarded.error);
        const text = guarded.text;
        return this.toolCall(
          'Update failed',
          async () => {
            await this.call('update', (s) => backend.update(memoryId, text, s), { signal });
            return toolResult({ result: 'Memory updated.', memory_id: memoryId });
          },
          memoryId,
        );
      }
      return this.toolCall(
        'Delete failed',
        async () => {
          await this.call('delete', (s) => backend.delete(memoryId, s), { signal });
          return toolResult({ result: 'Memory deleted.', memory_id: memoryId });
        },
        memoryId,
      );
    });
  }

  /** A tool's backend work, with the reference's error texts. */
  private async toolCall(label: string, work: () => Promise<string>, memoryId?: string): Promise<string> {
    try {
      return await work();
    } catch (error) {
      if (CircuitOpenError.isInstance(error)) return toolError(UNAVAILABLE);
      // The reference answers every client error of update and delete (404, an invalid id) this way.
      if (memoryId !== undefined && isMem0ClientError(error))
        return toolError(`Memory not found: ${memoryId}`);
      return toolError(`${label}: ${describeError(error)}`);
    }
  }

  // ---- the one way out to the backend ----------------------------------------------------------

  /**
   * Every backend call: through the breaker, bounded by `requestTimeoutMs` and the caller's signal
   * (a call the SDK cannot cancel is abandoned at its deadline and counted as a failure). Client
   * errors do not trip the breaker unless `countClientErrors` (mem0_add, as in the reference).
   */
  private async call<T>(
    label: string,
    work: (signal: AbortSignal) => Promise<T>,
    options: { signal?: AbortSignal | undefined; countClientErrors?: boolean } = {},
  ): Promise<T> {
    const config = this.config;
    if (!config) throw new Error('Mem0 is not initialized.');
    const breaker = this.breaker;
    if (!breaker.tryAcquire()) throw new CircuitOpenError(UNAVAILABLE, breaker.retryAt);
    const parent = options.signal
      ? AbortSignal.any([options.signal, this.lifetime.signal])
      : this.lifetime.signal;
    try {
      const value = await withDeadline(work, {
        timeoutMs: config.requestTimeoutMs,
        signal: parent,
        label: `Mem0 ${label}`,
        clock: this.clock,
      });
      breaker.recordSuccess();
      return value;
    } catch (error) {
      if (parent.aborted && !TimeoutError.isInstance(error)) {
        // Our own shutdown or a session switch stopped it: not the backend's fault.
        breaker.recordFailure(CALLER_ABORTED);
      } else if (options.countClientErrors && isMem0ClientError(error)) {
        breaker.recordFailure();
      } else {
        breaker.recordFailure(error);
      }
      throw error;
    }
  }

  // ---- status ----------------------------------------------------------------------------------

  override health(): ProviderHealth | null {
    const lost = this.undelivered;
    if (this.breaker.state === 'open')
      return {
        status: 'down',
        reason: `Mem0 circuit breaker open after ${this.breaker.failures} consecutive failures; retrying in ${Math.ceil(Math.max(0, this.breaker.retryAt - this.clock.now()) / 1000)} s.${lost.note()}${this.diskNote()}`,
        since: this.breaker.openedAt,
        consecutiveFailures: this.breaker.failures,
      };
    // Until Mem0 confirms a write again, the writes it lost are the news (skipped turns included).
    const recent = lost.sinceDelivered;
    if (recent === 0) return null;
    return {
      status: 'degraded',
      reason: `the last ${recent} write(s) were not delivered (${lost.lastReason}).${lost.note()}${this.diskNote()}`,
      since: lost.since,
      consecutiveFailures: this.breaker.failures,
    };
  }

  /**
   * One cheap authenticated request. Before `initialize` (`hermes-memory status --probe`, setup's
   * connection check) it opens a backend from the configuration for that one request.
   */
  override async probe(options?: HookOptions): Promise<ProbeResult> {
    if (this.backend) return this.ping(this.backend, options);
    const config = this.config;
    if (!config || !isConfigured(config)) {
      const reason =
        this.configError !== undefined ? describeError(this.configError) : this.unavailableReason();
      const because = reason.replace(/\.+$/, '');
      return { status: 'skipped', message: `Mem0 is not configured${because ? `: ${because}` : ''}.` };
    }
    // OSS runs in process: opening it here would create its stores from a read-only command.
    if (config.backend === 'oss')
      return { status: 'skipped', message: 'Mem0 OSS runs in process: there is no service to reach.' };
    let backend: Mem0Backend;
    try {
      backend = await this.openBackend(config);
    } catch (error) {
      return { status: 'failed', message: `Mem0: ${describeError(error)}` };
    }
    try {
      return await this.ping(backend, options);
    } finally {
      await backend.close();
    }
  }

  private async ping(backend: Mem0Backend, options?: HookOptions): Promise<ProbeResult> {
    const started = this.clock.now();
    try {
      await withDeadline((s) => backend.ping(s), {
        timeoutMs: this.config?.requestTimeoutMs ?? 10_000,
        ...(options?.signal ? { signal: options.signal } : {}),
        label: 'Mem0 probe',
        clock: this.clock,
      });
      return {
        status: 'ok',
        message: `Mem0 ${MODE_LABELS[backend.kind]} reachable${this.userId ? ` as user ${this.userId}` : ''}.`,
        latencyMs: this.clock.now() - started,
      };
    } catch (error) {
      return { status: 'failed', message: `Mem0 ${MODE_LABELS[backend.kind]}: ${describeError(error)}` };
    }
  }

  override recallStatus(): RecallStatus | null {
    if (!this.backend) return null;
    return { providerLabel: 'Mem0', count: this.lastRecallCount };
  }

  /** Every memory of the user (export); bounded by the request deadline per page. */
  async listMemories(signal?: AbortSignal): Promise<Mem0Hit[]> {
    const backend = this.backend;
    if (!backend) throw new Error(`Mem0 backend not initialized: ${this.initError || 'not started'}.`);
    return this.call('list', (s) => backend.list(this.userId, s), { signal });
  }

  /** The user id reads and writes use (after the gateway ladder). */
  get activeUserId(): string {
    return this.userId;
  }

  /** Background work in flight: queued turn writes, the write running, searches running. */
  get pendingWork(): number {
    return this.writer.pending + (this.slot.isInFlight() ? 1 : 0) + (this.replaying ? 1 : 0);
  }

  /** Turns `syncTurn` skipped because the previous write was still running. */
  get skippedTurns(): number {
    return this.writer.skipped;
  }

  /**
   * Writes accepted since `initialize` that Mem0 has not confirmed: failed, refused by the open
   * breaker, skipped behind a stuck write, or abandoned at shutdown. One this run later delivers
   * from the outbox leaves the count; those the outbox still holds (`writesOnDisk`) are sent by
   * the next start.
   */
  get undeliveredWrites(): number {
    return this.undelivered.total;
  }

  /** ` N write(s) wait in the outbox (…).`, or ''. */
  private diskNote(): string {
    const n = this.writesOnDisk;
    const dropped = this.droppedOverCap;
    return (
      (n > 0
        ? ` ${n} write(s) wait in the outbox (sent once Mem0 answers; the next start sends what is left).`
        : '') + (dropped > 0 ? ` ${dropped} older one(s) dropped over the cap of ${MAX_WAITING_WRITES}.` : '')
    );
  }

  /** Accepted writes on disk that Mem0 has not confirmed yet (this process's outbox). */
  get writesOnDisk(): number {
    return this.outbox?.size ?? 0;
  }

  /** Resolves once every accepted write is on disk (tests, the kill -9 proof). */
  async journaled(): Promise<void> {
    await this.outbox?.flushed();
  }

  /** Wait until queued writes and running searches settled (tests, examples). */
  async idle(timeoutMs = 10_000): Promise<boolean> {
    const [writes, searches] = await Promise.all([this.writer.idle(timeoutMs), this.slot.idle(timeoutMs)]);
    const replay = this.replaying ? await settlesWithin(this.replaying, timeoutMs, this.clock) : true;
    return writes && searches && replay;
  }

  private newBreaker(): CircuitBreaker {
    const config = this.config;
    return new CircuitBreaker({
      threshold: config?.breakerThreshold ?? 5,
      cooldownMs: config?.breakerCooldownMs ?? 120_000,
      isFailure: (error) => error !== CALLER_ABORTED && !isMem0ClientError(error),
      name: 'Mem0',
      clock: this.clock,
      onStateChange: (state) => {
        if (state === 'closed') this.redeliver();
        if (state === 'open') {
          this.logger.warn(
            `Mem0 circuit breaker tripped after ${this.breaker.failures} consecutive failures; pausing Mem0 calls for ${Math.round((config?.breakerCooldownMs ?? 120_000) / 1000)} s.`,
          );
        }
      },
    });
  }

  private newSlot(): PrefetchSlot<string> {
    return new PrefetchSlot<string>({
      concurrency: 'per-key',
      maxAgeTurns: 1,
      clock: this.clock,
      logger: this.logger,
    });
  }

  private newWriter(): TurnWriter {
    return new TurnWriter({
      waitMs: this.config?.syncWaitMs ?? 5000,
      clock: this.clock,
      logger: this.logger,
      onSkip: () => this.undelivered.lost(1, 'turn skipped: the previous write was still running'),
      onUnstuck: () => this.releaseSkipped(),
    });
  }
}

/** How a write is named in counts and warnings. */
function writeKind(request: StoredWrite): 'memory write' | 'turn' {
  return request.metadata?.write_origin === 'builtin_memory_mirror' ? 'memory write' : 'turn';
}

/** The marker a call stopped by our own shutdown reports to the breaker (never counted). */
const CALLER_ABORTED = Symbol('mem0 call aborted by the provider');

/** A tool argument as text; missing, null and non-text values are "". */
function stringArg(value: unknown): string {
  if (typeof value === 'string') return value.trim() === '' ? '' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** mem0.json's patch for setup answers: secrets left out, the backend choice as the reference writes it. */
function mem0JsonPatch(values: Readonly<Record<string, unknown>>, schema: readonly ConfigField[]) {
  const secret = new Set(schema.filter((f) => f.secret).map((f) => f.key));
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (!secret.has(key) && value !== undefined) patch[key] = value;
  }
  if (patch.mode === 'platform') patch.host = '';
  else if (patch.mode === 'selfhosted') {
    patch.mode = 'platform';
    patch.host = typeof patch.host === 'string' ? patch.host.trim().replace(/\/+$/, '') : '';
  }
  return patch;
}
