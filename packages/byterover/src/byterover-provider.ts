import path from 'node:path';
import {
  type ChatMessage,
  type Clock,
  type ConfigField,
  canWrite,
  describeError,
  type Env,
  guardToolCall,
  HealthMonitor,
  type HookOptions,
  type InitContext,
  integerArg,
  type Logger,
  type Outbox,
  MemoryProvider,
  type MemoryTarget,
  type MemoryWriteAction,
  neutralizeMemoryText,
  neutralizeToolResult,
  type PreCompressOptions,
  type PrefetchOptions,
  PrefetchSlot,
  type ProbeResult,
  type ProviderHealth,
  parseToolArgs,
  type RecallStatus,
  requiredString,
  resolveHermesHome,
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
  toolResult,
  UndeliveredWrites,
} from '@hermes-memory/core';
import { BrvCli, type BrvCommand } from './brv/brv-cli';
import {
  answerMatched,
  answerText,
  type BrvAnswer,
  type BrvOutcome,
  readAnswer,
  readSearch,
} from './brv/output';
import {
  BRV_CANDIDATES,
  type ByteroverProviderSettings,
  type ResolvedByteroverSettings,
  resolveByteroverSettings,
} from './byterover-settings';
import { MIN_TEXT_CHARS, mirrorText, preCompressLines, preCompressText, turnText } from './curation-text';
import { openByteroverOutbox, type StoredCurate } from './outbox';
import { MIN_OUTPUT_CHARS, queryPayload, searchPayload, TOOL_NAMES, TOOL_SCHEMAS } from './tools';

/** The longest query brv is asked (the reference's cap). */
export const MAX_QUERY_CHARS = 5000;
/** How long a turn's curate waits for the previous curate before it is skipped. */
export const TURN_CURATE_WAIT_MS = 5000;
/** Turn 1 (background mode) waits at most this long for its recall, whatever the query timeout. */
export const FIRST_TURN_WAIT_MS = 3000;
/** How long shutdown waits for the last curate when the manager gives no shorter deadline. */
export const SHUTDOWN_WAIT_MS = 10_000;
/** The most writes waiting on disk to be curated: past it the oldest are dropped. */
export const MAX_WAITING_CURATES = 1000;

/** What the factory hands the constructor besides the settings (see `createByteroverProvider`). */
export interface ByteroverProviderContext {
  /** The profile's env (process env overlaid with `<home>/.env`); the child's env is built from it. */
  env?: Env;
  providerConfig?: Readonly<Record<string, unknown>>;
  /** The profile root; default `HERMES_HOME` from `env`, else `~/.hermes`. */
  hermesHome?: string;
  /** For tests: the clock the curate wait, shutdown wait and timeouts run on. */
  clock?: Clock;
}

interface Recall {
  text: string;
  count: number;
}

/**
 * ByteRover memory through the `brv` CLI: a context tree of markdown files in a project directory
 * (`<HERMES_HOME>/byterover` by default), curated and queried by brv's own LLM agent.
 *
 * - Every brv call is a child process with a deadline that kills its process group; what brv
 *   printed (`--format json`, NDJSON) decides success, never the exit code.
 * - Recall: `onTurnStart` starts `brv query` for the message in the background (core's
 *   PrefetchSlot); turn 1 waits for it at most 3 s (and the manager's budget), later turns are
 *   served from memory and never wait on a child (decision 0971).
 * - Writes: turns, mirrored memory writes and pre-compression flushes are curated one at a time on
 *   an ordered lane; a turn that waited more than 5 s for the previous curate is skipped, then
 *   curated again from the journal, behind the lane, once brv answers (as a failed curate is);
 *   a newer write the lane reaches meanwhile goes after it, never before.
 * - Tools answer JSON, always; failures show in `health()` and the log, never as exceptions.
 */
export class ByteroverProvider extends MemoryProvider {
  readonly name = 'byterover';

