import {
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
  optionalString,
  type PrefetchOptions,
  PrefetchSlot,
  type ProbeResult,
  type ProviderHealth,
  parseToolArgs,
  type RecallStatus,
  requiredString,
  type SessionSwitchOptions,
  type ShutdownOptions,
  scanWrite,
  silentLogger,
  type ToolCallOptions,
  type ToolSchema,
  type TurnStartInfo,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import {
  type HivemindProviderSettings,
  missingConnection,
  type ResolvedHivemindSettings,
  resolveHivemindSettings,
} from './hivemind-settings';
import { MatrixClient } from './matrix/client';
import { agentFacing, PeerDirectory, type StoredPeer } from './peers';
import { formatRoster, SYSTEM_PROMPT_BLOCK, TOOL_SCHEMAS, TOOLS } from './prompt';
import { SparkEngine } from './sparks';

/** The slot key of the background sync whose roster the next turn serves. */
const ROSTER = 'roster';

/** What the factory hands the constructor besides the settings (see `createHivemindProvider`). */
export interface HivemindProviderContext {
  env?: Env;
  providerConfig?: Readonly<Record<string, unknown>>;
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
 *   roster the previous sync built and starts the next one; only the first turn waits, at most
 *   `firstSyncWaitMs`, for the sync `initialize` started. Invites are joined on sync.
 * - Tools sync before answering (bounded by the manager's signal), answer JSON always, and
 *   neutralise the fence in everything peers wrote; what is sent passes core's write scanner.
 */
export class HivemindProvider extends MemoryProvider {
  readonly name = 'hivemind';

  private readonly settingsInput: HivemindProviderSettings;
  private settings: ResolvedHivemindSettings;
  private client: MatrixClient | null = null;
  private directory: PeerDirectory | null = null;
  /** Summaries and suggestions; it calls the model only when the agent handed one (`InitContext.llm`). */
  private sparks: SparkEngine | null = null;
  private logger: Logger = silentLogger;
  private writable = false;
  private closed = false;
  /** Runs the background sync (single flight, session generations, hung-request reaping). */
  private slot = new PrefetchSlot<true>();
  /** Set when the next turn's sync was asked for while one was already running. */
  private syncAgain = false;
  private lifetime = new AbortController();
  private readonly monitor = new HealthMonitor();
  private lastRecall: RecallStatus | null = null;

  constructor(settings: HivemindProviderSettings = {}, context: HivemindProviderContext = {}) {
    super();
    this.settingsInput = settings;
    this.settings = resolveHivemindSettings(settings, context.providerConfig, context.env ?? process.env);
  }

  /** Synchronous and free of I/O: the homeserver, user id and token are all set. */
  isAvailable(): boolean {
    return this.settings.enabled && missingConnection(this.settings).length === 0;
  }

  override unavailableReason(): string {
    if (!this.settings.enabled) return 'Hivemind is disabled (enabled: false).';
    const missing = missingConnection(this.settings);
    return missing.length > 0 ? `Hivemind needs a Matrix account: set ${missing.join(', ')}.` : '';
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
      logger: this.logger,
      // A sync with the spark engine's model calls may take a while; only a real hang is reaped.
      hungAfterMs: Math.max(this.settings.timeoutMs * (this.settings.maxRetries + 2), 120_000),
    });
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
    });
    this.directory = new PeerDirectory(this.client, Date.now, this.logger);
    const llm = this.settings.sparks ? (context.llm ?? null) : null;
    this.sparks = new SparkEngine(this.client, llm, Date.now, this.logger);
    this.startSync();
  }

  getToolSchemas(): ToolSchema[] {
    return TOOL_SCHEMAS.map((schema) => structuredClone(schema));
  }

  override systemPromptBlock(): string {
    return this.directory && !this.closed ? SYSTEM_PROMPT_BLOCK : '';
  }

  override onTurnStart(turn: number, _message: string, _info?: TurnStartInfo): void {
    this.slot.setTurn(turn);
  }

  /**
   * The roster as the background syncs left it (from memory, no I/O), then the next sync started
   * for the next turn. Waits only before the first sync finished — for the peers, not for the spark
   * engine — at most `firstSyncWaitMs` (and the manager's signal).
   */
  override async prefetch(_query: string, options?: PrefetchOptions): Promise<string> {
    const directory = this.directory;
    const sparks = this.sparks;
    if (!directory || !sparks || this.closed) return '';
    // What the background sync brought in is already in the directory; its completion is consumed.
    this.slot.take(ROSTER);
    if (!directory.loaded) {
      this.startSync();
      await directory.waitUntilLoaded(this.settings.firstSyncWaitMs, options?.signal);
    }
    this.startSync();
    if (!directory.loaded) return '';
    const peers = directory.peers();
    this.lastRecall = peers.length > 0 ? { providerLabel: 'Hivemind', count: peers.length } : null;
    return formatRoster(peers, (peer) => directory.unreadFrom(peer), sparks.pending());
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
      const client = this.client;
      const directory = this.directory;
      const sparks = this.sparks;
      if (this.closed) return toolError('Hivemind is not running.');
      if (!client || !directory || !sparks)
        return toolError(
          `Peer tools are unavailable: ${this.unavailableReason() || 'Hivemind is not initialised.'}`,
        );
      const parsed = parseToolArgs(args);
      const signal = this.signal(options?.signal);
      const note = await this.freshen(directory, signal);
      const answer = await this.runTool(toolName, parsed, { client, directory, sparks }, signal);
      return note ? addNote(answer, note) : answer;
    });
    // Peers wrote most of what tools return: nothing in it may open, close or imitate the fence.
    return neutralizeToolResult(result);
  }

  /** A new conversation: a roster prepared for the old one is dropped. */
  override onSessionSwitch(_newSessionId: string, options: SessionSwitchOptions): undefined {
    if (options.reset) this.slot.newGeneration();
    return undefined;
  }

  override health(): ProviderHealth | null {
    const health = this.monitor.snapshot();
    return health.status === 'unknown' ? null : health;
  }

  /** whoami with the configured token, for setup and doctor (never on the hot path). */
  override async probe(options?: HookOptions): Promise<ProbeResult> {
    const client = this.client ?? this.clientForProbe();
    if (!client) return { status: 'failed', message: this.unavailableReason() };
    return client.probe(options?.signal);
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
    ];
  }

  /** Stops at once: the running sync is aborted, nothing is queued. Safe to call twice. */
  override async shutdown(_options?: ShutdownOptions): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.lifetime.abort(new Error('Hivemind shut down.'));
    this.slot.close();
  }

  /** A running background sync (for tests and the conformance harness). */
  get pendingWork(): number {
    return this.slot.isInFlight() ? 1 : 0;
  }

  /** Resolves when the running background sync has finished. */
  async idle(): Promise<void> {
    await this.slot.idle(this.settings.timeoutMs * (this.settings.maxRetries + 1));
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

  private async runTool(
    toolName: string,
    args: ReturnType<typeof parseToolArgs>,
    { client, directory, sparks }: { client: MatrixClient; directory: PeerDirectory; sparks: SparkEngine },
    signal: AbortSignal,
  ): Promise<string> {
    const find = (key: string): StoredPeer => {
      const name = requiredString(args, key).trim();
      const peer = directory.resolve(name);
      if (!peer) throw new UnknownPeer(name);
      return peer;
    };
    switch (toolName) {
      case TOOLS.listPeers: {
        const peers = directory.peers().map(agentFacing);
        const suggestions = sparks
          .pending()
          .map(({ peer_a, peer_b, reason, confidence }) => ({ peer_a, peer_b, reason, confidence }));
        return toolResult({ success: true, count: peers.length, peers, suggestions });
      }
      case TOOLS.getPeerInfo: {
        const peer = find('peer');
        return toolResult({
          success: true,
          peer: { ...agentFacing(peer), unread: directory.unreadFrom(peer), ...summaryFields(sparks, peer) },
        });
      }
      case TOOLS.checkMessages: {
        const limit = this.settings.messageLimit;
        const name = optionalString(args, 'peer')?.trim();
        if (name) {
          const peer = find('peer');
          return toolResult({
            success: true,
            peer: peer.peer_name,
            messages: await directory.messages(peer, limit, signal),
          });
        }
        const conversations = [];
        for (const peer of directory.peers()) {
          conversations.push({
            peer: peer.peer_name,
            messages: await directory.messages(peer, limit, signal),
          });
        }
        return toolResult({ success: true, conversations });
      }
      case TOOLS.sendToPeer: {
        if (!this.writable) return readOnly();
        const peer = find('peer');
        const message = requiredString(args, 'message').trim();
        if (message === '') return toolError("'message' must not be empty.");
        // What a peer receives becomes part of its prompt: refuse what core's scanner blocks.
        const scan = scanWrite(message);
        if (!scan.ok) return toolError(scan.message);
        await client.send(peer.room_id, 'm.room.message', { msgtype: 'm.text', body: message }, signal);
        return toolResult({ success: true, sent: true, to: peer.peer_name });
      }
      case TOOLS.introducePeers: {
        if (!this.writable) return readOnly();
        const reason = optionalString(args, 'reason')?.trim() ?? '';
        if (reason !== '') {
          const scan = scanWrite(reason);
          if (!scan.ok) return toolError(scan.message);
        }
        const a = find('peer_a');
        const b = find('peer_b');
        if (a.peer_id === b.peer_id) return toolError('Introduce two different peers.');
        const roomId = await client.createRoom(
          {
            name: `Introduction: ${a.peer_name} <> ${b.peer_name}`,
            preset: 'private_chat',
            invite: [a.peer_id, b.peer_id],
          },
          signal,
        );
        const lines = [
          about(a, sparks.summaryOf(a)?.summary_text),
          about(b, sparks.summaryOf(b)?.summary_text),
        ];
        for (const line of [...lines, ...(reason ? [`Why: ${reason}`] : [])]) {
          await client.send(roomId, 'm.room.message', { msgtype: 'm.text', body: line }, signal);
        }
        await sparks.setStatus(a.peer_name, b.peer_name, 'executed', signal);
        return toolResult({ success: true, introduced: true, peer_a: a.peer_name, peer_b: b.peer_name });
      }
      case TOOLS.dismissSpark: {
        if (!this.writable) return readOnly();
        // Suggestions name peers as the engine saw them: a known peer resolves, any other name is kept.
        const name = (key: string) => {
          const given = requiredString(args, key).trim();
          return directory.resolve(given)?.peer_name ?? given;
        };
        const [a, b] = [name('peer_a'), name('peer_b')];
        if (a === '' || b === '' || a === b) return toolError('Name two different peers.');
        await sparks.setStatus(a, b, 'dismissed', signal);
        return toolResult({ success: true, dismissed: true, peer_a: a, peer_b: b });
      }
      default:
        return toolError(`Unknown tool '${toolName}' for the hivemind provider.`);
    }
  }

  /** The caller's signal joined with the provider's lifetime. */
  private signal(extra?: AbortSignal): AbortSignal {
    return extra ? AbortSignal.any([extra, this.lifetime.signal]) : this.lifetime.signal;
  }

  private clientForProbe(): MatrixClient | null {
    if (!this.isAvailable()) return null;
    return new MatrixClient({
      homeserver: this.settings.homeserver,
      userId: this.settings.userId,
      accessToken: this.settings.accessToken,
      timeoutMs: this.settings.timeoutMs,
      maxRetries: 0,
    });
  }
}

