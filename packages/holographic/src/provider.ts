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
  loadDefaultEmbedder,
  neutralizeMemoryText,
  neutralizeToolResult,
  SettingsError,
  saveConfigValues,
  silentLogger,
  toolError,
  validateConfigValues,
} from '@hermes-memory/core';
import path from 'node:path';
import { importEmbeddings } from './embeddings-peer';
import { extractFacts } from './extract';
import { guardFact } from './guard';
import { HOLOGRAPHIC_CONFIG_PATHS, HOLOGRAPHIC_CONFIG_SCHEMA, REFERENCE_CONFIG_PATH } from './config-schema';
import {
  type HolographicSettings,
  type ResolvedSettings,
  factStoreOptions,
  resolveSettings,
} from './settings';
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
    const configured = context.providerConfig ?? {};
    const problems = validateConfigValues(HOLOGRAPHIC_CONFIG_SCHEMA, configured);
    if (problems.length > 0)
      throw new SettingsError(problems[0]!.key, `holographic: ${problems.map((p) => p.message).join('; ')}`);
    const raw = { ...configured, ...(this.settings as Record<string, unknown>) };
    const resolved = resolveSettings(raw, context.hermesHome, {
      profile: context.agentIdentity,
      platform: context.platform,
      chat: context.chatId,
      user: context.userId,
    });
    this.resolved = resolved;
    this.writable = canWrite(context.agentContext);
    const embedder: Embedder | undefined = resolved.embeddings !== false ? context.embedder : undefined;
    this.store = new FactStore({
      ...factStoreOptions(resolved),
      embedder,
      trackRetrievals: this.writable,
      logger: this.logger,
    });
    // A restarted agent searches as fast as the process that imported the facts once the caches
    // are read in, in the background (decision 0406).
    void this.store.warmUp();
    // Without a host embedder, `auto` and `true` both load the bundled default when the optional
    // package is installed; only `true` warns when there is none.
    if (resolved.embeddings !== false && !embedder && resolved.compat === 'default') {
      const store = this.store;
      const logger = this.logger;
      const required = resolved.embeddings === true;
      this.embedderReady = loadDefaultEmbedder(importEmbeddings, logger).then((found) => {
        if (found && !store.closed) store.setEmbedder(found);
        else if (!found && required)
          logger.warn(
            'holographic: embeddings: true, but no embedder: pass one to the manager, or install @hermes-memory/embeddings; continuing lexical only',
          );
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
      'Recalled facts read "- [trust] [id N] [relevance R] fact": pass N as fact_id to fact_feedback.',
      'Only facts relevant to the message are recalled; fact_store search also lists weaker ones, each with its relevance (0–1).',
      'Use fact_feedback to rate facts after using them (trains trust scores).',
    ].join('\n');
  }

  /**
   * Facts relevant enough to put in front of the model unasked (`FactStore.recallRelevant`): at
   * most `prefetchLimit`, each clearing `prefetchMinRelevance`, "" when none does. Each line shows
   * the fact's trust, its id (for fact_feedback) and how relevant it is to this message.
   */
  override async prefetch(query: string, _options?: PrefetchOptions): Promise<string> {
    const store = this.store;
    const settings = this.resolved;
    if (!store || store.closed || !query || !settings || settings.memoryMode === 'tools') return '';
    try {
      await this.ready();
      const results = await store.recallRelevant(query, {
        minTrust: settings.minTrustThreshold,
        limit: settings.prefetchLimit,
        minRelevance: settings.prefetchMinRelevance,
      });
      this.lastRecall = results.length;
      if (results.length === 0) return '';
      return `## Holographic Memory\n${results.map(prefetchLine).join('\n')}`;
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

  /** Results are memory text: facts in them (stored before neutralising, or by Python) are neutralised. */
  override async handleToolCall(toolName: string, args: unknown): Promise<string> {
    const ctx = this.toolContext();
    if (toolName === 'fact_store') return neutralizeToolResult(await handleFactStore(args, ctx));
    if (toolName === 'fact_feedback') return neutralizeToolResult(handleFactFeedback(args, ctx));
    return toolError(`Unknown tool: ${toolName}`);
  }

  override onSessionEnd(messages: readonly ChatMessage[]): void {
    const store = this.store;
    if (!store || store.closed || !this.resolved?.autoExtract || !this.writable || !messages?.length) return;
    let added = 0;
    for (const fact of extractFacts(messages)) {
      try {
        const guarded = guardFact(store, fact.content, fact.category);
        if (!guarded.ok) {
          this.logger.debug(`holographic: auto-extracted fact not stored: ${guarded.error}`);
          continue;
        }
        store.add(guarded.content, { category: fact.category });
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
      const raw = typeof content === 'string' ? content.trim() : '';
      const previous = (metadata?.previousContent ?? metadata?.oldText ?? '').trim();
      // The mirror is a write path like any other: what the scanner blocks is never stored.
      const guard = (replacing?: number): string | null => {
        const guarded = guardFact(store, raw, category, replacing);
        if (guarded.ok) return guarded.content;
        this.logger.warn(`holographic: memory write not mirrored: ${guarded.error}`);
        return null;
      };
      if (action === 'add') {
        const text = raw ? guard() : null;
        if (text) store.add(text, { category });
        return;
      }
      if (action === 'replace') {
        if (!raw) return;
        const old = previous ? store.findByContent(previous, category) : undefined;
        const text = guard(old?.fact_id);
        if (!text) return;
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
        const key = previous || raw;
        if (!metadata || !key) return;
        const old = store.findByContent(key, category);
        if (old) store.remove(old.fact_id);
      }
    } catch (error) {
      this.logger.debug('holographic: memory_write mirror failed', { error: String(error) });
    }
  }

  override getConfigSchema(): ConfigField[] {
    return HOLOGRAPHIC_CONFIG_SCHEMA.map((f) => ({ ...f }));
  }

  /** The Python plugin's block first: both programs then open the same database with the same settings. */
  override configPaths(): readonly string[] {
    return HOLOGRAPHIC_CONFIG_PATHS;
  }

  /**
   * Persist settings where the Python plugin reads them, `plugins.hermes-memory-store.*` in
   * `config.yaml` (only keys of the schema; none is secret), and drop the same keys from the
   * older `memory.holographic` block so the two never disagree. Values are checked against the
   * schema first; numbers are written as numbers. A `db_path` equal to this profile's default is
   * stored as the portable `$HERMES_HOME/memory_store.db`, so a copied profile opens its own file.
   */
  override saveConfig(values: Readonly<Record<string, unknown>>, hermesHome: string): void {
    const fields = new Map(HOLOGRAPHIC_CONFIG_SCHEMA.map((f) => [f.key, f]));
    const snake: Record<string, unknown> = {};
    for (const [rawKey, value] of Object.entries(values ?? {})) {
      const key = rawKey.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
      if (fields.has(key) && value !== undefined) snake[key] = value;
    }
    const problems = validateConfigValues(HOLOGRAPHIC_CONFIG_SCHEMA, snake);
    if (problems.length > 0)
      throw new SettingsError(problems[0]!.key, `holographic: ${problems.map((p) => p.message).join('; ')}`);
    const patch: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(snake)) {
      const field = fields.get(key)!;
      let v = value;
      if ((field.type === 'number' || field.type === 'integer') && typeof v === 'string')
        v = Number(v.trim());
      if (key === 'db_path' && typeof v === 'string') {
        const defaultPath = path.resolve(hermesHome, 'memory_store.db');
        if (v.trim() && path.resolve(v.trim()) === defaultPath) v = '$HERMES_HOME/memory_store.db';
      }
      patch[`${REFERENCE_CONFIG_PATH}.${key}`] = v;
      patch[`memory.holographic.${key}`] = undefined;
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

/**
 * `- [trust] [id N] [relevance R] content` (relevance is absent in `compat: 'reference'`); the
 * content is neutralised so a stored fact cannot close or forge the recall fence.
 */
function prefetchLine(fact: ScoredFact): string {
  const relevance = fact.relevance === undefined ? '' : ` [relevance ${fact.relevance.toFixed(2)}]`;
  return `- [${fact.trust_score.toFixed(1)}] [id ${fact.fact_id}]${relevance} ${neutralizeMemoryText(fact.content)}`;
}

export function createHolographicProvider(settings: HolographicSettings = {}): HolographicProvider {
  return new HolographicProvider(settings);
}
