import { SerialQueue } from '../background/serial-queue';
import { resolveEnv } from '../config/env-file';
import { resolveHermesHome } from '../config/home';
import { MemoryError, SettingsError, TimeoutError } from '../errors/memory-error';
import { buildMemoryContextBlock, flattenContent, neutralizeToolResult, stripRecallBlocks } from '../fencing';
import type { ProbeResult, ProviderHealth } from '../health/health';
import type { ChatMessage } from '../llm/types';
import { type Logger, silentLogger } from '../logging/logger';
import { redactSecretsDeep } from '../logging/redact';
import { type MemoryProvider, providerConfigPaths } from '../provider/memory-provider';
import { describeConfigConflict, readProviderConfig } from '../config/provider-config';
import { scanWrite } from '../scanner/scan';
import type {
  DelegationOptions,
  InitContext,
  MemoryTarget,
  MemoryWriteAction,
  MemoryWriteMetadata,
  PrefetchOptions,
  ProviderRecallStatus,
  SessionSwitchOptions,
  ToolCallOptions,
  ToolSchema,
  TurnStartInfo,
} from '../provider/types';
import { type Clock, systemClock } from '../resilience/clock';
import { createDeadline, withDeadline } from '../resilience/deadline';
import { describeError, toolError } from '../tools/results';
import { type Budgets, resolveBudgets } from './budgets';
import { HealthTracker, type ProviderHealthReport } from './health-tracker';
import { runsHook } from './inherited-hooks';
import { mirrorOperations } from './notify';
import { extractUserInstruction } from './skill-scaffolding';
import { DEFAULT_SPILL_CHARS, spillText } from './spill';
import { composeRecall } from './recall-compose';
import { ToolRouter } from './tool-router';
import { warmTextPaths } from './warm-up';
import type {
  AddProviderOptions,
  DrainState,
  ManagerInitInput,
  MemoryManagerOptions,
  MetadataSource,
  SessionBoundaryOptions,
  SyncAllOptions,
} from './types';

const BUILTIN = 'builtin';
const DEFAULT_GLYPH = '🧠';
const DEFAULT_RECALL_BUDGET_CHARS = 12_000;

/** Task labels, so a timed-out shutdown can say what it abandoned. */
const WRITE_LABELS = new Set(['sync', 'memory-write', 'session-boundary']);
/** What a full queue may drop (oldest first): everything but a session boundary. */
const DROPPABLE_LABELS = new Set(['sync', 'prefetch', 'memory-write']);
const DEFAULT_MAX_QUEUED_TASKS = 1000;

/** How a bounded provider call ended. */
type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown; timedOut: boolean };

/**
 * What a call tells about a provider's health: `all` for calls that reach the backend (or the
 * cache of it), `failures` for hooks whose success says nothing (turn ticks, shutdown), `none`
 * for waits whose timeout is the caller's choice (flush).
 */
type Observe = 'all' | 'failures' | 'none';

/**
 * Drives memory providers through the Hermes lifecycle: the builtin store first, at most one
 * canonical external provider, any number of read-only secondary providers (tiered memory,
 * decision 0130), tool routing, fenced recall, ordered background sync and a bounded shutdown.
 *
 * Every fan-out isolates provider failures: one broken provider is logged and skipped, never
 * allowed to stop the others or to throw into the agent loop. Every provider call has a budget:
 * its `signal` aborts when the budget runs out and a call still running then is abandoned, so a
 * hung backend never hangs the agent. What the manager observes feeds each provider's health.
 */
export class MemoryManager {
  private readonly logger: Logger;
  private readonly budgets: Budgets;
  private readonly clock: Clock;
  private readonly extraReserved: ReadonlySet<string>;
  private readonly checkpointRequired: boolean;
  private readonly redactEgress: boolean;
  private spillChars: number;
  private readonly spillCharsFixed: boolean;
  private hermesHome: string | undefined;
  private readonly recallBudgetChars: number;

  private readonly list: MemoryProvider[] = [];
  /** `writers()`, computed once per registration (syncAll reads it every turn). */
  private writerList: readonly MemoryProvider[] | undefined;
  /** Secondary providers (tiered memory) and their registration options. */
  private readonly secondaries = new Map<MemoryProvider, AddProviderOptions>();
  private readonly tools: ToolRouter;
  private readonly healthTracker: HealthTracker;
  private readonly queues = new Map<MemoryProvider, SerialQueue>();
  private readonly maxQueuedTasks: number;
  /** Providers whose full queue is dropping tasks now, with how many it dropped so far. */
  private readonly overflowing = new Map<MemoryProvider, number>();
  private droppedTasks = 0;
  /** Prefetches still running after their budget ran out: the provider is skipped until they settle. */
  private readonly stuckPrefetch = new Set<MemoryProvider>();
  private readonly lifetime = new AbortController();
  private pendingSwitch:
    | { newSessionId: string; options: SessionSwitchOptions; failed: MemoryProvider[] }
    | undefined;
  private shutdownState: Promise<DrainState> | undefined;
  private currentSessionId = '';

  constructor(options: MemoryManagerOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.budgets = resolveBudgets(options);
    this.clock = options.clock ?? systemClock;
    this.extraReserved = new Set(options.reservedToolNames ?? []);
    this.checkpointRequired = options.checkpointRequired ?? false;
    this.redactEgress = options.redactEgress ?? true;
    const spill = options.prefetchSpillChars ?? DEFAULT_SPILL_CHARS;
    if (!(spill > 0) || Number.isNaN(spill)) {
      throw new SettingsError(
        'prefetchSpillChars',
        'prefetchSpillChars must be a positive number (Infinity disables spilling).',
      );
    }
    this.spillChars = spill;
    const recallBudget = options.recallBudgetChars ?? DEFAULT_RECALL_BUDGET_CHARS;
    if (!(recallBudget > 0) || !Number.isFinite(recallBudget)) {
      throw new SettingsError('recallBudgetChars', 'recallBudgetChars must be a finite number > 0.');
    }
    this.recallBudgetChars = recallBudget;
    const maxQueued = options.maxQueuedTasks ?? DEFAULT_MAX_QUEUED_TASKS;
    if (!(maxQueued >= 1) || (Number.isFinite(maxQueued) && !Number.isInteger(maxQueued))) {
      throw new SettingsError(
        'maxQueuedTasks',
        'maxQueuedTasks must be an integer ≥ 1 (Infinity disables the limit).',
      );
    }
    this.maxQueuedTasks = maxQueued;
    this.spillCharsFixed = options.prefetchSpillChars !== undefined;
    this.tools = new ToolRouter(this.logger, this.extraReserved);
    this.healthTracker = new HealthTracker(this.clock, this.logger, options.onHealthChange);
  }

