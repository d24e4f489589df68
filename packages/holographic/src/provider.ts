/**
 * `HolographicProvider`: the reference's holographic memory provider on the core contract.
 */
import {
  type ChatMessage,
  type ConfigField,
  type InitContext,
  type Logger,
  type MemoryTarget,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  MemoryProvider,
  type PrefetchOptions,
  type RecallStatus,
  type ToolSchema,
  type Embedder,
  canWrite,
  saveConfigValues,
  silentLogger,
  toolError,
} from '@hermes-memory/core';
import path from 'node:path';
import { extractFacts } from './extract';
import { type HolographicSettings, type ResolvedSettings, resolveSettings } from './settings';
import { loadOptionalEmbedder } from './optional-embedder';
import { FactStore } from './store';
import {
  FACT_FEEDBACK_SCHEMA,
  FACT_STORE_SCHEMA,
  type ToolContext,
  handleFactFeedback,
  handleFactStore,
} from './tools';
import type { ScoredFact } from './types';

export class HolographicProvider extends MemoryProvider {
  readonly name = 'holographic';
  private store: FactStore | null = null;
  private resolved: ResolvedSettings | null = null;
  private writable = true;
  private logger: Logger = silentLogger;
  private lastRecall = 0;
  /** Resolves once a lazily imported default embedder is attached (or found missing). */
  private embedderReady: Promise<void> | null = null;
  private readonly settings: Readonly<HolographicSettings>;

  constructor(settings: HolographicSettings = {}) {
    super();
    this.settings = settings;
  }

  /** SQLite is always available; nothing to check. */
  isAvailable(): boolean {
    return true;
  }

  initialize(_sessionId: string, context: InitContext): void {
    this.shutdown();
    this.logger = context.logger ?? silentLogger;
    const raw = { ...(context.providerConfig ?? {}), ...(this.settings as Record<string, unknown>) };
    const resolved = resolveSettings(raw, context.hermesHome, {
      profile: context.agentIdentity,
      platform: context.platform,
      chat: context.chatId,
      user: context.userId,
    });
    this.resolved = resolved;
    this.writable = canWrite(context.agentContext);
    const embedder: Embedder | undefined = resolved.embeddings !== false ? context.embedder : undefined;
    if (resolved.embeddings === true && !embedder)
      this.logger.warn(
        'holographic: embeddings enabled but no embedder was provided; continuing without them',
      );
    this.store = new FactStore({
      dbPath: resolved.dbPath,
      defaultTrust: resolved.defaultTrust,
      hrrDim: resolved.hrrDim,
      hrrEnabled: resolved.hrrEnabled,
      vectorFormat: resolved.vectorFormat,
      temporalDecayHalfLife: resolved.temporalDecayHalfLife,
      retrieval: resolved.compat,
      referenceWeights: { hrr: resolved.hrrWeight },
      weights: resolved.weights,
      embedder,
      trackRetrievals: this.writable,
      logger: this.logger,
    });
    if (resolved.embeddings === 'auto' && !embedder && resolved.compat === 'default') {
      const store = this.store;
      const logger = this.logger;
      this.embedderReady = loadOptionalEmbedder(logger).then((found) => {
        if (found && !store.closed) store.setEmbedder(found);
      });
    }
  }

  /** Wait for the lazily loaded default embedder (no-op when none is being loaded). */
  async ready(): Promise<void> {
    if (this.embedderReady) await this.embedderReady;
  }

  /** The open store (null before initialize / after shutdown), for hosts and tests. */
  get factStore(): FactStore | null {
    return this.store;
  }

  getToolSchemas(): ToolSchema[] {
    return [FACT_STORE_SCHEMA, FACT_FEEDBACK_SCHEMA];
  }

