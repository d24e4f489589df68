import {
  type Clock,
  type ConfigField,
  canWrite,
  describeError,
  type Env,
  guardToolCall,
  HealthMonitor,
  type HookOptions,
  type InitContext,
  type Logger,
  MemoryProvider,
  neutralizeToolResult,
  type PrefetchOptions,
  PrefetchSlot,
  type ProbeResult,
  type ProviderHealth,
  parseToolArgs,
  type RecallStatus,
  requiredString,
  type SessionSwitchOptions,
  type ShutdownOptions,
  silentLogger,
  systemClock,
  type ToolCallOptions,
  type ToolSchema,
  type TurnStartInfo,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import {
  type HivemindProviderSettings,
  hasNotebook,
  missingConnection,
  type ResolvedHivemindSettings,
  resolveHivemindSettings,
} from './hivemind-settings';
import { MatrixClient } from './matrix/client';
import { NotebookClient, type NotebookEntry } from './notebook';
import { addNote, runPeerTool } from './peer-tools';
import { PeerDirectory } from './peers';
import {
  formatNotebookHint,
  formatRoster,
  NOTEBOOK_TOOL_SCHEMA,
  systemPromptBlock,
  TOOL_SCHEMAS,
  TOOLS,
} from './prompt';
import { SparkEngine } from './sparks';

/** The slot key of the background sync whose roster the next turn serves. */
const ROSTER = 'roster';
/** The slot key of the notebook search for a turn's message. */
const NOTEBOOK = 'notebook';
/** Characters of a `hivemind_search_notebook` query. */
const MAX_TOOL_QUERY = 500;

/** What the factory hands the constructor besides the settings (see `createHivemindProvider`). */
export interface HivemindProviderContext {
  env?: Env;
  providerConfig?: Readonly<Record<string, unknown>>;
  /** Time for every deadline, wait and timestamp (tests inject a `ManualClock`). Default the system clock. */
  clock?: Clock;
}

/**
 * Peer awareness (the reference's hivemind, §5): other agents met through introductions, their
 * messages, and introductions of your own, over the Matrix client-server API. The homeserver is
 * the database — peer metadata in room account data, introductions and messages in room
 * timelines — so the provider keeps no files and a restart rebuilds everything from the server.
 *
 * It is made to run as a read-only **secondary** beside any canonical provider (decision 0130): it
 * takes none of the conversation's writes, only adds its roster to recall and its tools.
 *
 * - One `GET /sync?timeout=0` per turn, in the background (a `PrefetchSlot`): `prefetch` serves the
 *   roster the previous sync built and schedules the next one for when the turn yields to the
 *   event loop (its request is never built inside the turn); only the first turn waits, at most
 *   `firstSyncWaitMs`, for the sync `initialize` started. Invites are joined on sync.
 * - Tools sync before answering (bounded by the manager's signal), answer JSON always, and
 *   neutralise the fence in everything peers wrote; what is sent passes core's write scanner.
 * - With a notebook URL (opt-in), each turn's message is searched in the shared Hermes notebook
 *   in the background (started at turn start); recall says how many entries may be relevant and
 *   `hivemind_search_notebook` reads them. It works without a Matrix account.
 */
export class HivemindProvider extends MemoryProvider {
  readonly name = 'hivemind';

  private readonly settingsInput: HivemindProviderSettings;
  private settings: ResolvedHivemindSettings;
  private readonly clock: Clock;
  private client: MatrixClient | null = null;
  private notebook: NotebookClient | null = null;
  private directory: PeerDirectory | null = null;
  /** Summaries and suggestions; it calls the model only when the agent handed one (`InitContext.llm`). */
  private sparks: SparkEngine | null = null;
  private logger: Logger = silentLogger;
  private writable = false;
  private closed = false;
  /** Runs the background sync (single flight, session generations, hung-request reaping). */
  private slot: PrefetchSlot<true>;
  /** Runs the notebook search of a turn's message; its result is served once. */
  private notebookSlot: PrefetchSlot<NotebookEntry[]>;
  /** Set when `onTurnStart` started this turn's search (else `prefetch` starts one). */
  private searchedThisTurn = false;
  /** Whether a prefetch has run since initialise (only the first one may wait). */
  private prefetched = false;
  /** Set when the next turn's sync was asked for while one was already running. */
  private syncAgain = false;
  /** Background work waiting for the turn to yield to the event loop (see `schedule`). */
  private scheduled: Scheduled | null = null;
  private lifetime = new AbortController();
  private readonly monitor: HealthMonitor;
  private readonly notebookMonitor: HealthMonitor;
  private lastRecall: RecallStatus | null = null;

  constructor(settings: HivemindProviderSettings = {}, context: HivemindProviderContext = {}) {
    super();
    this.settingsInput = settings;
    this.clock = context.clock ?? systemClock;
    this.settings = resolveHivemindSettings(settings, context.providerConfig, context.env ?? process.env);
    this.monitor = new HealthMonitor({ clock: this.clock });
    this.notebookMonitor = new HealthMonitor({ clock: this.clock });
    this.slot = new PrefetchSlot({ clock: this.clock });
    this.notebookSlot = new PrefetchSlot({ clock: this.clock });
  }

  /** Synchronous and free of I/O: the Matrix trio is set, or a notebook URL is (§5.11.1). */
  isAvailable(): boolean {
    return this.settings.enabled && (this.hasMatrix() || hasNotebook(this.settings));
  }

  override unavailableReason(): string {
    if (!this.settings.enabled) return 'Hivemind is disabled (enabled: false).';
    if (this.isAvailable()) return '';
    return `Hivemind needs a Matrix account (set ${missingConnection(this.settings).join(', ')}) or a notebook (set HERMES_URL).`;
  }

  /** Builds the client and starts the first sync in the background; never waits for the server. */
  async initialize(_sessionId: string, context: InitContext): Promise<void> {
    this.settings = resolveHivemindSettings(
      this.settingsInput,
      context.providerConfig,
      context.env ?? process.env,
    );
    this.logger = context.logger ?? silentLogger;
    this.writable = canWrite(context.agentContext);
    this.closed = false;
    this.lifetime = new AbortController();
    this.slot = new PrefetchSlot({
      clock: this.clock,
      logger: this.logger,
      // A sync with the spark engine's model calls may take a while; only a real hang is reaped.
      hungAfterMs: Math.max(this.settings.timeoutMs * (this.settings.maxRetries + 2), 120_000),
    });
    this.notebookSlot = new PrefetchSlot({
      clock: this.clock,
      logger: this.logger,
      hungAfterMs: this.settings.notebookTimeoutMs * (this.settings.maxRetries + 2),
    });
    this.searchedThisTurn = false;
    this.prefetched = false;
    this.notebook = hasNotebook(this.settings)
      ? new NotebookClient({
          url: this.settings.notebookUrl,
          key: this.settings.notebookKey,
          timeoutMs: this.settings.notebookTimeoutMs,
          maxRetries: this.settings.maxRetries,
          health: this.notebookMonitor,
          clock: this.clock,
        })
      : null;
    const missing = missingConnection(this.settings);
    if (missing.length > 0) {
      this.client = null;
      this.directory = null;
      this.sparks = null;
      this.logger.warn(`Hivemind: peer tools are unavailable until ${missing.join(', ')} are set.`);
      return;
    }
    this.client = new MatrixClient({
      homeserver: this.settings.homeserver,
      userId: this.settings.userId,
      accessToken: this.settings.accessToken,
      timeoutMs: this.settings.timeoutMs,
      maxRetries: this.settings.maxRetries,
      health: this.monitor,
      clock: this.clock,
    });
    this.directory = new PeerDirectory(this.client, this.clock, this.logger);
    const llm = this.settings.sparks ? (context.llm ?? null) : null;
    this.sparks = new SparkEngine(this.client, llm, () => this.clock.now(), this.logger);
    this.startSync();
  }

  /** The peer tools (unless only the notebook is configured) and, with a notebook, its search. */
  getToolSchemas(): ToolSchema[] {
    const notebookOnly = !this.hasMatrix() && hasNotebook(this.settings);
    return [
      ...(notebookOnly ? [] : TOOL_SCHEMAS),
      ...(hasNotebook(this.settings) ? [NOTEBOOK_TOOL_SCHEMA] : []),
    ].map((schema) => structuredClone(schema));
  }

  override systemPromptBlock(): string {
    if (this.closed) return '';
    return systemPromptBlock({ peers: this.directory !== null, notebook: this.notebook !== null });
  }

  /** The turn's number for the slots, and the notebook search of its message, in the background. */
  override onTurnStart(turn: number, message: string, _info?: TurnStartInfo): void {
    this.slot.setTurn(turn);
    this.notebookSlot.setTurn(turn);
    this.startNotebookSearch(message);
    this.searchedThisTurn = true;
  }

  /**
   * The roster as the background syncs left it and the notebook hint of the last finished search
   * (from memory, no I/O); the next turn's sync starts once this turn yields. Only the first prefetch
   * waits — for the peers (not the spark engine) and its notebook search — at most
   * `firstSyncWaitMs` (and the manager's signal). A failing notebook only leaves its line out.
   */
  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    if (this.closed) return '';
    const directory = this.directory;
    const sparks = this.sparks;
    // Only the first prefetch waits; a homeserver that failed the first sync does not make every
    // later turn wait again (the tools still sync on demand).
    const first = !this.prefetched;
    this.prefetched = true;
    // A host that skipped onTurnStart: this turn's message is searched (served next turn; the
    // first turn waits for it).
    if (!this.searchedThisTurn) {
      if (first) this.startNotebookSearch(query);
      else this.schedule({ search: query });
    }
    this.searchedThisTurn = false;
    const waits: Promise<unknown>[] = [];
    if (directory) {
      // What the background sync brought in is already in the directory; its completion is consumed.
      this.slot.take(ROSTER);
      if (first && !directory.loaded) {
        this.startSync();
        waits.push(directory.waitForFirstRefresh(this.settings.firstSyncWaitMs, options?.signal));
      }
    }
    let found: NotebookEntry[] | undefined;
    if (this.notebook) {
      if (!first) found = this.notebookSlot.take(NOTEBOOK);
      else
        waits.push(
          this.notebookSlot.join(NOTEBOOK, this.settings.firstSyncWaitMs, options?.signal).then((entries) => {
            found = entries;
          }),
        );
    }
    await Promise.all(waits);
    if (this.closed) return '';
    const parts: string[] = [];
    let count = 0;
    if (directory && sparks) {
      this.schedule({ sync: true });
      if (directory.loaded) {
        const peers = directory.peers();
        count += peers.length;
        const unread = directory.unreadByPeer();
        parts.push(formatRoster(peers, (peer) => unread.get(peer.peer_id) ?? 0, sparks.pending()));
      }
    }
    if (found && found.length > 0) {
      count += found.length;
      parts.push(formatNotebookHint(found.length));
    }
    this.lastRecall = count > 0 ? { providerLabel: 'Hivemind', count } : null;
    return parts.filter(Boolean).join('\n');
  }

  /**
   * The manager's after-turn hook: the next turn's sync starts now — or, when one is already
   * running (started as this turn began), runs again after it, so the next turn sees what happened
   * during this one.
   */
  override queuePrefetch(_query: string, _options?: PrefetchOptions): void {
    if (this.slot.isInFlight(ROSTER)) this.syncAgain = true;
    this.startSync();
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall;
  }

  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    const result = await guardToolCall(async () => {
      if (!Object.values(TOOLS).includes(toolName as never))
        return toolError(`Unknown tool '${toolName}' for the hivemind provider.`);
      if (this.closed) return toolError('Hivemind is not running.');
      // The notebook needs no Matrix account (the reference's "works without Matrix").
      if (toolName === TOOLS.searchNotebook)
        return this.searchNotebookTool(parseToolArgs(args), options?.signal);
      const client = this.client;
      const directory = this.directory;
      const sparks = this.sparks;
      if (!client || !directory || !sparks) {
        const missing = missingConnection(this.settings);
        const why = !this.settings.enabled
          ? 'Hivemind is disabled (enabled: false).'
          : missing.length > 0
            ? `Hivemind needs a Matrix account: set ${missing.join(', ')}.`
            : 'Hivemind is not initialised.';
        return toolError(`Peer tools are unavailable: ${why}`);
      }
      const parsed = parseToolArgs(args);
      const signal = this.signal(options?.signal);
      const note = await this.freshen(directory, signal);
      const answer = await runPeerTool(
        toolName,
        parsed,
        { client, directory, sparks, writable: this.writable, messageLimit: this.settings.messageLimit },
        signal,
      );
      return note ? addNote(answer, note) : answer;
    });
    // Peers wrote most of what tools return: nothing in it may open, close or imitate the fence.
    return neutralizeToolResult(result);
  }

  /** A new conversation: a roster prepared for the old one is dropped. */
  override onSessionSwitch(_newSessionId: string, options: SessionSwitchOptions): undefined {
    if (options.reset) {
      // A search scheduled for the old conversation's message is not started in the new one.
      if (this.scheduled) this.scheduled.search = undefined;
      this.slot.newGeneration();
      this.notebookSlot.newGeneration();
    }
    return undefined;
  }

  /** The homeserver's health, or the notebook's when that is worse (or the only backend). */
  override health(): ProviderHealth | null {
    const matrix = this.monitor.snapshot();
    const notebook = this.notebookMonitor.snapshot();
    const worst = RANK[notebook.status] > RANK[matrix.status] ? notebook : matrix;
    return worst.status === 'unknown' ? null : worst;
  }

  /**
   * For setup, status and doctor (never on the hot path): whoami with the configured token, and
   * one notebook search when a notebook is configured. Failed when either fails.
   */
  override async probe(options?: HookOptions): Promise<ProbeResult> {
    if (!this.isAvailable()) return { status: 'failed', message: this.unavailableReason() };
    const results: ProbeResult[] = [];
    if (this.hasMatrix()) results.push(await this.probeMatrix(options));
    if (hasNotebook(this.settings)) results.push(await this.probeNotebook(options));
    const failed = results.find((r) => r.status === 'failed');
    const latencies = results.map((r) => r.latencyMs).filter((ms): ms is number => ms !== undefined);
    return {
      status: failed ? 'failed' : 'ok',
      message: results.map((r) => r.message).join(' '),
      ...(!failed && latencies.length > 0 ? { latencyMs: Math.max(...latencies) } : {}),
    };
  }

  /** whoami: the homeserver answers and the token belongs to `userId`. */
  async probeMatrix(options?: HookOptions): Promise<ProbeResult> {
    const client = this.client ?? this.clientForProbe();
    if (!client) return { status: 'skipped', message: 'No Matrix account is configured.' };
    return client.probe(options?.signal);
  }

  /** One search of the notebook (the word "hermes", one entry). */
  async probeNotebook(options?: HookOptions): Promise<ProbeResult> {
    if (!hasNotebook(this.settings)) return { status: 'skipped', message: 'No notebook is configured.' };
    const notebook = this.notebook ?? this.notebookClient(0);
    const started = this.clock.now();
    try {
      const entries = await notebook.search('hermes', options?.signal, 1);
      return {
        status: 'ok',
        message: `Hermes notebook answered (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'} for a test search).`,
        latencyMs: this.clock.now() - started,
      };
    } catch (error) {
      return { status: 'failed', message: describeError(error) };
    }
  }

  override getConfigSchema(): ConfigField[] {
    return [
      {
        key: 'homeserver',
        description: 'Matrix homeserver URL',
        type: 'text',
        required: true,
        envVar: 'MATRIX_HOMESERVER',
      },
      {
        key: 'user_id',
        description: "This agent's Matrix user id (@name:server)",
        type: 'text',
        required: true,
        envVar: 'MATRIX_USER_ID',
      },
      {
        key: 'access_token',
        description: "This agent's Matrix access token",
        type: 'text',
        secret: true,
        required: true,
        envVar: 'MATRIX_ACCESS_TOKEN',
      },
      {
        key: 'notebook_url',
        description: 'Shared Hermes notebook URL (optional; each message is searched there)',
        type: 'text',
        envVar: 'HERMES_URL',
      },
      {
        key: 'notebook_key',
        description: 'Hermes notebook secret key (optional; entries show their text only with it)',
        type: 'text',
        secret: true,
        envVar: 'HERMES_SECRET_KEY',
      },
    ];
  }

  /** Stops at once: the running sync is aborted, nothing is queued. Safe to call twice. */
  override async shutdown(_options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.scheduled = null;
    this.lifetime.abort(new Error('Hivemind shut down.'));
    this.slot.close();
    this.notebookSlot.close();
  }

  /** Running background work: the sync and the notebook search (for tests and the conformance harness). */
  get pendingWork(): number {
    const sync = this.slot.isInFlight() || this.scheduled?.sync === true;
    const search = this.notebookSlot.isInFlight() || this.scheduled?.search !== undefined;
    return (sync ? 1 : 0) + (search ? 1 : 0);
  }

  /** Resolves when the background sync and notebook search (scheduled ones too) have finished. */
  async idle(): Promise<void> {
    await this.scheduled?.run;
    await Promise.all([
      this.slot.idle(this.settings.timeoutMs * (this.settings.maxRetries + 1)),
      this.notebookSlot.idle(this.settings.notebookTimeoutMs * (this.settings.maxRetries + 1)),
    ]);
  }

  private hasMatrix(): boolean {
    return missingConnection(this.settings).length === 0;
  }

  /** Search the notebook for a turn's message in the background (nothing without a notebook or a message). */
  private startNotebookSearch(message: string): void {
    const notebook = this.notebook;
    if (!notebook || this.closed || message.trim() === '') return;
    this.notebookSlot.start(NOTEBOOK, (signal) => notebook.search(message, this.signal(signal)));
  }

  /** `hivemind_search_notebook(query)` → `{success, count, results: [{author, text}]}`. */
  private async searchNotebookTool(
    args: ReturnType<typeof parseToolArgs>,
    signal?: AbortSignal,
  ): Promise<string> {
    const notebook = this.notebook;
    if (!notebook)
      return toolError('The notebook is not configured: set HERMES_URL (memory.hivemind.notebook_url).');
    const query = requiredString(args, 'query').trim();
    if (query === '') return toolError("'query' must not be empty.");
    const results = await notebook.search(query.slice(0, MAX_TOOL_QUERY), this.signal(signal));
    return toolResult({ success: true, count: results.length, results });
  }

  private notebookClient(maxRetries: number): NotebookClient {
    return new NotebookClient({
      url: this.settings.notebookUrl,
      key: this.settings.notebookKey,
      timeoutMs: this.settings.notebookTimeoutMs,
      maxRetries,
      clock: this.clock,
    });
  }

  /**
   * Start background work that serves the next turn once this turn yields to the event loop (the
   * host's model call). Building and sending a request — core's client and undici's fetch, a few
   * hundred µs of CPU on this thread — started at once would run inside the turn's `prefetch`,
   * whose answer it cannot change. Shutdown drops what has not started.
   */
  private schedule(work: { sync?: true; search?: string }): void {
    const due = this.scheduled ?? this.nextYield();
    if (work.sync) due.sync = true;
    if (work.search !== undefined) due.search = work.search;
  }

  /** Empty work, started when the turn yields unless shutdown dropped it first. */
  private nextYield(): Scheduled {
    const due: Scheduled = { sync: false, search: undefined, run: Promise.resolve() };
    due.run = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      if (this.scheduled !== due) return;
      this.scheduled = null;
      if (due.search !== undefined) this.startNotebookSearch(due.search);
      if (due.sync) this.startSync();
    });
    this.scheduled = due;
    return due;
  }

  /** Start the background sync that builds the next roster (joins one already running). */
  private startSync(): void {
    const directory = this.directory;
    const sparks = this.sparks;
    if (!directory || !sparks || this.closed) return;
    this.slot.start(ROSTER, async (signal): Promise<true> => {
      const joined = this.signal(signal);
      await directory.refresh(joined);
      while (this.syncAgain && !joined.aborted) {
        this.syncAgain = false;
        await directory.refresh(joined);
      }
      // The spark engine runs here, in the background sync, never in the turn; a failure only
      // costs this run's suggestions.
      try {
        await sparks.run(directory.peers(), (roomId) => directory.activity(roomId), joined);
      } catch (error) {
        if (joined.aborted) throw error;
        this.logger.warn(`Hivemind: the spark engine failed: ${describeError(error)}`);
      }
      return true;
    });
  }

  /** Sync before a tool answers; with a roster already known, a failed sync only adds a note. */
  private async freshen(directory: PeerDirectory, signal: AbortSignal): Promise<string | undefined> {
    try {
      await directory.refresh(signal);
      return undefined;
    } catch (error) {
      if (!directory.loaded) throw error;
      return `The peer list may be out of date: ${describeError(error)}`;
    }
  }

  /** The caller's signal joined with the provider's lifetime. */
  private signal(extra?: AbortSignal): AbortSignal {
    return extra ? AbortSignal.any([extra, this.lifetime.signal]) : this.lifetime.signal;
  }

  private clientForProbe(): MatrixClient | null {
    if (!this.settings.enabled || !this.hasMatrix()) return null;
    return new MatrixClient({
      homeserver: this.settings.homeserver,
      userId: this.settings.userId,
      accessToken: this.settings.accessToken,
      timeoutMs: this.settings.timeoutMs,
      maxRetries: 0,
      clock: this.clock,
    });
  }
}

/** What `schedule` starts when the turn yields: the next sync and the search of a message. */
interface Scheduled {
  sync: boolean;
  search: string | undefined;
  run: Promise<void>;
}

/** Health statuses, best first. */
const RANK: Record<ProviderHealth['status'], number> = { unknown: 0, ok: 1, degraded: 2, down: 3 };
