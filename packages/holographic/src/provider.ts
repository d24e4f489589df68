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
  canWrite,
  silentLogger,
  toolError,
} from '@hermes-memory/core';
import { extractFacts } from './extract';
import { type HolographicSettings, type ResolvedSettings, resolveSettings } from './settings';
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
    const resolved = resolveSettings(raw, context.hermesHome);
    this.resolved = resolved;
    this.writable = canWrite(context.agentContext);
    const embedder = resolved.embeddings ? context.embedder : undefined;
    if (resolved.embeddings && !embedder)
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
    ];
  }

  override backupPaths(): string[] {
    return this.resolved ? [this.resolved.dbPath] : [];
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
        return store.recall(query, opts);
      },
    };
  }
}

export function createHolographicProvider(settings: HolographicSettings = {}): HolographicProvider {
  return new HolographicProvider(settings);
}
