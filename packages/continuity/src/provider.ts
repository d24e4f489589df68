/**
 * `ContinuityProvider`: sparse memory activation on the core contract. Many durable records live
 * in `continuity.db`; each turn's prompt gets only the few that pass the retrieval gates (or
 * nothing), a tiny pinned tier 0 sits in the system prompt, and every write path is checked.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  type ChatMessage,
  type ConfigField,
  type Embedder,
  type InitContext,
  type LlmClient,
  type Logger,
  type MemoryTarget,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  MemoryProvider,
  type PrefetchOptions,
  type RecallStatus,
  type SessionSwitchOptions,
  type ToolCallOptions,
  type ToolSchema,
  canWrite,
  loadDefaultEmbedder,
  neutralizeMemoryText,
  neutralizeToolResult,
  SettingsError,
  saveConfigValues,
  silentLogger,
  validateConfigValues,
} from '@hermes-memory/core';
import { EventLog, ProviderState } from './events';
import { extractMarkers, mirrorMemoryWrite } from './mirror';
import { pinnedRecords, renderPinned } from './pinned';
import { Retriever } from './retrieval/retriever';
import { VectorIndex } from './retrieval/vectors';
import { type ContinuitySettings, type ResolvedSettings, defaultDbPath, resolveSettings } from './settings';
import { ContinuityStore } from './store';
import { TOOL_SCHEMAS, handleTool } from './tools';
import { CONTINUITY_CONFIG_SCHEMA } from './config-schema';

/** The optional peer `@hermes-memory/embeddings`, resolved from this package (which declares it). */
const EMBEDDINGS = '@hermes-memory/embeddings';
const importEmbeddings = () => import(/* @vite-ignore */ EMBEDDINGS);

export class ContinuityProvider extends MemoryProvider {
  readonly name = 'continuity';
  private readonly settings: Readonly<ContinuitySettings>;
  private resolved: ResolvedSettings | null = null;
  private store: ContinuityStore | null = null;
  private retriever: Retriever | null = null;
  private vectors: VectorIndex | null = null;
  private events: EventLog | null = null;
  private state: ProviderState | null = null;
  private logger: Logger = silentLogger;
  private llm: LlmClient | undefined;
  private writable = true;
  private sessionId: string | null = null;
  private hermesHome = '';
  private pinnedBlock = '';
  private lastRecall = 0;
  private embedderReady: Promise<void> | null = null;
  private warnedRecallFailure = false;

  constructor(settings: ContinuitySettings = {}) {
    super();
    this.settings = settings;
  }

  /** SQLite is bundled; nothing to check. */
  isAvailable(): boolean {
    return true;
  }

  initialize(sessionId: string, context: InitContext): void {
    this.open(sessionId, context, false);
  }

  /** Inspection opens an existing file read-only and creates nothing. */
  override initializeForInspection(sessionId: string, context: InitContext): void {
    this.open(sessionId, context, true);
  }

  private open(sessionId: string, context: InitContext, inspection: boolean): void {
    this.shutdown();
    this.logger = context.logger ?? silentLogger;
    this.sessionId = sessionId || null;
    this.hermesHome = context.hermesHome;
    this.llm = context.llm;
    const configured = context.providerConfig ?? {};
    // config.yaml values are checked against the schema `setup` and `doctor` use, with its messages.
    const problems = validateConfigValues(CONTINUITY_CONFIG_SCHEMA, configured);
    if (problems.length > 0)
      throw new SettingsError(problems[0]!.key, `continuity: ${problems.map((p) => p.message).join('; ')}`);
    const { clock: _clock, ...own } = this.settings;
    const raw = { ...configured, ...(own as Record<string, unknown>) };
    const resolved = resolveSettings(raw, context.hermesHome, {
      scopes: {
        ...(context.agentIdentity ? { profile: context.agentIdentity } : {}),
        ...(context.userId ? { user: context.userId } : {}),
      },
    });
    this.resolved = resolved;
    this.writable = !inspection && canWrite(context.agentContext);
    if (inspection && !fs.existsSync(resolved.dbPath)) {
      this.freezePinned();
      return;
    }
    const store = new ContinuityStore({
      dbPath: resolved.dbPath,
      readonly: inspection,
      now: this.settings.clock,
    });
    this.store = store;
    this.state = new ProviderState(store);
    this.events = resolved.eventLogLimit > 0 ? new EventLog(store, resolved.eventLogLimit) : null;
    const embedder: Embedder | undefined = resolved.embeddings !== false ? context.embedder : undefined;
    if (resolved.embeddings === true && !embedder)
      this.logger.warn(
        'continuity: embeddings enabled but no embedder was provided; continuing lexical only',
      );
    this.attach(embedder);
    if (!embedder && resolved.embeddings === 'auto' && !inspection) {
      this.embedderReady = loadDefaultEmbedder(importEmbeddings, this.logger).then((found) => {
        if (found && this.store === store && !store.closed) this.attach(found);
      });
    }
    this.freezePinned();
  }

