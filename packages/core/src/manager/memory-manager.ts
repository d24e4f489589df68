import { SerialQueue } from '../background/serial-queue';
import { TimeoutError, withTimeout } from '../background/timeout';
import { resolveEnv } from '../config/env-file';
import { resolveHermesHome } from '../config/home';
import { MemoryError, SettingsError } from '../errors/memory-error';
import { buildMemoryContextBlock, flattenContent } from '../fencing';
import type { ChatMessage } from '../llm/types';
import { type Logger, silentLogger } from '../logging/logger';
import { redactSecretsDeep } from '../logging/redact';
import { type MemoryProvider, providerConfigPaths } from '../provider/memory-provider';
import { describeConfigConflict, readProviderConfig } from '../config/provider-config';
import type {
  DelegationOptions,
  InitContext,
  MemoryTarget,
  MemoryWriteAction,
  MemoryWriteMetadata,
  PrefetchOptions,
  SessionSwitchOptions,
  ToolCallOptions,
  ToolSchema,
  TurnStartInfo,
} from '../provider/types';
import { describeError, toolError } from '../tools/results';
import { mirrorOperations } from './notify';
import { BUILTIN_TOOL_NAMES, isReservedToolName } from './reserved-names';
import { normalizeToolSchema } from './schemas';
import { extractUserInstruction } from './skill-scaffolding';
import { DEFAULT_SPILL_CHARS, spillText } from './spill';
import type {
  DrainState,
  ManagerInitInput,
  MemoryManagerOptions,
  MetadataSource,
  SessionBoundaryOptions,
  SyncAllOptions,
} from './types';

const BUILTIN = 'builtin';
const DEFAULT_GLYPH = '🧠';

/** Task labels, so a timed-out shutdown can say what it abandoned. */
const WRITE_LABELS = new Set(['sync', 'memory-write', 'session-boundary']);

/**
 * Drives memory providers through the Hermes lifecycle: the builtin store first, at most one
 * external provider, tool routing, fenced recall, ordered background sync and a bounded shutdown.
 *
 * Every fan-out isolates provider failures: one broken provider is logged and skipped, never
 * allowed to stop the others or to throw into the agent loop.
 */
export class MemoryManager {
  private readonly logger: Logger;
  private readonly externalPrefetchTimeoutMs: number;
  private readonly shutdownDrainMs: number;
  private readonly extraReserved: ReadonlySet<string>;
  private readonly checkpointRequired: boolean;
  private readonly redactEgress: boolean;
  private spillChars: number;
  private readonly spillCharsFixed: boolean;
  private hermesHome: string | undefined;

  private readonly list: MemoryProvider[] = [];
  private readonly toolRoutes = new Map<string, MemoryProvider>();
  private readonly warnedTools = new Set<string>();
  private readonly queues = new Map<MemoryProvider, SerialQueue>();
  /** External prefetches still running after their budget ran out: skipped until they settle. */
  private readonly stuckPrefetch = new Set<MemoryProvider>();
  private readonly lifetime = new AbortController();
  private pendingSwitch:
    | { newSessionId: string; options: SessionSwitchOptions; failed: MemoryProvider[] }
    | undefined;
  private shutdownState: Promise<DrainState> | undefined;
  private currentSessionId = '';

  constructor(options: MemoryManagerOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    const timeout = options.externalPrefetchTimeoutMs ?? 8000;
    if (!(timeout > 0) || !Number.isFinite(timeout)) {
      throw new SettingsError(
        'externalPrefetchTimeoutMs',
        'externalPrefetchTimeoutMs must be a positive number.',
      );
    }
    this.externalPrefetchTimeoutMs = timeout;
    const drain = options.shutdownDrainMs ?? 5000;
    if (!(drain >= 0) || !Number.isFinite(drain)) {
      throw new SettingsError('shutdownDrainMs', 'shutdownDrainMs must be a non-negative number.');
    }
    this.shutdownDrainMs = drain;
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
    this.spillCharsFixed = options.prefetchSpillChars !== undefined;
  }