  // ── Registration ────────────────────────────────────────────────────────────────────────────

  /**
   * Register a provider. The builtin provider is always accepted and placed first; at most one
   * canonical external provider is accepted (a second is refused with a WARNING, nothing
   * changes); any number of `{role: 'secondary'}` providers join read-only after it, each refused
   * if one of its tool names is already taken. Tool schemas are read before any state changes, so
   * a provider whose schemas throw is refused cleanly.
   */
  addProvider(provider: MemoryProvider, options: AddProviderOptions = {}): boolean {
    const name = provider?.name;
    if (typeof name !== 'string' || name.trim() === '') {
      this.logger.warn('Refused a memory provider without a name.');
      return false;
    }
    if (this.shutdownState) {
      this.logger.warn(`Refused memory provider '${name}': the memory manager is shut down.`);
      return false;
    }
    const refusal = registrationProblem(name, options);
    if (refusal) {
      this.logger.warn(`Refused memory provider '${name}': ${refusal}`);
      return false;
    }
    let schemas: ToolSchema[];
    try {
      schemas = this.tools.schemasOf(provider);
    } catch (error) {
      this.logger.warn(
        `Memory provider '${name}' failed to list its tools; not registered: ${describeError(error)}`,
      );
      return false;
    }
    if (this.list.some((p) => p.name === name)) {
      this.logger.warn(`Memory provider '${name}' is already registered; ignoring the duplicate.`);
      return false;
    }
    if (options.role === 'secondary') {
      const taken = this.tools.conflicts(schemas);
      if (taken.length > 0) {
        this.logger.warn(
          `Refused secondary memory provider '${name}': tool names already taken or reserved: ${taken.join(', ')}.`,
        );
        return false;
      }
      this.list.push(provider);
      this.secondaries.set(provider, { ...options });
    } else if (name !== BUILTIN) {
      const existing = this.canonical();
      if (existing) {
        this.logger.warn(
          `Rejected memory provider '${name}' — external provider '${existing.name}' is already registered. ` +
            'Only one external memory provider is allowed at a time. Configure which one via memory.provider in config.yaml ' +
            '(others can join read-only via memory.secondary).',
        );
        return false;
      }
      // Before the secondaries: the canonical provider's recall, tools and budget share come first.
      const firstSecondary = this.list.findIndex((p) => this.secondaries.has(p));
      this.list.splice(firstSecondary < 0 ? this.list.length : firstSecondary, 0, provider);
    } else {
      this.list.unshift(provider);
    }
    this.writerList = undefined;
    const routed =
      this.secondaries.size > 0
        ? this.tools.refresh(this.list).filter((s) => this.tools.get(s.name) === provider).length
        : this.tools.add(provider, schemas);
    const role = this.secondaries.has(provider) ? ' as a read-only secondary' : '';
    this.logger.info(`Memory provider '${name}' registered${role} (${routed} tools)`);
    return true;
  }

  /** The provider's place: `builtin`, `canonical`, `secondary`, or null when not registered. */
  providerRole(name: string): 'builtin' | 'canonical' | 'secondary' | null {
    const provider = this.getProvider(name);
    if (!provider) return null;
    if (provider.name === BUILTIN) return 'builtin';
    return this.secondaries.has(provider) ? 'secondary' : 'canonical';
  }

  /** Registered providers, builtin first (a copy). */
  get providers(): MemoryProvider[] {
    return [...this.list];
  }

  getProvider(name: string): MemoryProvider | null {
    return this.list.find((p) => p.name === name) ?? null;
  }

  /** The session id given to `initializeAll` or the last `onSessionSwitch`. */
  get sessionId(): string {
    return this.currentSessionId;
  }

  /**
   * Every routed tool schema, deduplicated by name, in provider order. Routes are rebuilt from
   * what each provider lists now, so tools a provider stopped offering are no longer routed.
   */
  getAllToolSchemas(): ToolSchema[] {
    return this.tools.refresh(this.list);
  }

  /** Rebuild tool routing from the providers' current tool lists (done after initialisation). */
  refreshToolRoutes(): ToolSchema[] {
    return this.tools.refresh(this.list);
  }

  getAllToolNames(): string[] {
    return this.tools.names();
  }

  hasTool(name: string): boolean {
    return this.tools.get(name) !== undefined;
  }

  /** The canonical external provider, if one is registered. */
  private canonical(): MemoryProvider | undefined {
    return this.list.find((p) => p.name !== BUILTIN && !this.secondaries.has(p));
  }

  /**
   * Providers that receive the conversation's writes: builtin, the canonical provider, and
   * secondaries that declared `receivesWritesAsSecondary`.
   */
  private writers(): readonly MemoryProvider[] {
    this.writerList ??= this.list.filter(
      (p) => !this.secondaries.has(p) || p.receivesWritesAsSecondary === true,
    );
    return this.writerList;
  }

  // ── Lifecycle ───────────────────────────────────────────────────────────────────────────────

  /**
   * Initialise every provider in order, each within `initializeTimeoutMs`. Fills in what the host
   * did not pass: `hermesHome` (from HERMES_HOME or ~/.hermes), platform "cli", agentContext
   * "primary", the env (process env overlaid with `<hermesHome>/.env`), a logger, the lifetime
   * signal, each provider's config block, and `onMemoryWrite` — the fan-out that mirrors builtin
   * writes to the external provider. A provider that fails or times out is reported `down`.
   * Tool routing is then rebuilt: a provider's tools may depend on how it initialised.
   */
  async initializeAll(sessionId: string, input: ManagerInitInput = {}): Promise<void> {
    await this.initializeProviders(sessionId, input, false);
  }

  /**
   * Initialise every provider for an inspection-only agent (a status command, a dashboard):
   * calls each provider's `initializeForInspection` — side-effect free by contract (no background
   * work, no writes, no network beyond reading state) — with `inspectionOnly: true` in the context.
   */
  async initializeAllForInspection(sessionId: string, input: ManagerInitInput = {}): Promise<void> {
    await this.initializeProviders(sessionId, input, true);
  }