class UnknownPeer extends Error {
  constructor(name: string) {
    super(`Unknown peer: ${name}. Use hivemind_list_peers to see who you know.`);
  }
}

const readOnly = () =>
  toolError('Hivemind is read-only in this context (only the primary agent talks to peers).');

/**
 * "About <mxid>: <context>" — the line the introduced peer's side extracts. A context another peer
 * wrote is forwarded only if the write scanner lets it through.
 */
function about(peer: StoredPeer, summary?: string): string {
  const context = (summary || peer.context).trim();
  const safe =
    context !== '' && scanWrite(context).ok ? context : `${peer.peer_name} (no details were shared).`;
  return `About ${peer.peer_id}: ${safe}`;
}

/** A peer's summary for `hivemind_get_peer_info`, when the spark engine wrote one. */
function summaryFields(sparks: SparkEngine, peer: StoredPeer): Record<string, unknown> {
  const summary = sparks.summaryOf(peer);
  if (!summary) return {};
  return {
    needs: summary.needs,
    offers: summary.offers,
    expertise: summary.expertise,
    summary: summary.summary_text,
  };
}

function addNote(answer: string, note: string): string {
  try {
    const parsed = JSON.parse(answer) as Record<string, unknown>;
    return toolResult({ ...parsed, note });
  } catch {
    return answer;
  }
}