  private readonly settingsInput: ByteroverProviderSettings;
  private readonly clock: Clock;
  private env: Env;
  private hermesHome: string;
  private settings: ResolvedByteroverSettings;
  private cli: BrvCli;
  private logger: Logger = silentLogger;
  private initialized = false;
  private closed = false;
  private writable = false;
  private turnCount = 0;
  private prefetched = false;
  private skippedTurns = 0;
  /** Accepted writes that were never curated (none are held: they are counted and told). */
  private notCurated: UndeliveredWrites;
  /** Accepted writes on disk until brv curated them; the next start curates what is left. */
  private outbox: Outbox<StoredCurate> | undefined;
  /**
   * Journaled writes this run could not curate — the curate failed, or the turn was skipped behind
   * a slow one — by outbox id, oldest first: curated again, one at a time on the lane, once brv
   * answers (at most `MAX_WAITING_CURATES`; the rest wait on disk for the next start). Each was
   * counted in `notCurated` and leaves the count when it is curated. A newer write the lane
   * reaches while older ones wait here (or one is being curated again) joins them, uncounted
   * (`countedIds`), so it is curated after them, never before (decision 0971).
   */
  private toCurateAgain = new Map<string, StoredCurate>();
  /** Ids in `toCurateAgain` (or being curated again) counted in `notCurated`: each once. */
  private countedIds = new Set<string>();
  /** Whether brv's last run succeeded: a turn skipped now is curated again at once only then. */
  private brvAnswering = true;
  /** A redelivery curate is on the lane (one at a time). */
  private redelivering = false;
  /** The write that redelivery curates. */
  private redeliveringId: string | undefined;
  /** Waiting writes dropped (the oldest) because more than `MAX_WAITING_CURATES` waited. */
  private droppedOverCap = 0;
  private lane: SerialQueue;
  /**
   * Counts `initialize` calls: a lane's task checks it still belongs to the run in force before
   * it touches the run's state (an old lane's curate can end after a re-initialize).
   */
  private generation = 0;
  private slot: PrefetchSlot<Recall>;
  /** Aborted at shutdown: running brv children are killed instead of holding the process. */
  private lifetime = new AbortController();
  private readonly monitor = new HealthMonitor();
  private lastRecall: RecallStatus | null = null;

  constructor(settings: ByteroverProviderSettings = {}, context: ByteroverProviderContext = {}) {
    super();
    this.settingsInput = settings;
    this.clock = context.clock ?? systemClock;
    this.env = context.env ?? process.env;
    this.hermesHome = context.hermesHome ?? resolveHermesHome(this.env);
    this.settings = resolveByteroverSettings(
      settings,
      context.providerConfig ?? {},
      this.env,
      this.hermesHome,
    );
    // Resolved now, once: isAvailable() reads the answer without touching the file system.
    this.cli = this.newCli();
    this.lane = new SerialQueue({ name: 'byterover curate', clock: this.clock });
    this.slot = this.newSlot();
    this.notCurated = new UndeliveredWrites({ now: () => this.clock.now(), missed: 'not curated' });
  }

  /** The brv executable was found when the provider was created. No I/O. */
  isAvailable(): boolean {
    return this.cli.executable !== undefined;
  }

  override unavailableReason(): string {
    if (this.isAvailable()) return '';
    return `ByteRover needs the brv CLI ('${this.settings.brvPath}' was not found on PATH or in ~/.brv-cli/bin, /usr/local/bin, ~/.npm-global/bin): npm install -g byterover-cli, or set memory.byterover.brv_path.`;
  }

  /** The brv executable resolved when the provider was created (undefined: not found). No I/O. */
  get brvExecutable(): string | undefined {
    return this.cli.executable;
  }

  /** The project directory whose `.brv/context-tree` holds the memory. */
  get workdir(): string {
    return this.settings.workdir;
  }

  /** The resolved settings (timeouts in ms). */
  get resolvedSettings(): Readonly<ResolvedByteroverSettings> {
    return this.settings;
  }

  initialize(_sessionId: string, context: InitContext): void {
    // Initialized again: the old outbox closes first (not awaited), so the new one takes over its
    // writes (core's handover) and this run curates them, after the old lane's curates ended.
    const previous = this.initialized && !this.closed ? this.lane : undefined;
    // The old lane's running curate ends by its own deadline (its tasks queued behind it see they
    // are stale and return at once): the new lane waits that long, not the new timeout, which a
    // config change may have shortened — else two curates ran at once.
    const previousTimeoutMs = this.settings.curateTimeoutMs;
    this.generation += 1;
    void this.outbox?.close().catch(() => 0);
    this.outbox = undefined;
    this.env = context.env ?? this.env;
    this.hermesHome = context.hermesHome || this.hermesHome;
    this.settings = resolveByteroverSettings(
      this.settingsInput,
      context.providerConfig ?? {},
      this.env,
      this.hermesHome,
    );
    this.logger = context.logger ?? silentLogger;
    this.cli = this.newCli();
    this.turnCount = 0;
    this.prefetched = false;
    this.skippedTurns = 0;
    this.notCurated = new UndeliveredWrites({ now: () => this.clock.now(), missed: 'not curated' });
    this.toCurateAgain = new Map();
    this.countedIds = new Set();
    this.brvAnswering = true;
    this.redelivering = false;
    this.redeliveringId = undefined;
    this.droppedOverCap = 0;
    this.writable = canWrite(context.agentContext);
    this.closed = false;
    this.initialized = true;
    this.lifetime = new AbortController();
    this.lane = new SerialQueue({ name: 'byterover curate', logger: this.logger, clock: this.clock });
    this.slot = this.newSlot();
    if (previous)
      this.lane.push(async () => {
        await previous.drain(previousTimeoutMs);
      }, 'the curates of before');
    // The project directory is created by the first brv call (BrvCli.run), not here. The outbox
    // is a few small files: writes an earlier run left go first on the lane.
    if (this.writable && this.settings.autoExtract && !context.inspectionOnly) this.openOutbox();
  }