  /** The provider's settings from every config place it reads; conflicts are warned about. */
  private configFor(provider: MemoryProvider, config: ManagerInitInput['config']): Record<string, unknown> {
    if (!config) return {};
    const read = readProviderConfig(config, providerConfigPaths(provider));
    for (const conflict of read.conflicts)
      this.logger.warn(
        `Memory provider '${provider.name}': config conflict: ${describeConfigConflict(conflict)}.`,
      );
    return read.values;
  }

  private async initializeProviders(
    sessionId: string,
    input: ManagerInitInput,
    inspection: boolean,
  ): Promise<void> {
    const { config, ...ctx } = input;
    this.currentSessionId = sessionId;
    const hermesHome = ctx.hermesHome ?? resolveHermesHome(ctx.env ?? process.env);
    this.hermesHome = hermesHome;
    if (!this.spillCharsFixed) {
      const configured = outputSpillSetting(config?.raw);
      if (configured !== undefined) this.spillChars = configured;
    }
    let env = ctx.env;
    if (!env) {
      try {
        env = resolveEnv(hermesHome, process.env);
      } catch (error) {
        this.logger.warn(`Could not read ${hermesHome}/.env: ${describeError(error)}`);
        env = { ...process.env };
      }
    }
    const hostCallback = ctx.onMemoryWrite;
    const onMemoryWrite: NonNullable<InitContext['onMemoryWrite']> = (action, target, content, metadata) => {
      this.onMemoryWrite(action, target, content, metadata);
      if (hostCallback) {
        try {
          hostCallback(action, target, content, metadata);
        } catch (error) {
          this.logger.debug(`Host onMemoryWrite callback failed: ${describeError(error)}`);
        }
      }
    };
    for (const provider of this.list) {
      this.healthTracker.reset(provider);
      const hook = inspection ? 'initialize for inspection' : 'initialize';
      const outcome = await this.bounded(provider, hook, this.budgets.initialize, 'all', (signal) => {
        const context: InitContext = {
          ...ctx,
          hermesHome,
          platform: ctx.platform ?? 'cli',
          agentContext: ctx.agentContext ?? 'primary',
          logger: ctx.logger ?? this.logger,
          env,
          signal: ctx.signal ?? this.lifetime.signal,
          initializeSignal: signal,
          onMemoryWrite,
          providerConfig: ctx.providerConfig ?? this.configFor(provider, config),
          ...(inspection ? { inspectionOnly: true } : {}),
        };
        // Structural providers (plain objects from plugins) may lack the inspection hook.
        if (inspection && typeof provider.initializeForInspection === 'function') {
          return provider.initializeForInspection(sessionId, context);
        }
        return provider.initialize(sessionId, context);
      });
      if (!outcome.ok) {
        const why = failureText(hook, outcome, this.budgets.initialize);
        this.logger.warn(`Memory provider '${provider.name}' failed to ${hook}: ${why}`);
        this.healthTracker.down(provider, `${hook} failed: ${why}`);
      }
    }
    this.tools.refresh(this.list);
    // The first synced turn would otherwise compile the scanner and redaction on its provider's
    // queue (~60 ms in which a kill -9 loses it): do it now, a step per macrotask, off the turn.
    if (!inspection) void warmTextPaths(this.lifetime.signal);
  }

  /**
   * Static system-prompt blocks joined by a blank line; "" when none. Pass
   * `{includeExternal: false}` when the memory toolset is gated off for this agent
   * (`memoryProviderToolsEnabled` is false): the external provider's block is then withheld too.
   */
  buildSystemPrompt(options: { includeExternal?: boolean } = {}): string {
    const blocks: string[] = [];
    for (const provider of this.list) {
      if (options.includeExternal === false && provider.name !== BUILTIN) continue;
      try {
        const block = provider.systemPromptBlock();
        if (typeof block === 'string' && block.trim() !== '') blocks.push(block);
      } catch (error) {
        this.logger.warn(
          `Memory provider '${provider.name}' system prompt block failed: ${describeError(error)}`,
        );
      }
    }
    return blocks.join('\n\n');
  }

  /**
   * Recall for the upcoming turn, joined and fenced in `<memory-context>`; "" when nothing was
   * recalled or the turn is a bare skill invocation. Each provider gets `externalPrefetchTimeoutMs`
   * (its signal aborts then), and while a timed-out call is still running it is skipped instead
   * of stacking another call on it.
   */
  async prefetchAll(query: string, options: PrefetchOptions = {}): Promise<string> {
    const raw = await this.prefetchAllRaw(query, options);
    return buildMemoryContextBlock(raw, this.logger);
  }

  /** Like `prefetchAll` but without the fence (the joined provider texts). */
  async prefetchAllRaw(query: string, options: PrefetchOptions = {}): Promise<string> {
    const q = extractUserInstruction(flattenContent(query));
    if (q === null || q.trim() === '') return '';
    const opts: PrefetchOptions = { sessionId: options.sessionId ?? this.currentSessionId, ...options };
    const results = await Promise.all(this.list.map((p) => this.prefetchOne(p, q, opts)));
    if (this.secondaries.size === 0) return results.filter((r) => r.trim() !== '').join('\n\n');
    const sections = this.list.map((p, i) => ({ provider: p.name, text: results[i] ?? '' }));
    return composeRecall(sections, { budgetChars: this.recallBudgetChars });
  }

  private async prefetchOne(
    provider: MemoryProvider,
    query: string,
    options: PrefetchOptions,
  ): Promise<string> {
    if (this.stuckPrefetch.has(provider)) {
      this.logger.debug(`Skipping prefetch for '${provider.name}': its previous call is still running.`);
      return '';
    }
    const q = this.egress(provider, query);
    const budget = this.secondaries.get(provider)?.prefetchTimeoutMs ?? this.budgets.prefetch;
    let running: Promise<unknown> | undefined;
    const outcome = await this.bounded(
      provider,
      'prefetch',
      budget,
      'all',
      (signal) => {
        running = Promise.resolve().then(() => provider.prefetch(q, { ...options, signal }));
        return running;
      },
      options.signal,
    );
    if (outcome.ok) {
      const text = asText(outcome.value);
      return provider.name === BUILTIN ? text : this.spillIfOversized(provider, text);
    }
    if (outcome.timedOut) {
      this.logger.warn(
        `Memory provider '${provider.name}' prefetch exceeded ${budget} ms; continuing without it.`,
      );
      if (running) {
        this.stuckPrefetch.add(provider);
        const clear = () => this.stuckPrefetch.delete(provider);
        running.then(clear, clear);
      }
    } else {
      this.logger.debug(
        `Memory provider '${provider.name}' prefetch failed: ${describeError(outcome.error)}`,
      );
    }
    return '';
  }