  override systemPromptBlock(): string {
    const store = this.store;
    if (!store || store.closed) return '';
    let total = 0;
    try {
      total = store.count();
    } catch {
      total = 0;
    }
    if (total === 0) {
      return [
        '# Holographic Memory',
        'Active. Empty fact store — proactively add facts the user would expect you to remember.',
        "Use fact_store(action='add') to store durable structured facts about people, projects, preferences, decisions.",
        'Use fact_feedback to rate facts after using them (trains trust scores).',
      ].join('\n');
    }
    const capabilities = store.hrrEnabled
      ? 'probe entities (algebraic), reason across entities (compositional), related (structural adjacency), contradict (conflict detection)'
      : 'search (keyword), probe/related/reason/contradict (keyword fallback — HRR vectors are disabled)';
    return [
      '# Holographic Memory',
      `Active. ${total} facts stored with entity resolution and trust scoring.`,
      `Use fact_store to search, ${capabilities}, or add facts.`,
      'Recalled facts carry an [id N] marker: pass N as fact_id to fact_feedback.',
      'Use fact_feedback to rate facts after using them (trains trust scores).',
    ].join('\n');
  }

  override async prefetch(query: string, _options?: PrefetchOptions): Promise<string> {
    const store = this.store;
    if (!store || store.closed || !query || !this.resolved || this.resolved.memoryMode === 'tools') return '';
    try {
      await this.ready();
      const results = await store.recall(query, { minTrust: this.resolved.minTrustThreshold, limit: 5 });
      this.lastRecall = results.length;
      if (results.length === 0) return '';
      const lines = results.map((r) => `- [${r.trust_score.toFixed(1)}] [id ${r.fact_id}] ${r.content}`);
      return `## Holographic Memory\n${lines.join('\n')}`;
    } catch (error) {
      this.logger.debug('holographic: prefetch failed', { error: String(error) });
      return '';
    }
  }

  override recallStatus(): RecallStatus | null {
    return this.lastRecall > 0 ? { providerLabel: 'holographic', count: this.lastRecall } : null;
  }

  /** Facts enter through the tools, the mirror hook and auto-extraction only. */
  override syncTurn(): void {}

  override async handleToolCall(toolName: string, args: unknown): Promise<string> {
    const ctx = this.toolContext();
    if (toolName === 'fact_store') return handleFactStore(args, ctx);
    if (toolName === 'fact_feedback') return handleFactFeedback(args, ctx);
    return toolError(`Unknown tool: ${toolName}`);
  }

  override onSessionEnd(messages: readonly ChatMessage[]): void {
    const store = this.store;
    if (!store || store.closed || !this.resolved?.autoExtract || !this.writable || !messages?.length) return;
    let added = 0;
    for (const fact of extractFacts(messages)) {
      try {
        store.add(fact.content, { category: fact.category });
        added++;
      } catch (error) {
        this.logger.debug('holographic: auto-extract add failed', { error: String(error) });
      }
    }
    if (added > 0) this.logger.info(`holographic: auto-extracted ${added} facts from conversation`);
  }