  private openOutbox(): void {
    try {
      this.outbox = openByteroverOutbox(this.hermesHome, this.logger);
    } catch (error) {
      this.logger.warn(
        `ByteRover: no outbox (${describeError(error)}); uncurated writes die with the process.`,
      );
      return;
    }
    const earlier = this.outbox.entries();
    if (earlier.length === 0) return;
    this.logger.info(`ByteRover: curating ${earlier.length} write(s) an earlier run could not.`);
    // Not one a curate from before a re-initialize finished meanwhile (its ack reached this outbox).
    for (const entry of earlier)
      this.curateInBackground(`earlier ${entry.data.label}`, entry.data.content, entry.id, () =>
        this.outbox ? this.outbox.has(entry.id) : true,
      );
  }

  /** Journal an accepted write (when the outbox is open); its id, for the acknowledgement. */
  private journal(label: string, content: string): string | undefined {
    const outbox = this.outbox;
    if (!outbox) return undefined;
    try {
      const id = outbox.add([{ label, content }])[0]?.id;
      if (outbox.size > MAX_WAITING_CURATES) {
        // brv down for long: the oldest go (on purpose, counted, told once), so the journal and
        // the next start's replay stay bounded.
        const over = outbox.entries().slice(0, outbox.size - MAX_WAITING_CURATES);
        outbox.ack(over.map((e) => e.id));
        for (const e of over) {
          // A write waiting behind older ones, dropped before it was curated: not curated, now.
          if (this.toCurateAgain.delete(e.id) && !this.countedIds.delete(e.id))
            this.notCurated.lost(1, `${e.data.label}: dropped over the cap`);
          this.countedIds.delete(e.id);
        }
        if (this.droppedOverCap === 0)
          this.logger.warn(
            `ByteRover: more than ${MAX_WAITING_CURATES} writes wait to be curated; dropping the oldest (the count is in health()).`,
          );
        this.droppedOverCap += over.length;
      }
      return id;
    } catch {
      return undefined;
    }
  }

  /** Tools are static, so the manager can read them before initialize. */
  getToolSchemas(): ToolSchema[] {
    return TOOL_SCHEMAS.map((s) => ({ ...s }));
  }

  override systemPromptBlock(): string {
    if (!this.isAvailable() || this.closed) return '';
    return [
      '# ByteRover Memory',
      'Active. Persistent knowledge tree with hierarchical context.',
      `Use ${TOOL_NAMES.query} to search past knowledge, ${TOOL_NAMES.curate} to store important facts, ${TOOL_NAMES.status} to check state (${TOOL_NAMES.search} for a fast keyword search).`,
    ].join('\n');
  }

  // ── Recall ───────────────────────────────────────────────────────────────────────────────────

  /** Starts `brv query` for this turn's message, so `prefetch` finds it ready. */
  override onTurnStart(turn: number, message: string, _info?: TurnStartInfo): void {
    this.slot.setTurn(Math.max(0, turn));
    if (this.settings.prefetchMode === 'background') this.startRecall(message);
  }