  /** Start background recall for the next turn on every provider. Returns at once. */
  queuePrefetchAll(query: string, options: PrefetchOptions = {}): void {
    const q = extractUserInstruction(flattenContent(query));
    if (q === null || q.trim() === '') return;
    const opts: PrefetchOptions = { sessionId: options.sessionId ?? this.currentSessionId, ...options };
    for (const provider of this.list) {
      if (!runsHook(provider, 'queuePrefetch')) continue;
      const query = this.egress(provider, q);
      this.enqueue(provider, 'prefetch', 'queuePrefetch', 'debug', (signal) =>
        provider.queuePrefetch(query, { ...opts, signal }),
      );
    }
  }

  /**
   * Persist a finished turn on every provider. Returns at once; each provider has its own ordered
   * queue, so turn N reaches it before turn N+1 and a slow provider never delays another.
   */
  syncAll(userContent: string, assistantContent: string, options: SyncAllOptions = {}): void {
    const extracted = extractUserInstruction(flattenContent(userContent));
    if (extracted === null || extracted.trim() === '') return;
    const sessionId = options.sessionId ?? this.currentSessionId;
    const assistant = String(assistantContent ?? '');
    // The caller may keep mutating its transcript: the array is copied here. What scans the turn's
    // text runs on the queue, once for all providers: removing recall blocks the host left in its
    // API copy (none may reach a store), and the redacted hand-off for external providers (a
    // secret in any message is masked in all of them). After an idle gap every cold call costs
    // microseconds (`remote-run.ts noop`), so the caller's stack does only the bookkeeping.
    const transcript = options.messages && [...options.messages];
    let local: { user: string; assistant: string; messages: readonly ChatMessage[] | undefined } | undefined;
    let external: typeof local;
    const turnFor = (provider: MemoryProvider) => {
      local ??= {
        user: stripRecallBlocks(extracted),
        assistant: stripRecallBlocks(assistant),
        messages: transcript && stripTranscript(transcript),
      };
      if (!this.isRedacted(provider)) return local;
      external ??= redactSecretsDeep(local);
      return external;
    };
    for (const provider of this.writers()) {
      if (!runsHook(provider, 'syncTurn')) continue;
      this.enqueue(provider, 'sync', 'syncTurn', 'warn', (signal) => {
        const turn = turnFor(provider);
        return provider.syncTurn(turn.user, turn.assistant, {
          sessionId,
          ...(turn.messages ? { messages: turn.messages } : {}),
          ...(options.turnAuthor ? { turnAuthor: options.turnAuthor } : {}),
          signal,
        });
      });
    }
  }

  /** Wait for queued background work. True when everything drained (or nothing was queued). */
  async flushPending(timeoutMs?: number): Promise<boolean> {
    const deadline = timeoutMs === undefined ? undefined : this.clock.now() + timeoutMs;
    const left = () => (deadline === undefined ? undefined : Math.max(0, deadline - this.clock.now()));
    for (const queue of this.queues.values()) {
      if (!(await queue.drain(left()))) return false;
    }
    // Then each provider's own internal queue (e.g. builtin's session recording).
    for (const provider of this.list) {
      const outcome = await this.bounded(provider, 'flush', left() ?? Number.POSITIVE_INFINITY, 'none', () =>
        provider.flush(left()),
      );
      if (outcome.ok && outcome.value === false) return false;
      if (!outcome.ok) {
        if (outcome.timedOut) return false;
        this.logger.warn(`Memory provider '${provider.name}' flush failed: ${describeError(outcome.error)}`);
      }
    }
    return true;
  }

  /** Route a tool call. Always resolves to a JSON string within `toolCallTimeoutMs`; never throws. */
  async handleToolCall(name: string, args: unknown, options: ToolCallOptions = {}): Promise<string> {
    const provider = this.tools.get(name);
    if (!provider) return toolError(`No memory provider handles tool '${name}'`);
    const input = this.egress(provider, args);
    const outcome = await this.bounded(
      provider,
      `tool '${name}'`,
      this.budgets.toolCall,
      'all',
      (signal) =>
        provider.handleToolCall(name, input, {
          sessionId: options.sessionId ?? this.currentSessionId,
          ...options,
          signal,
        }),
      options.signal,
    );
    if (outcome.ok) {
      if (typeof outcome.value !== 'string')
        return toolError(`Memory tool '${name}' returned a non-string result.`);
      // Tool results are memory text too: nothing in them may open, close or imitate the fence.
      return neutralizeToolResult(outcome.value);
    }
    if (outcome.timedOut) {
      this.logger.error(
        `Memory tool '${name}' timed out after ${this.budgets.toolCall} ms in '${provider.name}'.`,
      );
      return toolError(`Memory tool '${name}' timed out after ${this.budgets.toolCall} ms.`);
    }
    this.logger.error(
      `Memory tool '${name}' failed in provider '${provider.name}': ${describeError(outcome.error)}`,
    );
    return toolError(`Memory tool '${name}' failed: ${describeError(outcome.error)}`);
  }

  /** Per-turn tick (1-based user turn number), before `prefetchAll`. */
  async onTurnStart(turnNumber: number, message: string, info: TurnStartInfo = {}): Promise<void> {
    await this.fanOut('onTurnStart', 'debug', (p, signal) =>
      p.onTurnStart(turnNumber, this.egress(p, message), { ...info, signal }),
    );
  }

  /**
   * End-of-session extraction, at real boundaries only. Each provider's `onSessionEnd` runs behind
   * its queued writes (so it sees every synced turn), within `sessionBoundaryTimeoutMs` counted
   * from this call. Resolves when every provider finished or ran out of time.
   */
  async onSessionEnd(messages: readonly ChatMessage[]): Promise<void> {
    const snapshot = [...stripTranscript(messages)];
    await Promise.all(
      this.writers().map(async (provider) => {
        const transcript = this.egress(provider, snapshot);
        const outcome = await this.behindQueue(provider, 'onSessionEnd', (signal) =>
          provider.onSessionEnd(transcript, { signal }),
        );
        if (!outcome.ok) {
          this.logger.warn(
            `Memory provider '${provider.name}' onSessionEnd failed: ${failureText('onSessionEnd', outcome, this.budgets.sessionBoundary)}`,
            { stack: outcome.error instanceof Error ? outcome.error.stack : undefined },
          );
        }
      }),
    );
  }