  // ── Registration ────────────────────────────────────────────────────────────────────────────

  /**
   * Register a provider. The builtin provider is always accepted and placed first; at most one
   * external provider is accepted (a second is refused with a WARNING, nothing changes). Tool
   * schemas are read before any state changes, so a provider whose schemas throw is refused cleanly.
   */
  addProvider(provider: MemoryProvider): boolean {
    const name = provider?.name;
    if (typeof name !== 'string' || name.trim() === '') {
      this.logger.warn('Refused a memory provider without a name.');
      return false;
    }
    if (this.shutdownState) {
      this.logger.warn(`Refused memory provider '${name}': the memory manager is shut down.`);
      return false;
    }
    let schemas: ToolSchema[];
    try {
      schemas = this.normalizedSchemas(provider, provider.getToolSchemas());
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
    if (name !== BUILTIN) {
      const existing = this.list.find((p) => p.name !== BUILTIN);
      if (existing) {
        this.logger.warn(
          `Rejected memory provider '${name}' — external provider '${existing.name}' is already registered. ` +
            'Only one external memory provider is allowed at a time. Configure which one via memory.provider in config.yaml.',
        );
        return false;
      }
      this.list.push(provider);
    } else {
      this.list.unshift(provider);
    }
    const routed = this.route(provider, schemas);
    this.logger.info(`Memory provider '${name}' registered (${routed} tools)`);
    return true;
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

  /** Every routed tool schema, deduplicated by name, in provider order. */
  getAllToolSchemas(): ToolSchema[] {
    const out: ToolSchema[] = [];
    const seen = new Set<string>();
    for (const provider of this.list) {
      let schemas: ToolSchema[];
      try {
        schemas = this.normalizedSchemas(provider, provider.getToolSchemas());
      } catch (error) {
        this.logger.warn(
          `Memory provider '${provider.name}' failed to list its tools: ${describeError(error)}`,
        );
        continue;
      }
      this.route(provider, schemas);
      for (const schema of schemas) {
        if (seen.has(schema.name) || this.toolRoutes.get(schema.name) !== provider) continue;
        seen.add(schema.name);
        out.push(schema);
      }
    }
    return out;
  }

  getAllToolNames(): string[] {
    return [...this.toolRoutes.keys()];
  }

  hasTool(name: string): boolean {
    return this.toolRoutes.has(name);
  }

  // ── Lifecycle ───────────────────────────────────────────────────────────────────────────────

  /**
   * Initialise every provider in order. Fills in what the host did not pass: `hermesHome` (from
   * HERMES_HOME or ~/.hermes), platform "cli", agentContext "primary", the env (process env
   * overlaid with `<hermesHome>/.env`), a logger, an abort signal, each provider's config block,
   * and `onMemoryWrite` — the fan-out that mirrors builtin writes to the external provider.
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
      const context: InitContext = {
        ...ctx,
        hermesHome,
        platform: ctx.platform ?? 'cli',
        agentContext: ctx.agentContext ?? 'primary',
        logger: ctx.logger ?? this.logger,
        env,
        signal: ctx.signal ?? this.lifetime.signal,
        onMemoryWrite,
        providerConfig: ctx.providerConfig ?? this.configFor(provider, config),
        ...(inspection ? { inspectionOnly: true } : {}),
      };
      try {
        // Structural providers (plain objects from plugins) may lack the inspection hook.
        if (inspection && typeof provider.initializeForInspection === 'function') {
          await provider.initializeForInspection(sessionId, context);
        } else {
          await provider.initialize(sessionId, context);
        }
      } catch (error) {
        this.logger.warn(
          `Memory provider '${provider.name}' failed to initialize${inspection ? ' for inspection' : ''}: ${describeError(error)}`,
        );
      }
    }
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
   * recalled or the turn is a bare skill invocation. The builtin provider runs inline; an external
   * provider gets `externalPrefetchTimeoutMs`, and while a timed-out call is still running it is
   * skipped instead of stacking another call on it.
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
    return results.filter((r) => r.trim() !== '').join('\n\n');
  }

  private async prefetchOne(
    provider: MemoryProvider,
    query: string,
    options: PrefetchOptions,
  ): Promise<string> {
    if (provider.name === BUILTIN) {
      try {
        return asText(await provider.prefetch(query, { ...options }));
      } catch (error) {
        this.logger.debug(`Memory provider '${provider.name}' prefetch failed: ${describeError(error)}`);
        return '';
      }
    }
    if (this.stuckPrefetch.has(provider)) {
      this.logger.debug(`Skipping prefetch for '${provider.name}': its previous call is still running.`);
      return '';
    }
    const q = this.egress(provider, query);
    const call = Promise.resolve().then(() => provider.prefetch(q, { ...options }));
    try {
      const text = asText(
        await withTimeout(call, this.externalPrefetchTimeoutMs, undefined, `prefetch '${provider.name}'`),
      );
      return this.spillIfOversized(provider, text);
    } catch (error) {
      if (TimeoutError.isInstance(error)) {
        this.logger.warn(
          `Memory provider '${provider.name}' prefetch exceeded ${this.externalPrefetchTimeoutMs} ms; continuing without it.`,
        );
        this.stuckPrefetch.add(provider);
        call.then(
          () => this.stuckPrefetch.delete(provider),
          () => this.stuckPrefetch.delete(provider),
        );
      } else {
        this.logger.debug(`Memory provider '${provider.name}' prefetch failed: ${describeError(error)}`);
      }
      return '';
    }
  }

  /** Start background recall for the next turn on every provider. Returns at once. */
  queuePrefetchAll(query: string, options: PrefetchOptions = {}): void {
    const q = extractUserInstruction(flattenContent(query));
    if (q === null || q.trim() === '') return;
    const opts: PrefetchOptions = { sessionId: options.sessionId ?? this.currentSessionId, ...options };
    for (const provider of this.list) {
      const query = this.egress(provider, q);
      this.enqueue(provider, 'prefetch', async () => {
        try {
          await provider.queuePrefetch(query, { ...opts });
        } catch (error) {
          this.logger.debug(
            `Memory provider '${provider.name}' queuePrefetch failed: ${describeError(error)}`,
          );
        }
      });
    }
  }

  /**
   * Persist a finished turn on every provider. Returns at once; each provider has its own ordered
   * queue, so turn N reaches it before turn N+1 and a slow provider never delays another.
   */
  syncAll(userContent: string, assistantContent: string, options: SyncAllOptions = {}): void {
    const user = extractUserInstruction(flattenContent(userContent));
    if (user === null || user.trim() === '') return;
    const sessionId = options.sessionId ?? this.currentSessionId;
    // One snapshot for the builtin (the caller may keep mutating its transcript), one redacted
    // hand-off for the external provider: a secret in any message is masked in all of them.
    const local = { user, assistant: assistantContent, messages: options.messages && [...options.messages] };
    let external: typeof local | undefined;
    for (const provider of this.list) {
      if (this.isRedacted(provider) && !external) external = redactSecretsDeep(local);
      const turn = this.isRedacted(provider) && external ? external : local;
      this.enqueue(provider, 'sync', () =>
        provider.syncTurn(turn.user, turn.assistant, {
          sessionId,
          ...(turn.messages ? { messages: turn.messages } : {}),
          ...(options.turnAuthor ? { turnAuthor: options.turnAuthor } : {}),
        }),
      );
    }
  }

  /** Wait for queued background work. True when everything drained (or nothing was queued). */
  async flushPending(timeoutMs?: number): Promise<boolean> {
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    const left = () => (deadline === undefined ? undefined : Math.max(0, deadline - Date.now()));
    for (const queue of this.queues.values()) {
      if (!(await queue.drain(left()))) return false;
    }
    // Then each provider's own internal queue (e.g. builtin's session recording).
    for (const provider of this.list) {
      try {
        const flushed = provider.flush(left());
        const ok =
          deadline === undefined ? await flushed : await withTimeout(Promise.resolve(flushed), left() ?? 0);
        if (ok === false) return false;
      } catch (error) {
        if (error instanceof TimeoutError) return false;
        this.logger.warn(`Memory provider '${provider.name}' flush failed: ${describeError(error)}`);
      }
    }
    return true;
  }

  /** Route a tool call. Always resolves to a JSON string; never throws. */
  async handleToolCall(name: string, args: unknown, options: ToolCallOptions = {}): Promise<string> {
    const provider = this.toolRoutes.get(name);
    if (!provider) return toolError(`No memory provider handles tool '${name}'`);
    try {
      const result = await provider.handleToolCall(name, this.egress(provider, args), {
        sessionId: options.sessionId ?? this.currentSessionId,
        ...options,
      });
      if (typeof result !== 'string') return toolError(`Memory tool '${name}' returned a non-string result.`);
      return result;
    } catch (error) {
      this.logger.error(
        `Memory tool '${name}' failed in provider '${provider.name}': ${describeError(error)}`,
      );
      return toolError(`Memory tool '${name}' failed: ${describeError(error)}`);
    }
  }

  /** Per-turn tick (1-based user turn number), before `prefetchAll`. */
  async onTurnStart(turnNumber: number, message: string, info: TurnStartInfo = {}): Promise<void> {
    await this.fanOut('onTurnStart', 'debug', (p) =>
      p.onTurnStart(turnNumber, this.egress(p, message), { ...info }),
    );
  }

  /** End-of-session extraction, at real boundaries only. */
  async onSessionEnd(messages: readonly ChatMessage[]): Promise<void> {
    for (const provider of this.list) {
      try {
        await provider.onSessionEnd(this.egress(provider, messages));
      } catch (error) {
        this.logger.warn(`Memory provider '${provider.name}' onSessionEnd failed: ${describeError(error)}`, {
          stack: error instanceof Error ? error.stack : undefined,
        });
      }
    }
  }

  /**
   * The session id rotated without teardown. No-op for an empty id. `rewound` reaches providers
   * only when true. Resolves false if any provider threw or returned false; those providers are
   * remembered for `retryPendingSessionSwitch`.
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
    const failed: MemoryProvider[] = [];
    for (const provider of providers) {
      try {
        const ok = await provider.onSessionSwitch(newSessionId, { ...options });
        if (ok === false) failed.push(provider);
      } catch (error) {
        this.logger.debug(
          `Memory provider '${provider.name}' onSessionSwitch failed: ${describeError(error)}`,
        );
        failed.push(provider);
      }
    }
    return failed;
  }

  /**
   * A /new or /reset boundary as one ordered background step per provider: `onSessionEnd` with
   * the old transcript, THEN `onSessionSwitch(reset: true)`, behind any queued syncs — so the
   * end-of-session extraction can never race the rebinding. Returns at once; the promise tells
   * whether every provider switched.
   */
  commitSessionBoundary(messages: readonly ChatMessage[], options: SessionBoundaryOptions): Promise<boolean> {
    const { newSessionId } = options;
    const switchOpts = switchOptions({
      parentSessionId: options.parentSessionId ?? this.currentSessionId,
      reset: true,
      ...(options.reason ? { reason: options.reason } : {}),
    });
    if (newSessionId) this.currentSessionId = newSessionId;
    const snapshot = [...messages];
    const results = this.list.map(
      (provider) =>
        new Promise<boolean>((resolve) => {
          const transcript = this.egress(provider, snapshot);
          const accepted = this.enqueue(provider, 'session-boundary', async () => {
            try {
              await provider.onSessionEnd(transcript);
            } catch (error) {
              this.logger.warn(
                `Memory provider '${provider.name}' onSessionEnd failed: ${describeError(error)}`,
              );
            }
            if (!newSessionId) return resolve(true);
            const failed = await this.switchProviders([provider], newSessionId, switchOpts);
            resolve(failed.length === 0);
          });
          if (!accepted) resolve(false);
        }),
    );
    return Promise.all(results).then((all) => all.every(Boolean));
  }

  /** Whether any provider implements the fail-closed checkpoint contract (API v2). */
  supportsPreCompressCheckpoint(): boolean {
    return this.list.some((p) => p.preCompressCheckpointApiVersion >= 2);
  }

  /**
   * Before lossy compression: each provider may add text to the summary prompt (joined by a blank
   * line). v2 providers get host-normalised evidence and `requireCheckpoint`. With checkpoints
   * required, a failing v2 provider's error propagates, and having no v2 provider succeed throws —
   * the host must then keep the uncompressed transcript.
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
    for (const provider of this.list) {
      const v2 = provider.preCompressCheckpointApiVersion >= 2;
      try {
        const text = v2
          ? await provider.onPreCompress(this.egress(provider, evidence), { requireCheckpoint: required })
          : await provider.onPreCompress(this.egress(provider, messages));
        if (v2) checkpointSucceeded = true;
        if (typeof text === 'string' && text.trim() !== '') texts.push(text);
      } catch (error) {
        this.logger.debug(`Memory provider '${provider.name}' onPreCompress failed: ${describeError(error)}`);
        if (v2 && required && firstCheckpointError === undefined) firstCheckpointError = error;
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
    for (const provider of this.list) {
      if (provider.name === BUILTIN) continue;
      // One hand-off: a secret in the content is also masked in oldText/previousContent.
      const write = this.egress(provider, { content, meta: { ...(metadata ?? {}) } as MemoryWriteMetadata });
      this.enqueue(provider, 'memory-write', async () => {
        try {
          await provider.onMemoryWrite(action, target, write.content, write.meta);
        } catch (error) {
          this.logger.debug(
            `Memory provider '${provider.name}' onMemoryWrite failed: ${describeError(error)}`,
          );
        }
      });
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
    await this.fanOut('onDelegation', 'debug', (p) => {
      const d = this.egress(p, { task, result, options: { ...options } });
      return p.onDelegation(d.task, d.result, d.options);
    });
  }

  /** "🧠 Honcho — recalled 3 memories" segments for what the last prefetch injected; "" if none. */
  describeRecall(): string {
    const segments: string[] = [];
    for (const provider of this.list) {
      let status: ReturnType<MemoryProvider['recallStatus']>;
      try {
        status = provider.recallStatus();
      } catch (error) {
        this.logger.debug(`Memory provider '${provider.name}' recallStatus failed: ${describeError(error)}`);
        continue;
      }
      if (!status) continue;
      const count = Number.isFinite(status.count) ? Math.trunc(status.count) : 0;
      const what =
        count <= 0
          ? 'recalled relevant memory'
          : count === 1
            ? 'recalled 1 memory'
            : `recalled ${count} memories`;
      segments.push(`${status.glyph ?? DEFAULT_GLYPH} ${status.providerLabel || provider.name} — ${what}`);
    }
    return segments.join('  ');
  }

  /**
   * Drain queued work (bounded by `shutdownDrainMs`), then shut providers down in reverse
   * registration order. Work submitted after this starts is refused with a WARNING. Idempotent.
   */
  shutdownAll(): Promise<DrainState> {
    if (!this.shutdownState) this.shutdownState = this.runShutdown();
    return this.shutdownState;
  }

  private async runShutdown(): Promise<DrainState> {
    const queues = [...this.queues.values()];
    for (const q of queues) q.close();
    const state: DrainState = { status: 'idle', abandonedWrites: 0, abandonedPrefetches: 0, activeTasks: 0 };
    if (queues.some((q) => q.size > 0)) {
      const drained = await this.flushPending(this.shutdownDrainMs);
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
          `Memory shutdown drain timed out after ${this.shutdownDrainMs} ms: abandoned ${state.abandonedWrites} writes and ${state.abandonedPrefetches} prefetches; ${state.activeTasks} tasks still running.`,
        );
      }
    }
    for (const provider of [...this.list].reverse()) {
      try {
        await withTimeout(
          Promise.resolve().then(() => provider.shutdown()),
          Math.max(this.shutdownDrainMs, 1),
          undefined,
          `shutdown '${provider.name}'`,
        );
      } catch (error) {
        this.logger.warn(`Memory provider '${provider.name}' shutdown failed: ${describeError(error)}`);
      }
    }
    this.lifetime.abort(new MemoryError('Memory manager shut down.'));
    return state;
  }