  /**
   * `## ByteRover Context` and brv's answer for this message, or ''. Turn 1 waits for it at most
   * 3 s (per-query mode: every turn, the query timeout), within the signal; later turns serve what
   * is ready — this message's answer, else the previous one — and never wait on a child.
   */
  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    if (this.closed || !this.isAvailable()) return '';
    const key = recallQuery(query);
    if (key.length < MIN_TEXT_CHARS) return '';
    const first = !this.prefetched;
    this.prefetched = true;
    let recall = this.slot.take(key);
    if (recall === undefined && (first || this.settings.prefetchMode === 'per-query')) {
      // Turn 1 waits at most 3 s (background mode; the query itself runs on and serves turn 2);
      // per-query mode waits the query timeout every turn, as the reference does. The manager's
      // signal cuts both shorter.
      const wait =
        this.settings.prefetchMode === 'per-query'
          ? this.settings.queryTimeoutMs
          : Math.min(this.settings.queryTimeoutMs, FIRST_TURN_WAIT_MS);
      this.startRecall(key);
      recall = await this.slot.join(key, wait, options?.signal);
    } else if (recall === undefined) {
      // For a host that skips onTurnStart: ready for the next turn. Started after this call
      // returns, so spawning the child never counts against the turn.
      setImmediate(() => this.startRecall(key));
      recall = this.slot.take();
    }
    this.lastRecall = recall && recall.count > 0 ? { providerLabel: 'ByteRover', count: recall.count } : null;
    return recall?.text ?? '';
  }

  /** No-op, as in the reference: recall starts at `onTurnStart` (or in `prefetch`). */
  override queuePrefetch(_query: string, _options?: PrefetchOptions): void {}

  override recallStatus(): RecallStatus | null {
    return this.lastRecall;
  }

  // ── Writes ───────────────────────────────────────────────────────────────────────────────────

  /** Queue the turn's curate and return at once. */
  override syncTurn(userContent: string, assistantContent: string, _options?: SyncTurnOptions): void {
    this.turnCount += 1;
    if (!this.writesEnabled('sync turn')) return;
    if (userContent.trim().length < MIN_TEXT_CHARS) return;
    const content = this.guard(turnText(userContent, assistantContent), 'a turn');
    if (content === null) return;
    const queuedAt = this.clock.now();
    const label = `turn ${this.turnCount}`;
    const id = this.journal(label, content);
    this.curateInBackground(label, content, id, () => {
      const waited = this.clock.now() - queuedAt;
      if (waited <= TURN_CURATE_WAIT_MS) return true;
      this.skippedTurns += 1;
      this.notCurated.lost(1, 'turn skipped: the previous curate was still running');
      if (id !== undefined) this.countedIds.add(id);
      this.logger.warn(
        `ByteRover: a turn was not curated — the previous curate was still running after ${Math.round(waited / 1000)} s (${this.skippedTurns} skipped this session).`,
      );
      // Not dropped: curated again from the journal, behind what the lane holds — now if brv
      // answered the slow curate, else once it answers again.
      this.keepToCurateAgain(id, { label, content });
      if (this.brvAnswering) this.redeliverNext();
      return false;
    });
  }

  /** Mirror builtin MEMORY.md / USER.md additions and replacements (brv's curation merges them). */
  override onMemoryWrite(action: MemoryWriteAction, target: MemoryTarget, content: string): void {
    if (action !== 'add' && action !== 'replace') return;
    if (content.trim() === '' || !this.writesEnabled('memory mirror')) return;
    const text = this.guard(mirrorText(target, content), 'a mirrored memory write');
    if (text !== null)
      this.curateInBackground(`mirror ${action}`, text, this.journal(`mirror ${action}`, text));
  }

  /** Curate the tail of the conversation before compression discards it; always returns ''. */
  override onPreCompress(messages: readonly ChatMessage[], _options?: PreCompressOptions): string {
    if (messages.length === 0 || !this.writesEnabled('pre-compression flush')) return '';
    const lines = preCompressLines(messages).filter(
      (line) => this.guard(line, 'a pre-compression line') !== null,
    );
    const text = preCompressText(lines);
    if (text !== '') {
      const content = neutralizeMemoryText(text);
      const id = this.journal('pre-compression flush', content);
      this.curateInBackground('pre-compression flush', content, id, undefined, () =>
        this.logger.info(`ByteRover pre-compression flush: ${lines.length} messages`),
      );
    }
    return '';
  }

  /** A new conversation: recall prepared for the old one is dropped, even if it arrives later. */
  override onSessionSwitch(_newSessionId: string, options: SessionSwitchOptions): undefined {
    if (options.reset) {
      this.slot.newGeneration();
      this.turnCount = 0;
    }
    return undefined;
  }

  // ── Tools ────────────────────────────────────────────────────────────────────────────────────

  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    const result = await guardToolCall(async () => {
      if (this.closed) return toolError('ByteRover memory is shut down.');
      const signal = this.signal(options?.signal);
      switch (toolName) {
        case TOOL_NAMES.query:
          return this.queryTool(args, signal);
        case TOOL_NAMES.curate:
          return this.curateTool(args, signal);
        case TOOL_NAMES.status:
          return this.statusTool(signal);
        case TOOL_NAMES.search:
          return this.searchTool(args, signal);
        default:
          return toolError(`Unknown tool: ${toolName}`);
      }
    });
    // Answers quote stored text: nothing in them may open, close or imitate the recall fence.
    return neutralizeToolResult(result);
  }

  private async queryTool(args: unknown, signal: AbortSignal): Promise<string> {
    const query = requiredString(parseToolArgs(args), 'query', 'query is required');
    const outcome = await this.brv('query', recallQuery(query), this.settings.queryTimeoutMs, signal);
    if (!outcome.ok) return toolError(outcome.error || 'Query failed');
    return toolResult(queryPayload(readAnswer(outcome.events, outcome.data)));
  }

  private async curateTool(args: unknown, signal: AbortSignal): Promise<string> {
    const content = requiredString(parseToolArgs(args), 'content', 'content is required');
    if (!this.writable)
      return toolError('ByteRover memory is read-only in this context (only the primary agent writes).');
    // Curated text comes back into later prompts: refuse injection and exfiltration payloads.
    const scan = scanWrite(content);
    if (!scan.ok) return toolError(scan.message);
    const outcome = await this.brv(
      'curate',
      neutralizeMemoryText(content),
      this.settings.curateTimeoutMs,
      signal,
    );
    if (!outcome.ok) return toolError(outcome.error || 'Curate failed');
    return toolResult({ result: 'Memory curated successfully.' });
  }

  private async statusTool(signal: AbortSignal): Promise<string> {
    const outcome = await this.brv('status', undefined, this.settings.statusTimeoutMs, signal);
    if (!outcome.ok) return toolError(outcome.error || 'Status check failed');
    return toolResult({ status: outcome.data });
  }

  private async searchTool(args: unknown, signal: AbortSignal): Promise<string> {
    const parsed = parseToolArgs(args);
    const query = requiredString(parsed, 'query', 'query is required');
    const limit = integerArg(parsed, 'limit', { fallback: 10, min: 1, max: 50 });
    const outcome = await this.brv('search', recallQuery(query), this.settings.queryTimeoutMs, signal, [
      '--limit',
      String(limit),
    ]);
    if (!outcome.ok) return toolError(outcome.error || 'Search failed');
    const { hits, totalFound } = readSearch(outcome.data);
    return toolResult(searchPayload(hits, totalFound));
  }

  // ── Health, setup, lifecycle ─────────────────────────────────────────────────────────────────

  override health(): ProviderHealth | null {
    const health = this.monitor.snapshot();
    const lost = this.notCurated;
    // Until a curate succeeds again, the writes lost are the news (the monitor may be ok: a
    // query can succeed while curates fail, e.g. brv's LLM refusing only curation).
    if (lost.sinceDelivered > 0) {
      const reason = `the last ${lost.sinceDelivered} write(s) were not curated (${lost.lastReason}).${lost.note()}${this.diskNote()}`;
      if (health.status === 'down') return { ...health, reason: `${health.reason ?? 'down'}; ${reason}` };
      return { ...health, status: 'degraded', reason, since: lost.since };
    }
    if (health.status === 'unknown') return null;
    return lost.total > 0 && health.status !== 'ok'
      ? { ...health, reason: `${health.reason ?? ''}${lost.note()}`.trim() }
      : health;
  }

  /** ` N write(s) wait in the outbox (…).`, or ''. */
  private diskNote(): string {
    const n = this.writesOnDisk;
    const dropped = this.droppedOverCap;
    return (
      (n > 0
        ? ` ${n} write(s) wait in the outbox (curated once brv answers; the next start curates what is left).`
        : '') +
      (dropped > 0 ? ` ${dropped} older one(s) dropped over the cap of ${MAX_WAITING_CURATES}.` : '')
    );
  }

  /** Accepted writes on disk that brv has not curated yet (this process's outbox). */
  get writesOnDisk(): number {
    return this.outbox?.size ?? 0;
  }

  /** Resolves once every accepted write is on disk (tests, the kill -9 proof). */
  async journaled(): Promise<void> {
    await this.outbox?.flushed();
  }

  /**
   * Writes accepted since `initialize` that are not curated (failed, skipped, abandoned); one
   * curated again later in the run leaves the count.
   */
  get notCuratedWrites(): number {
    return this.notCurated.total;
  }

  /** `brv status` once (15 s, the signal): which brv answered, and where. */
  override async probe(options?: HookOptions): Promise<ProbeResult> {
    if (!this.isAvailable()) return { status: 'failed', message: this.unavailableReason() };
    const started = this.clock.now();
    const signal = options?.signal ?? new AbortController().signal;
    const outcome = await this.brv('status', undefined, this.settings.statusTimeoutMs, signal);
    const latencyMs = this.clock.now() - started;
    if (!outcome.ok) return { status: 'failed', message: outcome.error, latencyMs };
    const version = typeof outcome.data.cliVersion === 'string' ? ` ${outcome.data.cliVersion}` : '';
    return { status: 'ok', message: `brv${version} answered for ${this.settings.workdir}.`, latencyMs };
  }

  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'api_key',
        description: 'ByteRover API key (optional, for cloud sync)',
        secret: true,
        envVar: 'BRV_API_KEY',
        url: 'https://app.byterover.dev',
      },
      {
        key: 'auto_extract',
        description: 'Automatically curate completed turns and compression/memory hooks',
        default: 'true',
        choices: ['true', 'false'],
      },
      {
        key: 'workdir',
        description:
          'Project directory of the context tree (default <HERMES_HOME>/byterover; share one across profiles)',
        type: 'text',
      },
      {
        key: 'curate_timeout',
        description: 'Seconds a brv curate may run',
        type: 'integer',
        default: 120,
        minimum: 1,
        maximum: 3600,
      },
      {
        key: 'timeout_query',
        description: 'Seconds a brv query may run',
        type: 'number',
        default: 10,
        minimum: 0.01,
        maximum: 3600,
      },
      {
        key: 'prefetch_mode',
        description:
          'background: recall starts at turn start and never holds later turns; per-query: wait every turn',
        default: 'background',
        choices: ['background', 'per-query'],
      },
      { key: 'brv_path', description: 'The brv executable (default: brv on PATH)', type: 'text' },
    ];
  }

  /** The context tree, when it lives outside the profile home (a shared `workdir`). */
  override backupPaths(): string[] {
    const relative = path.relative(this.hermesHome, this.settings.workdir);
    const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
    return inside ? [] : [path.join(this.settings.workdir, '.brv')];
  }

  /** Wait for queued curates without closing (`MemoryManager.flushPending()`). */
  override flush(timeoutMs?: number): Promise<boolean> {
    return this.lane.drain(timeoutMs);
  }

  /**
   * Wait up to 10 s (or the manager's shorter deadline) for the curates in flight, then stop: what
   * still runs is killed with its process group. Safe to call twice.
   */
  override async shutdown(options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lane.close();
    const budget = Math.min(SHUTDOWN_WAIT_MS, options?.timeoutMs ?? SHUTDOWN_WAIT_MS);
    const drained = await waitUntil(this.lane.drain(budget), options?.signal);
    let abandoned = 0;
    if (!drained) {
      const dropped = this.lane.abandon();
      abandoned = this.lane.size + dropped.length;
      this.logger.warn(
        `ByteRover: shutdown did not wait for ${this.lane.size} running and ${dropped.length} queued curate(s).`,
      );
    }
    // A write curated again was counted when it first failed or was skipped: not again here.
    const again = this.redeliveringId;
    if (abandoned > 0 && again !== undefined && this.countedIds.has(again)) abandoned -= 1;
    // Counted before the running curate is killed below (its 'aborted' outcome is not counted).
    this.notCurated.lost(abandoned, 'abandoned at shutdown');
    if (again !== undefined) this.countedIds.add(again);
    // Writes waiting behind an uncurated one stay on disk for the next start, not curated.
    this.countWaiting('waiting behind an uncurated write at shutdown');
    const outbox = this.outbox;
    this.outbox = undefined;
    const onDisk = outbox ? await outbox.close().catch(() => 0) : 0;
    if (this.notCurated.total > 0 || onDisk > 0)
      this.logger.warn(
        `ByteRover: ${this.notCurated.total} write(s) accepted this session were not curated (${abandoned} abandoned at shutdown; last: ${this.notCurated.lastReason || 'none this session'}); ${onDisk} stay on disk and are curated at the next start${this.droppedOverCap > 0 ? `, ${this.droppedOverCap} older one(s) were dropped over the cap of ${MAX_WAITING_CURATES}` : ''}.`,
      );
    this.lifetime.abort(new Error('ByteRover memory shut down.'));
    this.slot.close();
  }

  /** Queued or running background work (curates and recall). */
  get pendingWork(): number {
    return this.lane.size + (this.slot.isInFlight() ? 1 : 0);
  }

  /** Resolves when every queued curate and the running recall have finished. */
  async idle(): Promise<void> {
    await this.lane.drain();
    await this.slot.idle(this.settings.queryTimeoutMs + 5000);
  }

  // ── Internals ────────────────────────────────────────────────────────────────────────────────

  private newCli(): BrvCli {
    return new BrvCli({
      brvPath: this.settings.brvPath,
      candidates: BRV_CANDIDATES,
      env: this.env,
      apiKey: this.settings.apiKey,
      autoUpdate: this.settings.autoUpdate,
      cwd: this.settings.workdir,
      clock: this.clock,
    });
  }

  private newSlot(): PrefetchSlot<Recall> {
    return new PrefetchSlot<Recall>({
      clock: this.clock,
      logger: this.logger,
      maxAgeTurns: 2,
      hungAfterMs: this.settings.queryTimeoutMs * 2,
    });
  }

  private startRecall(message: string): void {
    if (this.closed || !this.initialized || !this.isAvailable()) return;
    const query = recallQuery(message);
    if (query.length < MIN_TEXT_CHARS) return;
    this.slot.start(
      query,
      async (signal) => {
        const outcome = await this.brv('query', query, this.settings.queryTimeoutMs, this.signal(signal));
        if (!outcome.ok) throw new Error(outcome.error);
        return formatRecall(readAnswer(outcome.events, outcome.data));
      },
      { timeoutMs: this.settings.queryTimeoutMs + 1000 },
    );
  }

  /** One brv call, its outcome recorded in the health monitor. */
  private async brv(
    command: BrvCommand,
    text: string | undefined,
    timeoutMs: number,
    signal: AbortSignal,
    flags: readonly string[] = [],
  ): Promise<BrvOutcome> {
    const outcome = await this.cli.run(command, text, { timeoutMs, signal }, flags);
    this.recordOutcome(command, outcome);
    if (outcome.ok) this.redeliverNext();
    return outcome;
  }

  /** A brv run's outcome, into the health monitor and `brvAnswering` (our own aborts: neither). */
  private recordOutcome(command: BrvCommand, outcome: BrvOutcome): void {
    if (outcome.ok) {
      this.brvAnswering = true;
      this.monitor.recordSuccess();
      return;
    }
    if (outcome.kind === 'aborted') return;
    this.brvAnswering = false;
    if (outcome.kind === 'not-found') this.monitor.markDown(outcome.error);
    else this.monitor.recordFailure(`brv ${command}: ${outcome.error}`);
  }

  /** Automatic writes happen only for the primary agent, with auto_extract on, while running. */
  private writesEnabled(what: string): boolean {
    if (this.closed || !this.initialized || !this.writable) return false;
    if (!this.settings.autoExtract) {
      this.logger.debug(`ByteRover ${what} skipped (auto_extract disabled)`);
      return false;
    }
    return true;
  }

  /** A curate on the ordered lane. `shouldRun` may skip it when its turn comes. */
  private curateInBackground(
    label: string,
    content: string,
    id: string | undefined,
    shouldRun?: () => boolean,
    onDone?: () => void,
  ): void {
    const generation = this.generation;
    const outbox = this.outbox;
    this.lane.push(async () => {
      if (generation !== this.generation) {
        // Initialized again before its turn: the outbox that took over holds the write and its
        // run curates it; one never journaled is curated by that run, behind its lane.
        if (id === undefined && !this.closed) this.curateInBackground(label, content, undefined);
        return;
      }
      // A skipped write stays in the outbox until it is curated again (see `shouldRun`).
      if (shouldRun && !shouldRun()) return;
      if (id !== undefined && (this.toCurateAgain.size > 0 || this.redelivering)) {
        // Older writes wait to be curated again (the lane is in order, so any waiting is older):
        // this one goes after them, from the journal — brv's LLM would let an older fact curated
        // last overwrite this newer one. The oldest is tried now, so brv is asked once per write.
        if (!this.keepToCurateAgain(id, { label, content }))
          this.notCurated.lost(1, `${label}: not kept to be curated behind older writes`);
        this.redeliverNext();
        return;
      }
      const outcome = await this.brv('curate', content, this.settings.curateTimeoutMs, this.lifetime.signal);
      if (generation !== this.generation) {
        // Ran across a re-initialize: the acknowledgement passes to the outbox that took over;
        // the new run's state is not this curate's.
        if (outcome.ok && id !== undefined) outbox?.ack([id]);
        return;
      }
      if (outcome.ok) {
        if (id !== undefined) this.outbox?.ack([id]);
        this.notCurated.delivered();
        onDone?.();
      } else if (outcome.kind !== 'aborted') {
        if (id !== undefined) this.countedIds.add(id);
        this.keepToCurateAgain(id, { label, content });
        this.notCurated.lost(1, `${label}: ${outcome.error}`);
        this.logger.warn(`ByteRover ${label} failed: ${outcome.error}`);
      }
    }, label);
  }

  /**
   * A journaled write this run could not curate, kept to be curated again — unless the cap is
   * reached or it already left the journal (dropped over the cap while it ran).
   */
  private keepToCurateAgain(id: string | undefined, write: StoredCurate): boolean {
    if (id === undefined || this.toCurateAgain.size >= MAX_WAITING_CURATES) return false;
    if (!this.outbox?.has(id)) return false;
    this.toCurateAgain.set(id, write);
    return true;
  }

  /**
   * Writes waiting behind an older one that brv did not curate are not curated either: counted
   * now (once each), as the failed one was; one curated later leaves the count.
   */
  private countWaiting(reason: string): void {
    for (const [id, write] of this.toCurateAgain) {
      if (this.countedIds.has(id)) continue;
      this.countedIds.add(id);
      this.notCurated.lost(1, `${write.label}: ${reason}`);
    }
  }

  /**
   * brv answered: the oldest write that failed or was skipped earlier in this run is curated
   * again, behind what the lane already holds; each success queues the next, the first failure
   * stops (the next success resumes). One at a time, so new turns wait behind one curate at most,
   * as ever; a write the lane reaches while this runs joins the waiting ones (journal order).
   */
  private redeliverNext(): void {
    if (this.redelivering || this.closed || this.toCurateAgain.size === 0) return;
    const [id, write] = this.toCurateAgain.entries().next().value as [string, StoredCurate];
    this.toCurateAgain.delete(id);
    this.redelivering = true;
    this.redeliveringId = id;
    const generation = this.generation;
    const outbox = this.outbox;
    this.lane.push(async () => {
      let ok = false;
      let mine = generation === this.generation;
      try {
        if (this.closed || !mine) return;
        const outcome = await this.cli.run('curate', write.content, {
          timeoutMs: this.settings.curateTimeoutMs,
          signal: this.lifetime.signal,
        });
        mine = generation === this.generation;
        if (!mine) {
          // Ran across a re-initialize: only the acknowledgement goes (to the outbox that took
          // over); the in-progress flag, the waiting writes and the counts are the new run's.
          if (outcome.ok) outbox?.ack([id]);
          return;
        }
        ok = outcome.ok;
        this.recordOutcome('curate', outcome);
        if (outcome.ok) {
          this.outbox?.ack([id]);
          // Counted when it failed or was skipped: curated after all, it leaves the count.
          if (this.countedIds.delete(id)) this.notCurated.recovered(1);
          this.notCurated.delivered();
        } else if (outcome.kind !== 'aborted') {
          if (!this.countedIds.has(id)) {
            // A write that waited behind older ones, tried now for the first time.
            this.countedIds.add(id);
            this.notCurated.lost(1, `${write.label}: ${outcome.error}`);
          }
          this.countWaiting(`held behind an uncurated write (${outcome.error})`);
        }
      } finally {
        if (mine) {
          // Back in its place (oldest first) unless curated; counted when it first failed, not again.
          if (!ok) this.toCurateAgain = new Map([[id, write], ...this.toCurateAgain]);
          this.redelivering = false;
          this.redeliveringId = undefined;
          if (ok) this.redeliverNext();
        }
      }
    }, `again ${write.label}`);
  }

  /** `text` neutralised, or null (logged) when the write scanner blocks it. */
  private guard(text: string, what: string): string | null {
    const scan = scanWrite(text);
    if (!scan.ok) {
      this.logger.warn(`ByteRover did not curate ${what}: ${scan.message}`);
      return null;
    }
    return neutralizeMemoryText(text);
  }

  /** The caller's signal joined with the provider's lifetime. */
  private signal(extra?: AbortSignal): AbortSignal {
    return extra ? AbortSignal.any([extra, this.lifetime.signal]) : this.lifetime.signal;
  }
}

/** The query brv is asked: trimmed and capped at 5000 characters. */
export function recallQuery(text: string): string {
  return text.trim().slice(0, MAX_QUERY_CHARS).trim();
}

/**
 * The recall block: `## ByteRover Context` and the answer (brv's source footer dropped), fence
 * markup escaped. Nothing when the answer is too short to say anything, or when nothing in the
 * tree matched — brv then answers that the topic is not covered, which is not worth a place in
 * the prompt (decision 0971).
 */
export function formatRecall(answer: BrvAnswer): Recall {
  const text = answerText(answer);
  if (text.length <= MIN_OUTPUT_CHARS || !answerMatched(answer)) return { text: '', count: 0 };
  return {
    text: `## ByteRover Context\n${neutralizeMemoryText(text)}`,
    count: answer.matchedDocs && answer.matchedDocs.length > 0 ? answer.matchedDocs.length : 1,
  };
}

/** Resolves with `work`'s answer, or false as soon as `signal` aborts. */
async function waitUntil(work: Promise<boolean>, signal?: AbortSignal): Promise<boolean> {
  if (!signal) return work;
  if (signal.aborted) return false;
  let onAbort = () => {};
  const aborted = new Promise<boolean>((resolve) => {
    onAbort = () => resolve(false);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