  /**
   * The session id rotated without teardown. No-op for an empty id. `rewound` reaches providers
   * only when true. Each provider switches behind its queued writes, within
   * `sessionBoundaryTimeoutMs`. Resolves false if any provider threw, returned false or ran out of
   * time; those providers are remembered for `retryPendingSessionSwitch`.
   */
  async onSessionSwitch(newSessionId: string, options: SessionSwitchOptions = {}): Promise<boolean> {
    if (!newSessionId) return true;
    const normalized = switchOptions(options);
    this.currentSessionId = newSessionId;
    const failed = await this.switchProviders(this.list, newSessionId, normalized);
    this.pendingSwitch = failed.length > 0 ? { newSessionId, options: normalized, failed } : undefined;
    return failed.length === 0;
  }

  /** Retry the last session switch on the providers that failed it. True when none remain. */
  async retryPendingSessionSwitch(): Promise<boolean> {
    const pending = this.pendingSwitch;
    if (!pending) return true;
    const failed = await this.switchProviders(pending.failed, pending.newSessionId, pending.options);
    this.pendingSwitch = failed.length > 0 ? { ...pending, failed } : undefined;
    return failed.length === 0;
  }

  /** True while a session switch has providers that still need it. */
  get hasPendingSessionSwitch(): boolean {
    return this.pendingSwitch !== undefined;
  }

  private async switchProviders(
    providers: readonly MemoryProvider[],
    newSessionId: string,
    options: SessionSwitchOptions,
  ): Promise<MemoryProvider[]> {
    const results = await Promise.all(
      providers.map(async (provider) => {
        const outcome = await this.behindQueue(provider, 'onSessionSwitch', (signal) =>
          provider.onSessionSwitch(newSessionId, { ...options, signal }),
        );
        if (outcome.ok) return outcome.value === false ? provider : undefined;
        this.logger.debug(
          `Memory provider '${provider.name}' onSessionSwitch failed: ${failureText('onSessionSwitch', outcome, this.budgets.sessionBoundary)}`,
        );
        return provider;
      }),
    );
    return results.filter((p): p is MemoryProvider => p !== undefined);
  }

  /**
   * A /new or /reset boundary as one ordered step per provider: `onSessionEnd` with the old
   * transcript, THEN `onSessionSwitch(reset: true)`, behind any queued syncs — so the
   * end-of-session extraction can never race the rebinding. Returns at once; the promise tells
   * whether every provider switched within `sessionBoundaryTimeoutMs`.
   */
  commitSessionBoundary(messages: readonly ChatMessage[], options: SessionBoundaryOptions): Promise<boolean> {
    const { newSessionId } = options;
    const switchOpts = switchOptions({
      parentSessionId: options.parentSessionId ?? this.currentSessionId,
      reset: true,
      ...(options.reason ? { reason: options.reason } : {}),
    });
    if (newSessionId) this.currentSessionId = newSessionId;
    const snapshot = [...stripTranscript(messages)];
    const writers = new Set(this.writers());
    const results = this.list.map(async (provider) => {
      const transcript = this.egress(provider, snapshot);
      const outcome = await this.behindQueue(provider, 'session boundary', async (signal) => {
        try {
          // A read-only secondary switches sessions but never sees the transcript.
          if (writers.has(provider)) await provider.onSessionEnd(transcript, { signal });
        } catch (error) {
          this.logger.warn(`Memory provider '${provider.name}' onSessionEnd failed: ${describeError(error)}`);
        }
        if (!newSessionId) return true;
        return (await provider.onSessionSwitch(newSessionId, { ...switchOpts, signal })) !== false;
      });
      if (!outcome.ok) {
        this.logger.debug(
          `Memory provider '${provider.name}' session boundary failed: ${failureText('session boundary', outcome, this.budgets.sessionBoundary)}`,
        );
        return false;
      }
      return outcome.value;
    });
    return Promise.all(results).then((all) => all.every(Boolean));
  }

  /** Whether any provider implements the fail-closed checkpoint contract (API v2). */
  supportsPreCompressCheckpoint(): boolean {
    return this.writers().some((p) => p.preCompressCheckpointApiVersion >= 2);
  }

  /**
   * Before lossy compression: each provider may add text to the summary prompt (joined by a blank
   * line), within `hookTimeoutMs`. v2 providers get host-normalised evidence and
   * `requireCheckpoint`. With checkpoints required, a failing (or timed-out) v2 provider's error
   * propagates, and having no v2 provider succeed throws — the host must then keep the
   * uncompressed transcript.
   */
  async onPreCompress(
    messages: readonly ChatMessage[],
    options: { checkpointRequired?: boolean } = {},
  ): Promise<string> {
    const required = options.checkpointRequired ?? this.checkpointRequired;
    const evidence = checkpointEvidence(messages);
    const texts: string[] = [];
    let firstCheckpointError: unknown;
    let checkpointSucceeded = false;
    for (const provider of this.writers()) {
      const v2 = provider.preCompressCheckpointApiVersion >= 2;
      const outcome = await this.bounded(
        provider,
        'onPreCompress',
        this.budgets.hook,
        'failures',
        (signal) =>
          v2
            ? provider.onPreCompress(this.egress(provider, evidence), { requireCheckpoint: required, signal })
            : provider.onPreCompress(this.egress(provider, messages), { signal }),
      );
      if (outcome.ok) {
        if (v2) checkpointSucceeded = true;
        if (typeof outcome.value === 'string' && outcome.value.trim() !== '') texts.push(outcome.value);
      } else {
        this.logger.debug(
          `Memory provider '${provider.name}' onPreCompress failed: ${describeError(outcome.error)}`,
        );
        if (v2 && required && firstCheckpointError === undefined) firstCheckpointError = outcome.error;
      }
    }
    if (required) {
      if (firstCheckpointError !== undefined) throw firstCheckpointError;
      if (!checkpointSucceeded) {
        throw new MemoryError(
          'Pre-compress checkpoint required, but no checkpoint provider succeeded; keep the transcript uncompressed.',
        );
      }
    }
    return texts.join('\n\n');
  }

