/**
 * HonchoProvider: Hermes memory on Honcho through the official SDK. Startup never waits on the
 * network for more than 0.1 s; turn 1 may wait its two budgets for base context and dialectic;
 * every later prefetch serves what the previous turn prepared in the background. Writes go
 * through the write-frequency buffer; tools answer JSON whatever happens.
 */

import os from 'node:os';
import path from 'node:path';
import {
  type ChatMessage,
  type CircuitBreaker,
  type Clock,
  type ConfigField,
  canWrite,
  createProviderBreaker,
  HealthMonitor,
  type HookOptions,
  type InitContext,
  type Logger,
  MemoryProvider,
  type MemoryTarget,
  type MemoryWriteAction,
  neutralizeMemoryText,
  neutralizeToolResult,
  type OutboxEntry,
  type PrefetchOptions,
  type ProbeResult,
  type ProviderFactoryContext,
  type ProviderHealth,
  type RecallStatus,
  SerialQueue,
  type SessionSwitchOptions,
  type ShutdownOptions,
  type SyncTurnOptions,
  sanitizeContext,
  silentLogger,
  sleep,
  systemClock,
  TimeoutError,
  type ToolCallOptions,
  type ToolSchema,
  type TurnAuthor,
  type TurnStartInfo,
  toolResult,
} from '@hermes-memory/core';
import { type OAuthTokenSource, tokenSourceFor } from './auth/token-source';
import { HonchoBackend } from './client/backend';
import { HonchoClient } from './client/honcho-client';
import { clientFor, DEFAULT_TIMEOUT_S, probeHoncho } from './client/probe';
import { isAuthFailure } from './client/transport';
import { loadHonchoConfig } from './config/load';
import { isConfigured } from './config/resolve';
import { HONCHO_CONFIG_SCHEMA, savedHonchoConfig, saveHonchoConfig } from './config/setup';
import type { HonchoConfig, ObservationFlags, RecallMode } from './config/types';
import type { JsonObject } from './config/values';
import { guardWrite } from './guard';
import { a2aSessionKey, authorOf, botPeerId } from './identity/a2a';
import { isMemoryOwner, resolveAiPeerId, resolveUserPeer } from './identity/peers';
import { gitRepoName, resolveSessionName, sessionIdOf } from './identity/session-name';
import { formatBaseContext } from './recall/base-context';
import { PREWARM_QUERY, runDialecticDepth } from './recall/dialectic';
import { logInjection } from './recall/injection-log';
import { SYSTEM_PROMPTS } from './recall/system-prompt';
import { cutAtWord, isTrivialHonchoPrompt, truncateToChars } from './recall/text';
import { type Snapshot, TwoLayerRecall } from './recall/two-layer';
import { chunkMessage } from './session/chunk';
import { type MigrationContext, migrateMemoryFiles, sdkMigrationRemote } from './session/migration';
import { openHonchoOutbox } from './session/outbox';
import { type HeldLimits, MessageWriter, type OutgoingMessage, type StoredMessage } from './session/writer';
import { answerWithoutNetwork, routeObserver, runHonchoTool } from './tools/handlers';
import { HONCHO_TOOL_SCHEMAS } from './tools/schemas';

/** Startup waits this long for session init, then lets it finish in the background. */
export const INIT_WAIT_MS = 100;
/** After a failed session init, hooks wait this long before starting another (no request storm on the hot path). */
export const INIT_RETRY_MS = 10_000;