  // ── Internals ───────────────────────────────────────────────────────────────────────────────

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
    const { preview, file } = spillText(text, { hermesHome, limit: this.spillChars, label: provider.name });
    if (file) {
      this.logger.info(
        `Memory provider '${provider.name}' recall (${text.length} chars) exceeded ${this.spillChars}; spilled to ${file}.`,
      );
    } else {
      this.logger.warn(
        `Memory provider '${provider.name}' recall (${text.length} chars) exceeded ${this.spillChars} and could not be spilled; truncated.`,
      );
    }
    return preview;
  }

  private enqueue(provider: MemoryProvider, label: string, task: () => unknown): boolean {
    if (this.shutdownState) {
      this.logger.warn(
        `Rejected '${label}' for memory provider '${provider.name}': submitted after shutdown.`,
      );
      return false;
    }
    let queue = this.queues.get(provider);
    if (!queue) {
      queue = new SerialQueue({ name: `memory provider '${provider.name}'`, logger: this.logger });
      this.queues.set(provider, queue);
    }
    return queue.push(async () => {
      await task();
    }, label);
  }

  private async fanOut(
    hook: string,
    level: 'debug' | 'warn',
    call: (provider: MemoryProvider) => unknown,
  ): Promise<void> {
    for (const provider of this.list) {
      try {
        await call(provider);
      } catch (error) {
        this.logger[level](`Memory provider '${provider.name}' ${hook} failed: ${describeError(error)}`);
      }
    }
  }

  private normalizedSchemas(provider: MemoryProvider, raw: unknown): ToolSchema[] {
    if (!Array.isArray(raw)) throw new TypeError('getToolSchemas() must return an array');
    const out: ToolSchema[] = [];
    for (const entry of raw) {
      const schema = normalizeToolSchema(entry);
      if (!schema) {
        this.logger.warn(
          `Memory provider '${provider.name}' returned a tool schema with no resolvable name; skipped.`,
        );
        continue;
      }
      out.push(schema);
    }
    return out;
  }

  /** Add routes for `schemas`; first registrant wins, reserved names are refused. Returns routed count. */
  private route(provider: MemoryProvider, schemas: readonly ToolSchema[]): number {
    let routed = 0;
    for (const { name } of schemas) {
      const owner = this.toolRoutes.get(name);
      if (owner === provider) {
        routed++;
        continue;
      }
      const builtinOwn = provider.name === BUILTIN && BUILTIN_TOOL_NAMES.has(name);
      if (!builtinOwn && isReservedToolName(name, this.extraReserved)) {
        this.warnOnce(
          `${provider.name}:${name}`,
          `Memory provider '${provider.name}' tool '${name}' uses a reserved core tool name; refused.`,
        );
        continue;
      }
      if (owner) {
        this.warnOnce(
          `${provider.name}:${name}`,
          `Memory tool name conflict: '${name}' from '${provider.name}' is already handled by '${owner.name}'; keeping the first.`,
        );
        continue;
      }
      this.toolRoutes.set(name, provider);
      routed++;
    }
    return routed;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warnedTools.has(key)) return;
    this.warnedTools.add(key);
    this.logger.warn(message);
  }
}

/** `hooks.output_spill` from config.yaml, when it is a positive number. */
function outputSpillSetting(raw: Record<string, unknown> | undefined): number | undefined {
  const hooks = raw?.hooks;
  if (typeof hooks !== 'object' || hooks === null) return undefined;
  const value = (hooks as Record<string, unknown>).output_spill;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && n > 0 && Number.isFinite(n) ? n : undefined;
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
  const { rewound, parentSessionId, reset, ...rest } = options;
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