  /**
   * Mirror a committed builtin write (add, replace or remove) to every other provider, on each
   * one's ordered queue. The builtin provider is the source and is skipped. Each provider gets its
   * own copy of the metadata.
   */
  onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ): void {
    const targets = this.writers().filter((p) => p.name !== BUILTIN && runsHook(p, 'onMemoryWrite'));
    if (action !== 'remove' && targets.length > 0) {
      // The store that committed the write may not scan (a host's own store): what reaches an
      // external provider is later injected into prompts, so it passes the write scanner here.
      const scan = scanWrite(String(content ?? ''));
      if (!scan.ok) {
        this.logger.warn(`Memory write not mirrored to external providers: ${scan.message}`);
        return;
      }
    }
    for (const provider of targets) {
      // One hand-off: a secret in the content is also masked in oldText/previousContent.
      const write = this.egress(provider, { content, meta: { ...(metadata ?? {}) } as MemoryWriteMetadata });
      this.enqueue(provider, 'memory-write', 'onMemoryWrite', 'debug', (signal) =>
        provider.onMemoryWrite(action, target, write.content, write.meta, { signal }),
      );
    }
  }

  /**
   * For hosts that own the memory store themselves (not as a registered builtin provider): mirror
   * a `memory` tool call only if its result reports a committed write. Batched `operations` are
   * expanded; `previousContent` comes only from the store's result, never from the arguments.
   * Returns the number of writes mirrored.
   */
  notifyMemoryToolWrite(toolResult: string, toolArgs: unknown, metadata?: MetadataSource): number {
    const ops = mirrorOperations(toolResult, toolArgs);
    if (ops.length === 0) return 0;
    const base = typeof metadata === 'function' ? safeCall(metadata, this.logger) : metadata;
    for (const op of ops) {
      const meta: MemoryWriteMetadata = { ...(base ?? {}) };
      if (op.oldText !== undefined) meta.oldText = op.oldText;
      if (op.previousContent !== undefined) meta.previousContent = op.previousContent;
      this.onMemoryWrite(op.action, op.target, op.content, meta);
    }
    return ops.length;
  }

  /** A subagent finished; tell the parent's providers. */
  async onDelegation(task: string, result: string, options: DelegationOptions = {}): Promise<void> {
    await this.fanOut(
      'onDelegation',
      'debug',
      (p, signal) => {
        const d = this.egress(p, { task, result, options: { ...options } });
        return p.onDelegation(d.task, d.result, { ...d.options, signal });
      },
      this.writers(),
    );
  }

  /**
   * "🧠 Honcho — recalled 3 memories" segments for what the last prefetch injected, then a
   * "⚠️ Honcho — memory unavailable: <reason>" segment for each provider that is down or degraded;
   * "" when there is nothing to show.
   */
  describeRecall(): string {
    const segments: string[] = [];
    const warnings: string[] = [];
    for (const { provider, recall, health } of this.recallStatuses()) {
      const label = recall?.providerLabel || provider;
      if (recall) {
        const count = Number.isFinite(recall.count) ? Math.trunc(recall.count) : 0;
        const what =
          count <= 0
            ? 'recalled relevant memory'
            : count === 1
              ? 'recalled 1 memory'
              : `recalled ${count} memories`;
        segments.push(`${recall.glyph ?? DEFAULT_GLYPH} ${label} — ${what}`);
      }
      if (health.status === 'down' || health.status === 'degraded') {
        const state = health.status === 'down' ? 'memory unavailable' : 'memory degraded';
        warnings.push(`⚠️ ${label} — ${state}${health.reason ? `: ${health.reason}` : ''}`);
      }
    }
    return [...segments, ...warnings].join('  ');
  }

  /** Per provider: what its last prefetch injected (`recallStatus()`) and its runtime health. */
  recallStatuses(): ProviderRecallStatus[] {
    return this.list.map((provider) => {
      let recall: ProviderRecallStatus['recall'] = null;
      try {
        recall = provider.recallStatus() ?? null;
      } catch (error) {
        this.logger.debug(`Memory provider '${provider.name}' recallStatus failed: ${describeError(error)}`);
      }
      return { provider: provider.name, recall, health: this.healthTracker.current(provider) };
    });
  }

  /** One provider's health (observed calls combined with its own `health()`), null if not registered. */
  getProviderHealth(name: string): ProviderHealth | null {
    const provider = this.getProvider(name);
    return provider ? this.healthTracker.current(provider) : null;
  }

  /** Every registered provider's health, builtin first: for status commands, doctor and MCP. */
  healthReport(): ProviderHealthReport[] {
    return this.list.map((provider) => ({
      provider: provider.name,
      ...this.healthTracker.current(provider),
    }));
  }

  /**
   * Run each provider's explicit connection probe (setup, doctor; never on the hot path), each
   * within `hookTimeoutMs` or `options.timeoutMs`. The outcome is recorded in health.
   */
  async probeProviders(
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<Array<ProbeResult & { provider: string }>> {
    const timeoutMs = options.timeoutMs ?? this.budgets.hook;
    return Promise.all(
      this.list.map(async (provider) => {
        const started = this.clock.now();
        const outcome = await this.bounded(
          provider,
          'probe',
          timeoutMs,
          'failures',
          (signal) =>
            typeof provider.probe === 'function'
              ? provider.probe({ signal })
              : ({ status: 'skipped', message: 'no connection probe' } as ProbeResult),
          options.signal,
        );
        const latencyMs = this.clock.now() - started;
        if (!outcome.ok) {
          return {
            provider: provider.name,
            status: 'failed' as const,
            message: failureText('probe', outcome, timeoutMs),
            latencyMs,
          };
        }
        const result = outcome.value;
        if (result.status === 'ok') this.healthTracker.success(provider);
        if (result.status === 'failed')
          this.healthTracker.failure(provider, `probe failed: ${result.message}`);
        return { provider: provider.name, latencyMs, ...result };
      }),
    );
  }

  /**
   * Drain queued work (bounded by `shutdownDrainMs`), then shut providers down in reverse
   * registration order, each within `shutdownTimeoutMs` (a provider still running past it is
   * abandoned and named in the result). Work submitted after this starts is refused with a
   * WARNING. Idempotent.
   */
  shutdownAll(): Promise<DrainState> {
    if (!this.shutdownState) this.shutdownState = this.runShutdown();
    return this.shutdownState;
  }

  private async runShutdown(): Promise<DrainState> {
    const queues = [...this.queues.values()];
    for (const q of queues) q.close();
    const state: DrainState = {
      status: 'idle',
      abandonedWrites: 0,
      abandonedPrefetches: 0,
      activeTasks: 0,
      droppedTasks: this.droppedTasks,
      timedOutProviders: [],
    };
    if (queues.some((q) => q.size > 0)) {
      const drained = await this.flushPending(this.budgets.shutdownDrain);
      state.status = drained ? 'drained' : 'timeout';
      if (!drained) {
        for (const q of queues) {
          if (q.active) state.activeTasks++;
          for (const label of q.abandon()) {
            if (WRITE_LABELS.has(label)) state.abandonedWrites++;
            else state.abandonedPrefetches++;
          }
        }
        this.logger.warn(
          `Memory shutdown drain timed out after ${this.budgets.shutdownDrain} ms: abandoned ${state.abandonedWrites} writes and ${state.abandonedPrefetches} prefetches; ${state.activeTasks} tasks still running.`,
        );
      }
    }
    const timeoutMs = this.budgets.shutdown;
    for (const provider of [...this.list].reverse()) {
      const outcome = await this.bounded(provider, 'shutdown', timeoutMs, 'failures', (signal) =>
        provider.shutdown({ signal, timeoutMs }),
      );
      if (!outcome.ok) {
        if (outcome.timedOut) state.timedOutProviders.push(provider.name);
        this.logger.warn(
          `Memory provider '${provider.name}' shutdown failed: ${failureText('shutdown', outcome, timeoutMs)}`,
        );
      }
    }
    this.lifetime.abort(new MemoryError('Memory manager shut down.'));
    return state;
  }

  // ── Internals ───────────────────────────────────────────────────────────────────────────────

  /**
   * Call a provider hook with a signal that aborts at `timeoutMs` (or when `parent` aborts), and
   * settle no later than that. Never throws. The outcome is recorded in the provider's health
   * as `observe` says.
   */
  private async bounded<T>(
    provider: MemoryProvider,
    hook: string,
    timeoutMs: number,
    observe: Observe,
    run: (signal: AbortSignal) => T | PromiseLike<T>,
    parent?: AbortSignal,
  ): Promise<Outcome<Awaited<T>>> {
    try {
      const value = (await withDeadline(run, {
        timeoutMs,
        clock: this.clock,
        label: `${hook} '${provider.name}'`,
        ...(parent ? { signal: parent } : {}),
      })) as Awaited<T>;
      if (observe === 'all') this.healthTracker.success(provider);
      return { ok: true, value };
    } catch (error) {
      if (parent?.aborted) return { ok: false, error, timedOut: false };
      const timedOut = TimeoutError.isInstance(error);
      if (observe !== 'none')
        this.healthTracker.failure(
          provider,
          `${hook} ${timedOut ? 'timed out' : 'failed'}: ${describeError(error)}`,
        );
      return { ok: false, error, timedOut };
    }
  }

  /**
   * Run a hook behind everything already queued for `provider`, within `sessionBoundaryTimeoutMs`
   * from now (queue wait included). A task still waiting at the deadline is taken off the queue;
   * one already running is abandoned (its signal aborts).
   */
  private behindQueue<T>(
    provider: MemoryProvider,
    hook: string,
    run: (signal: AbortSignal) => T | PromiseLike<T>,
  ): Promise<Outcome<Awaited<T>>> {
    const timeoutMs = this.budgets.sessionBoundary;
    const deadline = createDeadline({ timeoutMs, clock: this.clock, label: `${hook} '${provider.name}'` });
    return new Promise<Outcome<Awaited<T>>>((resolve) => {
      let settled = false;
      const finish = (outcome: Outcome<Awaited<T>>) => {
        if (settled) return;
        settled = true;
        deadline.dispose();
        resolve(outcome);
      };
      const task = async () => {
        if (deadline.signal.aborted) return;
        const outcome = await this.bounded(provider, hook, deadline.remainingMs(), 'all', run);
        finish(outcome);
      };
      deadline.signal.addEventListener(
        'abort',
        () => {
          const queue = this.queues.get(provider);
          const waiting = queue?.remove(task) ?? false;
          if (waiting) {
            this.healthTracker.failure(provider, `${hook} timed out waiting behind queued work`);
          }
          finish({ ok: false, error: deadline.signal.reason, timedOut: true });
        },
        { once: true },
      );
      if (!this.pushTask(provider, 'session-boundary', task)) {
        finish({ ok: false, error: new MemoryError('Memory manager is shut down.'), timedOut: false });
      }
    });
  }

  /** Queue a background hook call with its own budget; failures are logged at `level`. */
  private enqueue(
    provider: MemoryProvider,
    label: string,
    hook: string,
    level: 'debug' | 'warn',
    run: (signal: AbortSignal) => unknown,
  ): boolean {
    return this.pushTask(provider, label, async () => {
      const outcome = await this.bounded(provider, hook, this.budgets.background, 'all', run);
      if (!outcome.ok) {
        this.logger[level](
          `Memory provider '${provider.name}' ${hook} failed: ${failureText(hook, outcome, this.budgets.background)}`,
        );
      }
    });
  }

  private pushTask(provider: MemoryProvider, label: string, task: () => Promise<void>): boolean {
    if (this.shutdownState) {
      this.logger.warn(
        `Rejected '${label}' for memory provider '${provider.name}': submitted after shutdown.`,
      );
      return false;
    }
    let queue = this.queues.get(provider);
    if (!queue) {
      queue = new SerialQueue({
        name: `memory provider '${provider.name}'`,
        logger: this.logger,
        clock: this.clock,
      });
      this.queues.set(provider, queue);
    }
    if (queue.queued >= this.maxQueuedTasks) this.dropOldest(provider, queue);
    else if (this.overflowing.has(provider)) this.caughtUp(provider);
    return queue.push(task, label);
  }

  /**
   * A provider's queue is full: an earlier call has not finished (a backend hanging each call
   * until its budget) while turns keep coming. Drop the oldest waiting task so what the manager
   * holds stays bounded; the newest turns are the ones worth delivering once it recovers. Once
   * per episode: a WARNING and a health failure; the count is kept for `shutdownAll`.
   */
  private dropOldest(provider: MemoryProvider, queue: SerialQueue): void {
    const label = queue.dropOldest((l) => DROPPABLE_LABELS.has(l));
    if (label === undefined) return;
    this.droppedTasks++;
    const dropped = this.overflowing.get(provider);
    this.overflowing.set(provider, (dropped ?? 0) + 1);
    if (dropped !== undefined) return;
    const why = `${this.maxQueuedTasks} tasks queued behind a call that has not finished; dropping the oldest (first a '${label}')`;
    this.logger.warn(`Memory provider '${provider.name}': ${why}.`);
    this.healthTracker.failure(provider, why);
  }

  private caughtUp(provider: MemoryProvider): void {
    const dropped = this.overflowing.get(provider) ?? 0;
    this.overflowing.delete(provider);
    this.logger.info(
      `Memory provider '${provider.name}' queue is below ${this.maxQueuedTasks} again; ${dropped} queued tasks were dropped.`,
    );
  }

  /** Call a hook on every provider in order, each within `hookTimeoutMs`; failures logged at `level`. */
  private async fanOut(
    hook: string,
    level: 'debug' | 'warn',
    call: (provider: MemoryProvider, signal: AbortSignal) => unknown,
    providers: readonly MemoryProvider[] = this.list,
  ): Promise<void> {
    for (const provider of providers) {
      const outcome = await this.bounded(provider, hook, this.budgets.hook, 'failures', (signal) =>
        call(provider, signal),
      );
      if (!outcome.ok) {
        this.logger[level](
          `Memory provider '${provider.name}' ${hook} failed: ${failureText(hook, outcome, this.budgets.hook)}`,
        );
      }
    }
  }

  /** Whether what this provider receives is redacted: every external provider, unless disabled. */
  private isRedacted(provider: MemoryProvider): boolean {
    return this.redactEgress && provider.name !== BUILTIN;
  }

  /**
   * What `provider` may receive of `value`: a redacted copy for an external provider (one
   * hand-off: a secret found anywhere in `value` is masked everywhere in it), `value` itself for
   * the local builtin store. The caller's object is never mutated.
   */
  private egress<T>(provider: MemoryProvider, value: T): T {
    return this.isRedacted(provider) ? redactSecretsDeep(value) : value;
  }

  /** Replace an oversized external recall by a head/tail preview and the file holding all of it. */
  private spillIfOversized(provider: MemoryProvider, text: string): string {
    if (text.length <= this.spillChars) return text;
    const hermesHome = this.hermesHome ?? resolveHermesHome(process.env);
    const { preview, file, error } = spillText(text, {
      hermesHome,
      limit: this.spillChars,
      label: provider.name,
    });
    if (file) {
      this.logger.info(
        `Memory provider '${provider.name}' recall (${text.length} chars) exceeded ${this.spillChars}; spilled to ${file}.`,
      );
    } else {
      this.logger.warn(
        `Memory provider '${provider.name}' recall (${text.length} chars) exceeded ${this.spillChars} and could not be spilled (${error ?? 'unknown error'}); truncated.`,
      );
    }
    return preview;
  }
}