  /** (Re)build the retriever, with vectors when an embedder is available. */
  private attach(embedder: Embedder | undefined): void {
    const store = this.store!;
    const r = this.resolved!;
    this.vectors?.close();
    this.vectors = embedder && !store.closed ? new VectorIndex(store, embedder, this.logger) : null;
    this.retriever = new Retriever(store, this.vectors, this.writable ? this.events : null, {
      gates: r.gates,
      weights: r.weights,
      graphDepth: r.graphDepth,
      scopes: r.scopes,
      budget: { maxRecords: r.maxRecords, maxChars: r.maxChars },
    });
  }

  /** Tier 0 is computed once per session and then stays byte-identical (prompt caching). */
  private freezePinned(): void {
    const store = this.store;
    const r = this.resolved;
    if (!r) return;
    try {
      const records = store ? pinnedRecords(store, r.pinned) : [];
      // Records written raw (before neutralising, or by another program) cannot break the fence.
      this.pinnedBlock = neutralizeMemoryText(renderPinned(records, r.pinned, !store || store.count() === 0));
    } catch (error) {
      this.logger.warn('continuity: could not build the pinned records block', { error: String(error) });
      this.pinnedBlock = '';
    }
  }

  /** Wait for the lazily loaded default embedder (no-op when none is being loaded). */
  async ready(): Promise<void> {
    if (this.embedderReady) await this.embedderReady;
  }

  /** The open store (null before initialize / after shutdown), for hosts, the CLI and tests. */
  get recordStore(): ContinuityStore | null {
    return this.store;
  }

  get resolvedSettings(): ResolvedSettings | null {
    return this.resolved;
  }

  getToolSchemas(): ToolSchema[] {
    return [...TOOL_SCHEMAS];
  }

  override systemPromptBlock(): string {
    return this.pinnedBlock;
  }

  override async prefetch(query: string, options?: PrefetchOptions): Promise<string> {
    const r = this.resolved;
    if (!this.store || this.store.closed || !r || r.memoryMode === 'tools' || typeof query !== 'string')
      return '';
    try {
      await this.ready();
      const retriever = this.retriever;
      if (!retriever || this.store.closed) return '';
      const result = await retriever.recall(query, {
        sessionId: options?.sessionId ?? this.sessionId,
        signal: options?.signal,
      });
      this.lastRecall = result.selection.direct.length + result.selection.associated.length;
      return neutralizeMemoryText(result.text);
    } catch (error) {
      this.lastRecall = 0;
      if (!this.warnedRecallFailure) {
        this.warnedRecallFailure = true;
        this.logger.warn('continuity: recall failed; continuing without it', { error: String(error) });
      }
      return '';
    }
  }

  /** Embed what is pending (new records, the coming query) so the next prefetch only reads. */
  override async queuePrefetch(query: string): Promise<void> {
    if (!this.store || this.store.closed || this.resolved?.memoryMode === 'tools') return;
    try {
      await this.ready();
      await this.retriever?.warm(typeof query === 'string' && query ? [query] : []);
    } catch (error) {
      this.logger.debug('continuity: warm-up failed', { error: String(error) });
    }
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall > 0 ? { providerLabel: 'continuity', count: this.lastRecall } : null;
  }

  /** Records enter through tools, the builtin mirror, session-end markers and reviewed imports. */
  override syncTurn(): void {}