export interface HonchoProviderSettings {
  /** honcho.json keys set in code (camelCase, as in the file); they beat the file and the environment. */
  config?: JsonObject;
  /** The clock for waits, cadences and retries (tests pass a `ManualClock`). */
  clock?: Clock;
  /** The working directory the session name derives from (default `process.cwd()`). */
  cwd?: string;
  /** The user's home, where `~/.honcho/config.json` is looked for (default `HOME`). */
  userHome?: string;
  /** The async writer's wait before its retry, ms (default 2000). */
  writerRetryDelayMs?: number;
  /** Circuit breaker: consecutive failed requests that open it (default 5). */
  breakerThreshold?: number;
  /** How long it stays open before one trial request, ms (default 120 000). */
  breakerCooldownMs?: number;
  /** The cap on turns held while the breaker is open (default 2000 messages, 2 000 000 characters). */
  heldLimits?: HeldLimits;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class HonchoProvider extends MemoryProvider {
  readonly name = 'honcho';

  private readonly settings: HonchoProviderSettings;
  private readonly clock: Clock;
  private readonly factoryEnv: Readonly<Record<string, string | undefined>> | undefined;
  private config: HonchoConfig;
  private logger: Logger = silentLogger;
  private hermesHome = '';
  private health_ = new HealthMonitor();
  /** Stops calling a dead Honcho: sync, recall refreshes and tools skip while it is open (decision 0925). */
  private breaker: CircuitBreaker;
  /** The OAuth grant behind the key, when the host signed in (`hermes-memory honcho login`). */
  private oauth: OAuthTokenSource | undefined;

  private active = false;
  private cronSkipped = false;
  private writable = false;
  private recallMode: RecallMode = 'hybrid';
  private gatewayKey: string | undefined;
  private sessionTitle: string | undefined;
  private sessionKey = '';
  private userPeerId = '';
  /** Whether this session's user owns the local memory files (the migration's guard). */
  private ownsMemoryFiles = false;
  private aiPeerId = '';
  private observation: ObservationFlags;
  private backend: HonchoBackend | undefined;
  private writer: MessageWriter | undefined;
  private recall: TwoLayerRecall | undefined;
  private readonly background: SerialQueue;
  private lifetime = new AbortController();

  private init: Promise<void> | undefined;
  private ready = false;
  private initError: unknown;
  private sessionEpoch = 0;
  private lastRecall: RecallStatus | null = null;
  private syncBusy = false;
  private initFailedAt: number | undefined;
  /** Who wrote the current turn (`onTurnStart`); tools refuse memory writes during a bot's turn. */
  private turnAuthor: TurnAuthor = {};
  /** a2a session id → the sender bot's peer; each is opened (peers joined) before its first write. */
  private readonly a2aPeers = new Map<string, string>();
  private readonly openedA2a = new Set<string>();
  /** Sessions of messages an earlier process left on disk → their peers; each is opened before its replay. */
  private readonly replayPeers = new Map<string, readonly [string, string]>();
  /** Messages from an earlier process wait in the writer: sent once session init succeeds. */
  private replayPending = false;
  /** `shutdown()` ran (and no `initialize` since): tools say so rather than "not configured". */
  private shutDown = false;

  constructor(settings: HonchoProviderSettings = {}, context?: Partial<ProviderFactoryContext>) {
    super();
    this.settings = settings;
    this.clock = settings.clock ?? systemClock;
    this.factoryEnv = context?.env;
    if (context?.logger) this.logger = context.logger;
    this.background = new SerialQueue({ name: 'honcho', clock: this.clock });
    this.breaker = this.newBreaker();
    // Read once at creation (the factory context carries the home and env), so isAvailable() does no I/O.
    this.config = this.loadConfig(context?.hermesHome, context?.env ?? process.env);
    this.observation = { ...this.config.observation };
  }

  private loadConfig(
    hermesHome: string | undefined,
    env: Readonly<Record<string, string | undefined>>,
  ): HonchoConfig {
    return loadHonchoConfig({
      hermesHome: hermesHome ?? path.join(os.homedir(), '.hermes'),
      env,
      ...(this.settings.userHome ? { userHome: this.settings.userHome } : {}),
      ...(this.settings.config ? { overrides: this.settings.config } : {}),
    });
  }

  /** The resolved config (after `initialize`, the one in force). */
  get resolvedConfig(): HonchoConfig {
    return this.config;
  }

  isAvailable(): boolean {
    return isConfigured(this.config);
  }

  override unavailableReason(): string {
    if (isConfigured(this.config)) return '';
    if (!this.config.enabled && (this.config.apiKey || this.config.baseUrl))
      return 'Honcho is disabled (enabled: false).';
    return 'Honcho needs an API key (HONCHO_API_KEY or apiKey in honcho.json) or a baseUrl for a self-hosted server.';
  }

  async initialize(sessionId: string, context: InitContext): Promise<void> {
    this.logger = context.logger ?? this.logger;
    this.hermesHome = context.hermesHome;
    const env = context.env ?? this.factoryEnv ?? process.env;
    this.config = this.loadConfig(context.hermesHome, env);
    for (const warning of this.config.warnings) this.logger.warn(`Honcho: ${warning}`);
    this.observation = { ...this.config.observation };
    const extra = context as InitContext & { gatewaySessionKey?: string; toolsOnly?: boolean };
    this.gatewayKey = extra.gatewaySessionKey;
    this.sessionTitle = context.sessionTitle;
    // Inspection (doctor, status) reads only: no session init, no migration, no writes.
    this.writable = canWrite(context.agentContext) && !context.inspectionOnly;
    this.cronSkipped =
      !extra.toolsOnly &&
      (context.agentContext === 'cron' || context.agentContext === 'flush' || context.platform === 'cron');
    this.lifetime = new AbortController();
    this.shutDown = false;
    context.signal?.addEventListener('abort', () => this.lifetime.abort(context.signal?.reason), {
      once: true,
    });
    // Initialized again: the old writer gives up its outbox (lock, handle) first; its undelivered
    // messages stay on disk under a lock-less owner, so the next outbox opened (below, or
    // by the next process) adopts them. Its request in flight finishes (by its own deadline):
    // the new writer waits for it before sending and leaves out what it delivered.
    const old = this.writer;
    this.writer = undefined;
    await old?.close({ finishSending: true });
    if (this.cronSkipped || !isConfigured(this.config)) {
      this.active = false;
      return;
    }
    this.recallMode = extra.toolsOnly ? 'tools' : this.config.recallMode;
    this.sessionKey = this.resolveSessionKey(sessionId);
    const identity = { userId: context.userId, userIdAlt: context.userIdAlt };
    const user = resolveUserPeer(this.config, identity, this.gatewayKey ?? this.sessionKey);
    if (user.source === 'session-key') {
      this.logger.info(
        `Honcho: no peerName configured; the user peer is '${user.id}'. Set peerName in honcho.json to keep one identity across chats.`,
      );
    }
    this.userPeerId = user.id;
    this.ownsMemoryFiles = isMemoryOwner(this.config, identity, user.id);
    this.aiPeerId = resolveAiPeerId(this.config);
    const timeoutMs = (this.config.timeoutSeconds ?? DEFAULT_TIMEOUT_S) * 1000;
    this.health_ = new HealthMonitor({ clock: this.clock });
    this.breaker = this.newBreaker();
    this.oauth = tokenSourceFor(this.config, { clock: this.clock, logger: this.logger });
    const client = new HonchoClient({
      apiKey: this.config.apiKey,
      apiKeyInFile: this.config.apiKeyInFile,
      baseUrl: this.config.baseUrl,
      environment: this.config.environment,
      workspaceId: this.config.workspaceId,
      timeoutMs,
      clock: this.clock,
      health: this.health_,
      oauth: this.oauth,
      breaker: this.breaker,
    });
    this.backend = new HonchoBackend(client);
    // Inspection never takes the outbox: what waits there belongs to the next writing process.
    const outbox =
      this.writable && !context.inspectionOnly && this.config.saveMessages ? this.openOutbox() : undefined;
    this.writer = new MessageWriter({
      frequency: this.config.writeFrequency,
      send: (session, messages, signal) => this.sendMessages(session, messages, signal),
      ready: (signal) => this.whenReady(signal),
      clock: this.clock,
      logger: this.logger,
      ...(this.settings.writerRetryDelayMs !== undefined
        ? { retryDelayMs: this.settings.writerRetryDelayMs }
        : {}),
      ...(this.settings.heldLimits ? { heldLimits: this.settings.heldLimits } : {}),
      ...(outbox ? { outbox } : {}),
      ...(old ? { previous: old } : {}),
    });
    if (outbox && outbox.size > 0) this.adoptReplay(outbox.entries());
    this.recall = this.createRecall(timeoutMs);
    this.active = true;
    this.ready = false;
    this.init = undefined;
    if (context.inspectionOnly) return;
    if (this.recallMode === 'tools') {
      if (this.config.initOnSessionStart) this.startInit();
      return;
    }
    // Context and hybrid modes: start session init, wait at most 0.1 s, let it finish in the background.
    const init = this.startInit();
    await Promise.race([
      init.catch(() => undefined),
      sleep(INIT_WAIT_MS, { clock: this.clock }).catch(() => undefined),
    ]);
  }

  /** Who observes `target` (the tools' routing): see `routeObserver`. */
  private observerOf(target: string): string {
    return routeObserver({ aiPeerId: this.aiPeerId, observation: this.observation }, target);
  }

  private resolveSessionKey(sessionId: string): string {
    const cwd = this.settings.cwd ?? process.cwd();
    const name = resolveSessionName(this.config, {
      sessionId,
      sessionTitle: this.sessionTitle,
      gatewaySessionKey: this.gatewayKey,
      cwd,
      gitRepoName: this.config.sessionStrategy === 'per-repo' ? gitRepoName(cwd) : undefined,
    });
    return sessionIdOf(name);
  }

  private createRecall(timeoutMs: number): TwoLayerRecall {
    const config = this.config;
    return new TwoLayerRecall({
      contextCadence: config.contextCadence,
      dialecticCadence: config.dialecticCadence,
      injectionFrequency: config.injectionFrequency,
      firstTurnBaseWaitMs: Math.min(config.firstTurnBaseWait * 1000, timeoutMs),
      firstTurnDialecticWaitMs: Math.min(config.firstTurnDialecticWait * 1000, timeoutMs),
      hungAfterMs: timeoutMs * 2,
      clock: this.clock,
      isAuthFailure,
      fetchBase: (query, signal) => this.fetchBase(query, signal),
      runDialectic: (query, options) => this.runDialectic(query, options),
    });
  }

  /** Session init: peers and flags, existing messages, the one-time migration, the dialectic prewarm. */
  private startInit(): Promise<void> {
    if (this.init) return this.init;
    if (this.initFailedAt !== undefined && this.clock.now() - this.initFailedAt < INIT_RETRY_MS) {
      const failed = Promise.reject(this.initError);
      failed.catch(() => undefined);
      return failed;
    }
    const epoch = this.sessionEpoch;
    const backend = this.backend!;
    const sessionKey = this.sessionKey;
    const run = async () => {
      const opened = await backend.openSession(
        sessionKey,
        this.userPeerId,
        this.aiPeerId,
        this.config.observation,
        this.lifetime.signal,
      );
      if (epoch !== this.sessionEpoch) return;
      this.observation = opened.observation;
      this.ready = true;
      if (this.replayPending) {
        this.replayPending = false;
        this.writer?.kick();
      }
      // The one-time migration goes on the background queue: its calls (marker session, a lookup
      // and an upload per file) must not hold up the first turn's base context.
      if (opened.messageCount === 0 && this.config.sessionStrategy !== 'per-session' && this.writable) {
        if (this.ownsMemoryFiles) this.queueMigration(backend);
        else
          this.logger.info(
            `Honcho: memory files not migrated: the user peer '${this.userPeerId}' is not the declared owner (peerName=${this.config.peerName?.trim() || 'unset'}).`,
          );
      }
      this.initError = undefined;
      this.initFailedAt = undefined;
      // The prewarm: a general dialectic stored as if fired on turn 0 (not with query rewrite or recallSync).
      if (this.recallMode !== 'tools' && !this.config.queryRewrite && !this.config.recallSync) {
        this.recall?.fireDialectic(PREWARM_QUERY, PREWARM_QUERY);
      }
    };
    const init = run();
    this.init = init;
    init.catch((error: unknown) => {
      if (this.init !== init) return;
      // A later call starts init again: a transient outage at startup must not disable memory.
      this.init = undefined;
      this.initError = error;
      this.initFailedAt = this.clock.now();
      this.logger.warn(`Honcho: session init failed: ${describe(error)}`);
    });
    return init;
  }

  /** Resolves when the session is set up (starting init if needed); rejects with the init error. */
  private whenReady(signal?: AbortSignal): Promise<void> {
    if (this.ready) return Promise.resolve();
    const init = this.startInit();
    if (!signal) return init;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      init.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Queue the memory-file migration for this session's peers as they are now. */
  private queueMigration(backend: HonchoBackend): void {
    const flags = (kind: 'user' | 'ai') =>
      this.config.observation[`${kind}ObserveMe`] === false || this.observation[`${kind}ObserveMe`] === false;
    const context = {
      hermesHome: this.hermesHome,
      endpoint: backend.client.baseUrl,
      workspaceId: backend.workspaceId,
      userPeerId: this.userPeerId,
      aiPeerId: this.aiPeerId,
      remote: sdkMigrationRemote(
        backend,
        {
          userPeerId: this.userPeerId,
          aiPeerId: this.aiPeerId,
          optOut: { user: flags('user'), ai: flags('ai') },
        },
        this.lifetime.signal,
      ),
    };
    this.background.push(() => this.migrate(context), 'memory-file migration');
  }

  private async migrate(context: MigrationContext): Promise<void> {
    try {
      const { uploaded, reconciled, refused, failed } = await migrateMemoryFiles(context);
      if (uploaded.length > 0) this.logger.info(`Honcho: migrated ${uploaded.join(', ')} to Honcho.`);
      if (reconciled.length > 0)
        this.logger.info(
          `Honcho: ${reconciled.join(', ')} already in Honcho (recorded, not uploaded again).`,
        );
      for (const { file, error } of refused)
        this.logger.warn(`Honcho: ${file} was not migrated (fix it and it goes up next session): ${error}`);
      for (const { file, error } of failed)
        this.logger.warn(`Honcho: ${file} was not migrated (retried at the next session): ${error}`);
    } catch (error) {
      this.logger.warn(
        `Honcho: memory-file migration failed (retried at the next session): ${describe(error)}`,
      );
    }
  }

  private async fetchBase(query: string, signal: AbortSignal): Promise<string> {
    await this.whenReady(signal);
    const backend = this.backend!;
    const user = this.userPeerId;
    const ai = this.aiPeerId;
    const sections = this.config.sessionStartSections;
    const wantsUser = sections.includes('peerRepresentation') || sections.includes('peerCard');
    const wantsAi = sections.includes('aiRepresentation') || sections.includes('aiCard');
    const [session, userView, aiView] = await Promise.all([
      sections.includes('summary') ? backend.sessionContext(this.sessionKey, signal) : undefined,
      wantsUser ? backend.peerView(this.observerOf(user), user, query || undefined, signal) : undefined,
      wantsAi ? backend.peerView(ai, ai, undefined, signal) : undefined,
    ]);
    return formatBaseContext(
      {
        summary: session?.summary,
        userRepresentation: userView?.representation,
        userCard: userView?.card,
        aiRepresentation: aiView?.representation,
        aiCard: aiView?.card,
      },
      sections,
    );
  }

  private async runDialectic(
    query: string,
    options: { cold: boolean; signal: AbortSignal; prompt?: string; lead?: string },
  ): Promise<string> {
    await this.whenReady(options.signal);
    const config = this.config;
    const user = this.userPeerId;
    const observer = config.observation.aiObserveOthers ? this.aiPeerId : user;
    const input = cutAtWord(query, config.dialecticMaxInputChars);
    const settings = {
      depth: config.dialecticDepth,
      depthLevels: config.dialecticDepthLevels,
      reasoningLevel: config.dialecticReasoningLevel,
      reasoningHeuristic: config.reasoningHeuristic,
      reasoningLevelCap: config.reasoningLevelCap,
    };
    const ask = (prompt: string, level: Parameters<HonchoBackend['chat']>[3]) =>
      this.backend!.chat(observer, user, prompt, level, options.signal);
    const answer = options.prompt
      ? await ask(options.prompt, config.dialecticReasoningLevel)
      : (
          await runDialecticDepth(
            settings,
            {
              query: input,
              cold: options.cold,
              signal: options.signal,
              ...(options.lead ? { lead: input } : {}),
            },
            ask,
          )
        ).result;
    const text = answer.trim();
    return text.length > config.dialecticMaxChars ? truncateToChars(text, config.dialecticMaxChars) : text;
  }

  override getToolSchemas(): ToolSchema[] {
    if (this.cronSkipped) return [];
    const mode = this.active ? this.recallMode : this.config.recallMode;
    return mode === 'context' ? [] : HONCHO_TOOL_SCHEMAS.map((tool) => ({ ...tool }));
  }

  override systemPromptBlock(): string {
    if (!this.active) return '';
    return SYSTEM_PROMPTS[this.recallMode];
  }

  override onTurnStart(turnNumber: number, _message: string, info?: TurnStartInfo): void {
    this.recall?.setTurn(turnNumber);
    this.turnAuthor = info?.author ?? {};
  }

  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    const recall = this.recall;
    if (!this.active || this.recallMode === 'tools' || !recall) return '';
    const open = this.circuitOpen;
    if (!this.ready && !open) this.startInit().catch(() => undefined);
    const trivial = isTrivialHonchoPrompt(query);
    if (this.config.recallSync) return trivial || open ? '' : this.recallNow(query, options?.signal);
    // While the breaker is open nothing is fetched: what is cached is served, as for a trivial prompt.
    const served = await recall.serve(query, {
      trivial: trivial || open,
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const text = this.recallText(served.base, served.dialectic);
    this.lastRecall = text ? { providerLabel: 'Honcho', count: 0 } : null;
    if (this.config.logging) {
      logInjection(
        this.settings.userHome ?? os.homedir(),
        {
          ts: new Date(this.clock.now()).toISOString(),
          session: this.sessionKey,
          turn: this.recall?.turn ?? 0,
          query: query.slice(0, 200),
          base_chars: served.base.length,
          dialectic_chars: served.dialectic.length,
          injected: text,
        },
        this.logger,
      );
    }
    return text;
  }

  /**
   * `recallSync`: answer the current query now, within the request timeout (5 s when unset), one at
   * a time. Busy, timed out or failed gives '' — never an older result — and a result from before a
   * session switch is never published.
   */
  private async recallNow(query: string, signal?: AbortSignal): Promise<string> {
    if (this.syncBusy) return '';
    this.syncBusy = true;
    const epoch = this.sessionEpoch;
    const seconds = this.config.timeoutSeconds;
    const budgetMs =
      seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 5_000;
    const controller = new AbortController();
    const timer = this.clock.setTimeout(
      // A deadline, not a caller stopping: the breaker counts what it cut short (decision 0925).
      () =>
        controller.abort(
          new TimeoutError(`Honcho: recallSync gave no answer within ${budgetMs} ms`, budgetMs),
        ),
      budgetMs,
    );
    const forward = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    try {
      const [base, dialectic] = await Promise.all([
        this.fetchBase(query, controller.signal),
        this.runDialectic(query, { cold: false, signal: controller.signal, lead: query }),
      ]);
      if (epoch !== this.sessionEpoch || controller.signal.aborted) return '';
      const text = this.recallText(base, dialectic);
      this.lastRecall = text ? { providerLabel: 'Honcho', count: 0 } : null;
      return text;
    } catch (error) {
      this.logger.debug(`Honcho: recallSync gave nothing: ${describe(error)}`);
      return '';
    } finally {
      this.clock.clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
      this.syncBusy = false;
    }
  }

  /**
   * The injected text: both layers, within `contextTokens`, and with fence markup escaped — Honcho
   * derives representations, cards and answers from whatever reached it (other clients, the
   * Python agent, older versions), so nothing it returns may open, close or imitate the fence.
   */
  private recallText(base: string, dialectic: string): string {
    let text = [base, dialectic].filter((part) => part.trim() !== '').join('\n\n');
    if (this.config.contextTokens !== undefined) text = truncateToChars(text, this.config.contextTokens * 4);
    return neutralizeMemoryText(text);
  }

  override queuePrefetch(query: string, _options?: PrefetchOptions): void {
    if (!this.active || this.recallMode === 'tools' || !this.recall || this.circuitOpen) return;
    if (!this.ready) {
      this.startInit().catch(() => undefined);
      return;
    }
    if (this.config.recallSync || !query.trim() || isTrivialHonchoPrompt(query)) return;
    this.recall.queue(query);
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall;
  }

  override async syncTurn(
    userContent: string,
    assistantContent: string,
    options?: SyncTurnOptions,
  ): Promise<void> {
    const writer = this.writer;
    if (!this.active || !writer || !this.writable || !this.config.saveMessages) return;
    if (this.recallMode === 'tools' && !this.ready) return;
    const open = this.circuitOpen;
    if (!this.ready && !open) this.startInit().catch(() => undefined);
    // A bot's turn goes to its own a2a session or nowhere: never into the human's session.
    const author = authorOf(options?.turnAuthor) ?? this.turnAuthor;
    const route = author.isBot
      ? this.a2aRoute(author)
      : { sessionId: this.sessionKey, userPeerId: this.userPeerId };
    if (!route) return;
    const limit = this.config.messageMaxChars;
    const user = sanitizeContext(userContent).trim();
    const assistant = sanitizeContext(assistantContent).trim();
    // Honcho derives what it recalls from the messages: a turn the write scanner blocks is not sent.
    const scan = guardWrite(`User: ${user}\nAssistant: ${assistant}`);
    if (!scan.ok) {
      this.logger.warn(`Honcho: the turn was not saved: ${scan.error}`);
      return;
    }
    const messages: OutgoingMessage[] = [];
    for (const [peerId, text] of [
      [route.userPeerId, user],
      [this.aiPeerId, assistant],
    ] as const) {
      if (!text) continue;
      for (const content of chunkMessage(neutralizeMemoryText(text), limit))
        messages.push({
          sessionId: route.sessionId,
          peerId,
          content,
          sessionPeers: [route.userPeerId, this.aiPeerId],
        });
    }
    if (open) {
      // Held, not sent and not lost: the first flush after the breaker closes sends it first.
      writer.hold(messages);
      return;
    }
    try {
      await writer.save(messages, options?.signal);
    } catch (error) {
      // Kept unsent: the next flush (or session end) sends it.
      this.logger.warn(`Honcho: saving the turn failed, kept for the next flush: ${describe(error)}`);
    }
  }

  /**
   * Where a bot-authored turn is written: the sender's a2a session with the sender as user peer,
   * or null (skipped) when `a2aSessions` is off, the author has no id, or its peer would be this
   * agent's own AI peer (one peer cannot be both sides of a session).
   */
  private a2aRoute(author: TurnAuthor): { sessionId: string; userPeerId: string } | null {
    const id = author.id?.trim() ?? '';
    const peer = id ? botPeerId(id) : '';
    if (!this.config.a2aSessions || !peer || peer === this.aiPeerId) {
      this.logger.debug(
        `Honcho: a bot-authored turn was not saved (${!this.config.a2aSessions ? 'a2aSessions is off' : `author '${id}' has no peer of its own`}).`,
      );
      return null;
    }
    const sessionId = a2aSessionKey(this.sessionKey, this.aiPeerId, id);
    this.a2aPeers.set(sessionId, peer);
    return { sessionId, userPeerId: peer };
  }

  /** The writer's send: an a2a session is opened with its sender and this agent before its first messages. */
  private async sendMessages(
    sessionId: string,
    messages: readonly OutgoingMessage[],
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const backend = this.backend!;
    const bot = this.a2aPeers.get(sessionId);
    const replay = this.replayPeers.get(sessionId);
    if (bot !== undefined && !this.openedA2a.has(sessionId)) {
      await backend.openSession(sessionId, bot, this.aiPeerId, this.observation, signal);
      this.openedA2a.add(sessionId);
    } else if (replay && sessionId !== this.sessionKey && !this.openedA2a.has(sessionId)) {
      // An earlier process's session may never have been created (it ran through an outage).
      await backend.openSession(sessionId, replay[0], replay[1], this.config.observation, signal);
      this.openedA2a.add(sessionId);
    }
    await backend.addMessages(sessionId, messages, signal);
  }

  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    if (this.cronSkipped) return toolResult({ error: 'Honcho is not active (cron context).' });
    if (!this.active || !this.backend)
      return toolResult({
        error: this.shutDown
          ? 'Honcho was shut down; it is not available to tools.'
          : 'Honcho is not configured.',
      });
    if (!HONCHO_TOOL_SCHEMAS.some((tool) => tool.name === toolName))
      return toolResult({ error: `Unknown tool: ${toolName}` });
    if (this.circuitOpen) {
      // Bad arguments are the caller's to fix now: say so rather than "unavailable, retry later".
      const local = await answerWithoutNetwork(toolName, args, this.toolScope(options?.signal));
      return neutralizeToolResult(local ?? toolResult({ error: this.breaker.unavailableMessage() }));
    }
    if (!this.ready) {
      try {
        await this.whenReady(options?.signal);
      } catch (error) {
        if (options?.signal?.aborted)
          return toolResult({ error: 'Honcho is still initializing; try again shortly.' });
        return toolResult({ error: `Honcho could not be initialized: ${describe(error)}` });
      }
    }
    // Results quote what Honcho holds: nothing in them may open, close or imitate the recall fence.
    const result = await runHonchoTool(toolName, args, {
      ...this.toolScope(options?.signal),
      backend: this.backend,
      onReasoning: () => this.recall?.noteExplicitDialectic(),
    });
    return neutralizeToolResult(result);
  }

  private toolScope(signal: AbortSignal | undefined) {
    return {
      sessionId: this.sessionKey,
      userPeerId: this.userPeerId,
      aiPeerId: this.aiPeerId,
      observation: this.observation,
      dialecticDynamic: this.config.dialecticDynamic,
      turn: this.recall?.turn ?? 0,
      writable: this.writable,
      botTurn: this.turnAuthor.isBot === true,
      signal,
    };
  }

  /**
   * A builtin USER.md add becomes a conclusion about the user. Replace and remove are not mirrored:
   * Honcho's conclusions are derived facts without a link to the line they came from, so there is
   * nothing to correct by id (decision 0921).
   */
  override onMemoryWrite(action: MemoryWriteAction, target: MemoryTarget, content: string): void {
    if (!this.active || !this.writable || action !== 'add' || target !== 'user' || !content.trim()) return;
    // USER.md is about the human: a bot's turn does not become a conclusion about them.
    if (this.turnAuthor.isBot) return;
    // The builtin store scans its own writes, but a host may mirror text from anywhere.
    const guarded = guardWrite(content.trim());
    if (!guarded.ok) {
      this.logger.warn(`Honcho: the USER.md entry was not mirrored as a conclusion: ${guarded.error}`);
      return;
    }
    const backend = this.backend!;
    this.background.push(async () => {
      await this.whenReady(this.lifetime.signal);
      const user = this.userPeerId;
      await backend.createConclusion(
        this.observerOf(user),
        user,
        guarded.text,
        this.sessionKey,
        this.lifetime.signal,
      );
    }, 'conclusion');
  }

  override onSessionSwitch(newSessionId: string, options: SessionSwitchOptions): undefined {
    if (!this.active) return undefined;
    const key = this.gatewayKey ? this.sessionKey : this.resolveSessionKey(newSessionId);
    // Results in flight for the old session are dropped, and cadences restart.
    this.recall?.newSession();
    if (key !== this.sessionKey || options.reset) {
      this.sessionEpoch += 1;
      this.sessionKey = key;
      this.ready = false;
      this.init = undefined;
      this.initFailedAt = undefined;
      if (this.recallMode !== 'tools') this.startInit().catch(() => undefined);
    }
    return undefined;
  }

  override async onSessionEnd(_messages: readonly ChatMessage[], options?: HookOptions): Promise<void> {
    if (!this.active || !this.writer) return;
    await this.writer.flushAll(options?.signal);
  }

  override async flush(timeoutMs?: number): Promise<boolean> {
    if (!this.active || !this.writer) return true;
    const controller = new AbortController();
    const timer =
      timeoutMs !== undefined
        ? this.clock.setTimeout(
            () =>
              controller.abort(new TimeoutError(`Honcho: flush not done within ${timeoutMs} ms`, timeoutMs)),
            timeoutMs,
          )
        : undefined;
    try {
      await this.writer.flushAll(controller.signal);
      return await this.background.drain(timeoutMs);
    } catch {
      return false;
    } finally {
      if (timer !== undefined) this.clock.clearTimeout(timer);
    }
  }

  override async shutdown(options?: ShutdownOptions): Promise<void> {
    const writer = this.writer;
    if (this.active && writer) {
      try {
        await writer.flushAll(options?.signal);
        await this.background.drain(options?.timeoutMs);
      } catch (error) {
        const unsent = writer.pending;
        this.logger.warn(
          `Honcho: flush at shutdown failed (${unsent} message(s) not sent${writer.onDisk > 0 ? '; kept on disk' : ''}): ${describe(error)}`,
        );
      }
    }
    this.recall?.close();
    const onDisk = (await writer?.close()) ?? 0;
    if (onDisk > 0)
      this.logger.warn(
        `Honcho: ${onDisk} message(s) not delivered stay on disk (${path.join('honcho', 'outbox')} in HERMES_HOME) and are sent at the next start.`,
      );
    this.lifetime.abort(new Error('Honcho provider shut down'));
    if (this.active) this.shutDown = true;
    this.active = false;
  }

  /** Open this process's outbox (adopting what gone processes left); on a disk error, memory only. */
  private openOutbox() {
    try {
      return openHonchoOutbox(this.hermesHome, this.logger);
    } catch (error) {
      this.logger.warn(
        `Honcho: the outbox could not be opened (${describe(error)}); unsent messages are kept in memory only.`,
      );
      return undefined;
    }
  }

  /** Queue what earlier processes left undelivered, in front of this session's messages. */
  private adoptReplay(entries: readonly OutboxEntry<StoredMessage>[]): void {
    for (const { data } of entries)
      if (data.sessionPeers) this.replayPeers.set(data.sessionId, data.sessionPeers);
    this.writer?.replay(entries);
    this.replayPending = true;
    this.logger.info(
      `Honcho: ${entries.length} message(s) an earlier run could not deliver are on disk; they are sent once Honcho answers.`,
    );
  }

  /** Queued writes and running background recall (for tests and the conformance kit). */
  get pendingWork(): number {
    return (
      (this.writer?.pending ?? 0) +
      this.background.size +
      (this.background.active ? 1 : 0) +
      (this.recall?.pending ?? 0)
    );
  }

  /** Wait until queued writes and background recall are done (or `timeoutMs` passed). */
  async idle(timeoutMs = 10_000): Promise<boolean> {
    if (this.init && !this.ready) {
      const stop = new AbortController();
      await Promise.race([
        this.init.catch(() => undefined),
        sleep(timeoutMs, { clock: this.clock, signal: stop.signal }).catch(() => undefined),
      ]);
      stop.abort();
    }
    const [a, b, c] = await Promise.all([
      this.writer?.drain(timeoutMs) ?? true,
      this.background.drain(timeoutMs),
      this.recall?.idle(timeoutMs) ?? true,
    ]);
    return a && b && c;
  }

  /** Diagnostics: the reference's `liveness_snapshot`. */
  livenessSnapshot(): Snapshot | undefined {
    return this.recall?.snapshot();
  }

  override health(): ProviderHealth | null {
    if (!this.active) return null;
    const report = this.health_.snapshot();
    if (this.circuitOpen) {
      return {
        ...report,
        status: 'down',
        reason: `circuit breaker open: ${this.breaker.unavailableMessage()}${this.heldDroppedNote}${this.onDiskNote}`,
        since: this.breaker.openedAt,
        consecutiveFailures: this.breaker.failures,
      };
    }
    if (this.initError && !this.ready)
      return {
        ...report,
        status: 'degraded',
        reason: `session init failed: ${describe(this.initError)}${this.onDiskNote ? `;${this.onDiskNote}` : ''}`,
      };
    // A sign-in that needs renewing is visible even while requests still answer, and it is the
    // reason to show when they fail (a refused token's 401s say less than "sign in again").
    const problem = this.oauth?.problem;
    if (problem)
      return { ...report, status: report.status === 'ok' ? 'degraded' : report.status, reason: problem };
    return report;
  }

  /** Held turns an outage outgrew (the writer's cap), for health and status. */
  private get heldDroppedNote(): string {
    return this.writer?.heldLosses.note() ?? '';
  }

  /** Messages waiting in this process's outbox, for health: ` N message(s) wait on disk for delivery.`, or ''. */
  private get onDiskNote(): string {
    const n = this.writer?.onDisk ?? 0;
    return n > 0 ? ` ${n} message(s) wait on disk for delivery.` : '';
  }

  /** Whether the breaker refuses requests now (half-open lets the trial through). */
  private get circuitOpen(): boolean {
    return this.breaker.state === 'open';
  }

  private newBreaker(): CircuitBreaker {
    // Core's `run` judges an attempt cut short by its caller (stopped: released; deadline: counted).
    return createProviderBreaker({
      name: 'Honcho',
      threshold: this.settings.breakerThreshold,
      cooldownMs: this.settings.breakerCooldownMs,
      clock: this.clock,
      // Created again in initialize(), after the session's logger is set.
      logger: this.logger,
    });
  }

  override async probe(options?: HookOptions): Promise<ProbeResult> {
    if (!isConfigured(this.config)) return { status: 'skipped', message: this.unavailableReason() };
    const client = this.backend?.client ?? clientFor(this.config, { maxRetries: 0 });
    return probeHoncho(client, options?.signal, this.clock);
  }

  override getConfigSchema(): ConfigField[] {
    return HONCHO_CONFIG_SCHEMA.map((field) => ({ ...field }));
  }

  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    saveHonchoConfig(values, this.fileLocation(hermesHome));
  }

  /**
   * honcho.json read back for setup (its settings live there, not in config.yaml), so
   * `hermes-memory setup honcho --set …` keeps the baseUrl the file holds. `configPaths()` stays
   * the default `memory.honcho`: the config.yaml place core's contract expects.
   */
  override savedConfig(hermesHome: string): Record<string, unknown> {
    return savedHonchoConfig(this.fileLocation(hermesHome));
  }

  private fileLocation(hermesHome: string) {
    return {
      hermesHome,
      env: this.factoryEnv ?? process.env,
      ...(this.settings.userHome ? { userHome: this.settings.userHome } : {}),
    };
  }

  override backupPaths(): string[] {
    const home = this.settings.userHome ?? os.homedir();
    return [path.join(home, '.honcho')];
  }
}