/** Why `options` cannot register provider `name`, or undefined when they can. */
function registrationProblem(name: string, options: AddProviderOptions): string | undefined {
  const { role, prefetchTimeoutMs } = options;
  if (role !== undefined && role !== 'canonical' && role !== 'secondary')
    return `unknown role '${String(role)}' (expected 'canonical' or 'secondary').`;
  if (role === 'secondary' && name === BUILTIN) return 'the builtin store cannot be a secondary provider.';
  if (prefetchTimeoutMs !== undefined) {
    if (role !== 'secondary') return 'prefetchTimeoutMs is a secondary provider option.';
    if (!(prefetchTimeoutMs > 0) || !Number.isFinite(prefetchTimeoutMs))
      return `prefetchTimeoutMs must be a finite number > 0 (got ${String(prefetchTimeoutMs)}).`;
  }
  return undefined;
}

/** One line on why a bounded call did not succeed. */
function failureText(
  hook: string,
  outcome: { error: unknown; timedOut: boolean },
  timeoutMs: number,
): string {
  return outcome.timedOut ? `${hook} timed out after ${timeoutMs} ms` : describeError(outcome.error);
}

/** `hooks.output_spill` from config.yaml, when it is a positive number. */
function outputSpillSetting(raw: Record<string, unknown> | undefined): number | undefined {
  const hooks = raw?.hooks;
  if (typeof hooks !== 'object' || hooks === null) return undefined;
  const value = (hooks as Record<string, unknown>).output_spill;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && n > 0 && Number.isFinite(n) ? n : undefined;
}