  override async handleToolCall(toolName: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    if (this.embedderReady && toolName === 'continuity_search') await this.ready();
    // Results quote stored records: nothing in them may open, close or imitate the recall fence.
    return neutralizeToolResult(
      await handleTool(toolName, args, {
        store: this.store,
        retriever: this.retriever,
        events: this.events,
        state: this.state,
        canWrite: this.writable,
        sessionId: options?.sessionId ?? this.sessionId,
        staleAfterDays: this.resolved?.gates.staleAfterDays ?? {},
        llm: this.llm,
        logger: this.logger,
        signal: options?.signal,
      }),
    );
  }

  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ): void {
    const store = this.store;
    if (!store || store.closed || !this.writable || !this.resolved?.mirrorBuiltin) return;
    try {
      const outcome = mirrorMemoryWrite(store, action, target, content, {
        ...metadata,
        sessionId: metadata?.sessionId ?? this.sessionId ?? undefined,
      });
      this.logger.debug(`continuity: mirrored builtin ${action}`, { outcome: outcome.action });
    } catch (error) {
      this.logger.warn('continuity: builtin mirror failed', { action, error: String(error) });
    }
  }

  override onSessionEnd(messages: readonly ChatMessage[]): void {
    const store = this.store;
    if (
      !store ||
      store.closed ||
      !this.writable ||
      !this.resolved?.extractMarkers ||
      !Array.isArray(messages)
    )
      return;
    let added = 0;
    for (const m of extractMarkers(messages)) {
      try {
        const { created } = store.add(
          {
            kind: m.kind,
            title: m.text.length <= 80 ? m.text : `${m.text.slice(0, 79)}…`,
            summary: m.text,
            trustLevel: m.role === 'user' ? 'high' : 'medium',
            confidence: m.role === 'user' ? 0.85 : 0.7,
            importance: 0.6,
            sources: [
              {
                type: 'session',
                ref: this.sessionId ?? 'session',
                excerpt: m.text,
                ...(this.sessionId ? { sessionId: this.sessionId } : {}),
              },
            ],
          },
          { secrets: 'redact' },
        );
        if (created) added++;
      } catch (error) {
        this.logger.warn('continuity: a session marker was not stored', { error: String(error) });
      }
    }
    if (added > 0) this.logger.info(`continuity: stored ${added} record(s) from session markers`);
  }

  override onSessionSwitch(newSessionId: string, options: SessionSwitchOptions): boolean {
    this.sessionId = newSessionId || this.sessionId;
    if (options?.reset) this.freezePinned();
    return true;
  }

  override getConfigSchema(): ConfigField[] {
    return [...CONTINUITY_CONFIG_SCHEMA];
  }

  /** Persist settings under `memory.continuity.*` (none is secret); the default path stays portable. */
  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    const allowed = new Set(this.getConfigSchema().map((f) => f.key));
    const patch: Record<string, unknown> = {};
    for (const [rawKey, value] of Object.entries(values ?? {})) {
      const key = rawKey.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      if (!allowed.has(key) || value === undefined) continue;
      let v = value;
      if (
        key === 'db_path' &&
        typeof v === 'string' &&
        path.resolve(v.trim()) === defaultDbPath(path.resolve(hermesHome))
      )
        v = '$HERMES_HOME/continuity/continuity.db';
      patch[`memory.continuity.${key}`] = v;
    }
    if (Object.keys(patch).length > 0) saveConfigValues(hermesHome, patch);
  }

  /** The database, when it lives outside HERMES_HOME (inside, the home's backup covers it). */
  override backupPaths(): string[] {
    const db = this.resolved?.dbPath;
    if (!db || !this.hermesHome) return [];
    const rel = path.relative(path.resolve(this.hermesHome), db);
    return rel.startsWith('..') || path.isAbsolute(rel) ? [db] : [];
  }

  override shutdown(): void {
    this.vectors?.close();
    this.vectors = null;
    this.retriever = null;
    if (this.store) {
      try {
        this.store.close();
      } catch (error) {
        this.logger.debug('continuity: close failed', { error: String(error) });
      }
    }
    this.store = null;
    this.events = null;
    this.state = null;
    this.embedderReady = null;
  }
}

export function createContinuityProvider(settings: ContinuitySettings = {}): ContinuityProvider {
  return new ContinuityProvider(settings);
}