  /**
   * Mirror builtin memory writes: add, replace AND remove. The old row is found by exact trimmed
   * content within the target's category, never through FTS, and retrieval counts are untouched.
   */
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ): void {
    const store = this.store;
    if (!store || store.closed || !this.writable) return;
    const category = target === 'user' ? 'user_pref' : 'general';
    try {
      const text = typeof content === 'string' ? content.trim() : '';
      const previous = (metadata?.previousContent ?? metadata?.oldText ?? '').trim();
      if (action === 'add') {
        if (text) store.add(text, { category });
        return;
      }
      if (action === 'replace') {
        if (!text) return;
        const old = previous ? store.findByContent(previous, category) : undefined;
        if (!old) {
          store.add(text, { category });
          return;
        }
        const clash = store.findByContent(text);
        if (clash && clash.fact_id !== old.fact_id) store.remove(old.fact_id);
        else if (!clash) store.update(old.fact_id, { content: text });
        return;
      }
      if (action === 'remove') {
        const key = previous || text;
        if (!metadata || !key) return;
        const old = store.findByContent(key, category);
        if (old) store.remove(old.fact_id);
      }
    } catch (error) {
      this.logger.debug('holographic: memory_write mirror failed', { error: String(error) });
    }
  }

  override getConfigSchema(): ConfigField[] {
    return [
      { key: 'db_path', description: 'SQLite database path', default: '$HERMES_HOME/memory_store.db' },
      {
        key: 'auto_extract',
        description: 'Auto-extract facts at session end',
        default: 'false',
        choices: ['true', 'false'],
      },
      { key: 'default_trust', description: 'Default trust score for new facts', default: '0.5' },
      { key: 'hrr_dim', description: 'HRR vector dimensions', default: '1024' },
      {
        key: 'min_trust_threshold',
        description: 'Trust floor for prefetch and the default search filter',
        default: '0.3',
      },
      {
        key: 'temporal_decay_half_life',
        description: 'Score half-life in days (0 = no decay)',
        default: '0',
      },
      { key: 'hrr_weight', description: 'HRR share of the reference ranking', default: '0.3' },
      {
        key: 'embeddings',
        description: 'Semantic signal: auto (embedder if available), true, false',
        default: 'auto',
        choices: ['auto', 'true', 'false'],
      },
      {
        key: 'compat',
        description: "Ranking: 'default' (improved) or 'reference' (the Python plugin's)",
        default: 'default',
        choices: ['default', 'reference'],
      },
      {
        key: 'vector_format',
        description:
          "HRR blob format of new vectors: 'auto' keeps the store's own (an older plugin's float64 stays float64)",
        default: 'auto',
        choices: ['auto', 'float32', 'float64'],
      },
      {
        key: 'memory_mode',
        description: "'hybrid' (prefetch + tools) or 'tools' (no prefetch)",
        default: 'hybrid',
        choices: ['hybrid', 'tools'],
      },
      {
        key: 'db_path_template',
        description: 'Per-chat database path with {profile} {platform} {chat} {user} (overrides db_path)',
      },
    ];
  }

  /**
   * Persist settings under `memory.holographic.*` in `config.yaml` (only keys of the schema; none
   * is secret). A `db_path` equal to this profile's default is stored as the portable
   * `$HERMES_HOME/memory_store.db`, so a copied or renamed profile opens its own database.
   */
  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    const allowed = new Set(this.getConfigSchema().map((f) => f.key));
    const patch: Record<string, unknown> = {};
    for (const [rawKey, value] of Object.entries(values ?? {})) {
      const key = rawKey.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      if (!allowed.has(key) || value === undefined) continue;
      let v = value;
      if (key === 'db_path' && typeof v === 'string') {
        const defaultPath = path.resolve(hermesHome, 'memory_store.db');
        if (v.trim() && path.resolve(v.trim()) === defaultPath) v = '$HERMES_HOME/memory_store.db';
      }
      patch[`memory.holographic.${key}`] = v;
    }
    if (Object.keys(patch).length > 0) saveConfigValues(hermesHome, patch);
  }

  override backupPaths(): string[] {
    return this.resolved ? [this.resolved.dbPath] : [];
  }

  /** Write the buffered retrieval counts (write-behind statistics) now; nothing else is queued. */
  override flush(_timeoutMs?: number): boolean {
    if (!this.store || this.store.closed) return true;
    return this.store.flushRetrievalCounts();
  }

  override shutdown(): void {
    if (this.store) {
      try {
        this.store.close();
      } catch (error) {
        this.logger.debug('holographic: close failed', { error: String(error) });
      }
    }
    this.store = null;
  }

  private toolContext(): ToolContext {
    const store = this.store;
    return {
      store,
      minTrust: this.resolved?.minTrustThreshold ?? 0.3,
      canWrite: this.writable,
      search: async (query, opts): Promise<ScoredFact[]> => {
        if (!store) return [];
        await this.ready();
        return store.recall(query, opts);
      },
    };
  }
}

export function createHolographicProvider(settings: HolographicSettings = {}): HolographicProvider {
  return new HolographicProvider(settings);
}