/**
 * A transcript with recall blocks removed from every text (see `stripRecallBlocks`): a copy when
 * something changed, else the same array.
 */
function stripTranscript(messages: readonly ChatMessage[]): readonly ChatMessage[] {
  const out = messages.map((m) => {
    if (typeof m.content === 'string') {
      const content = stripRecallBlocks(m.content);
      return content === m.content ? m : { ...m, content };
    }
    if (!Array.isArray(m.content)) return m;
    let changed = false;
    const parts = m.content.map((part) => {
      if (part.type !== 'text' || typeof part.text !== 'string') return part;
      const text = stripRecallBlocks(part.text);
      if (text === part.text) return part;
      changed = true;
      return { ...part, text };
    });
    return changed ? { ...m, content: parts } : m;
  });
  return out.some((m, i) => m !== messages[i]) ? out : messages;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function safeCall(fn: () => MemoryWriteMetadata, logger: Logger): MemoryWriteMetadata | undefined {
  try {
    return fn();
  } catch (error) {
    logger.debug(`Building memory-write metadata failed: ${describeError(error)}`);
    return undefined;
  }
}

/** `rewound` is forwarded only when true; everything else is passed through. */
function switchOptions(options: SessionSwitchOptions): SessionSwitchOptions {
  const { rewound, parentSessionId, reset, signal: _signal, ...rest } = options;
  return {
    ...rest,
    parentSessionId: parentSessionId ?? '',
    reset: reset === true,
    ...(rewound === true ? { rewound: true } : {}),
  };
}

const SUMMARY_PREFIXES = ['[CONTEXT COMPACTION', '[CONTEXT SUMMARY', '[Previous conversation summary'];

/**
 * The transcript a v2 checkpoint provider sees: user and assistant text only. Tool results,
 * system messages, tool-call payloads and earlier compaction summaries are removed.
 */
export function checkpointEvidence(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    const text = flattenContent(m.content).trim();
    if (text === '') continue;
    if (SUMMARY_PREFIXES.some((p) => text.startsWith(p))) continue;
    out.push({ role: m.role, content: text });
  }
  return out;
}
