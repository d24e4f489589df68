/**
 * `FactStore`: the SQLite fact store with entity resolution, HRR vectors, trust scoring and both
 * retrieval pipelines. Usable on its own, without the provider.
 */
import type { Embedder, Logger } from '@hermes-memory/core';
import { NotReadyError, silentLogger } from '@hermes-memory/core';
import { type Db, type SharedConnection, acquireConnection, acquireSnapshot } from './connection';
import { extractEntities } from './entities';
import { type EntityCache, entityCacheFor } from './entity-cache';
import {
  HRR_BLOB_PREFIX,
  type PhaseVector,
  type VectorFormat,
  bytesToPhases,
  BundleAccumulator,
  encodeFact,
  phasesToBytes,
  snrEstimate,
} from './hrr';
import { BulkEncoder, PARALLEL_MIN_VECTORS } from './bulk-encoder';
import { DenseIndex } from './dense';
import { FactRetriever } from './retrieval';
import { DEFAULT_MIN_RELEVANCE, RELATIVE_RELEVANCE } from './relevance';
import { ROW_COLUMNS, type RowChanges } from './row-cache';
import { indexText } from './text';
import type {
  ContradictionPair,
  DefaultWeights,
  FactRecord,
  FeedbackResult,
  ReferenceWeights,
  RelevantOptions,
  RetrievalMode,
  ScoredFact,
  SearchOptions,
} from './types';

export interface FactStoreOptions {
  /** SQLite file; parents are created, the file is created with mode 0600. */
  dbPath: string;
  /** Trust of new facts, clamped to [0, 1]. Default 0.5. */
  defaultTrust?: number;
  /** HRR dimension. Default 1024. */
  hrrDim?: number;
  /** Compute HRR vectors (the reference's numpy path). false = the numpy-less fallback. Default true. */
  hrrEnabled?: boolean;
  /**
   * Blob format of new vectors. `auto` (default): the format the store's vectors already have —
   * a store written by the older plugin (raw float64, which that plugin cannot read any other way)
   * keeps float64 — and `float32` (`HRR1` prefix, the newer reference) for a store without
   * vectors. An explicit format is honoured only where it matches the stored vectors (or there are
   * none): a store never becomes mixed except through `rebuildAllVectors({vectorFormat})`.
   */
  vectorFormat?: VectorFormat | 'auto';
  /** Half-life in days of the score decay; 0 disables it. */
  temporalDecayHalfLife?: number;
  /** `default` (improved) or `reference` (the Python plugin's ranking, byte for byte). */
  retrieval?: RetrievalMode;
  /** The reference pipeline's weights (default 0.4 / 0.3 / 0.3). */
  referenceWeights?: Partial<ReferenceWeights>;
  /** The default pipeline's weights. */
  weights?: Partial<DefaultWeights>;
  /** Optional semantic signal: facts are embedded in batches and stored in `hm_embeddings`. */
  embedder?: Embedder;
  /**
   * Cosine above which the semantic signal counts in ranking and relevance. Default: calibrated for
   * the embedder's model (0.45 for the bundled Model2Vec), 0.5 for models not calibrated here.
   */
  semanticThreshold?: number;
  /** Bump retrieval_count on reads (default true; false for read-only agent contexts). */
  trackRetrievals?: boolean;
  /**
   * Encode the HRR vectors of large `addMany` batches (≥ 2,048 new facts) on a worker thread as well
   * as the main thread; blobs are byte-identical either way. Default true (used only with > 1 CPU).
   */
  parallelIngest?: boolean;
  /**
   * Work on an in-memory copy of the existing file instead of the file (inspection commands): the
   * file is only read, never migrated or written, and whatever this store writes is dropped on
   * `close()`. The file must exist. Default false.
   */
  snapshot?: boolean;
  logger?: Logger;
}

export interface AddOptions {
  category?: string;
  tags?: string;
  /**
   * When the fact was stated or happened (Date, epoch ms or an ISO 8601 string); stored as the row's
   * `created_at` (UTC, SQLite's `YYYY-MM-DD HH:MM:SS`). Default: now. Retrieval treats facts
   * stated within the same hour as one conversational episode, so imports should pass it.
   */
  occurredAt?: Date | number | string;
}

/** `occurredAt` → SQLite timestamp text (UTC); a clear error for an unparseable value. */
export function toSqlTimestamp(value: Date | number | string): string {
  const date = value instanceof Date ? value : new Date(value);
  const ms = date.getTime();
  if (Number.isNaN(ms)) throw new Error(`occurredAt is not a valid date: ${String(value)}`);
  return date.toISOString().slice(0, 19).replace('T', ' ');
}

export interface UpdateOptions {
  content?: string;
  trustDelta?: number;
  tags?: string;
  category?: string;
}

const HELPFUL_DELTA = 0.05;
/** Stores up to this size rebuild category banks on every write, as the reference does. */
const SMALL_STORE_FACTS = 200;
/** addMany batches at least this large checkpoint the WAL afterwards. */
const BULK_CHECKPOINT_ROWS = 1000;
const UNHELPFUL_DELTA = -0.1;
/** Background warm-up: time per slice before yielding, and rows read per statement. */
const WARM_SLICE_MS = 4;
const WARM_CHUNK_ROWS = 128;
/** `recallRelevant` weighs at least this many of the best-ranked candidates. */
const RELEVANT_POOL = 10;
/** Write-behind retrieval counts: flush delay after the first unwritten increment. */
export const RETRIEVAL_FLUSH_MS = 1000;
/** … and a synchronous flush once this many distinct facts have unwritten increments. */
const RETRIEVAL_FLUSH_MAX_IDS = 20_000;
const FACT_COLUMNS =
  'fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at';

const IGNORED_CHANGES: RowChanges = { put() {}, drop() {}, increment() {} };

export function clampTrust(value: number): number {
  if (Number.isNaN(value)) return 0;
  return Math.max(0, Math.min(1, value));
}

/** One input of `addMany`: a fact to insert (id filled in once written), or the id it resolves to. */
type PlanStep = { id: number } | { sameAs: number };

export class FactStore {
  readonly dbPath: string;
  readonly defaultTrust: number;
  hrrDim: number;
  readonly hrrEnabled: boolean;
  /** The blob format new vectors are written in (see `FactStoreOptions.vectorFormat`). */
  vectorFormat: VectorFormat;
  private currentEmbedder: Embedder | undefined;
  readonly retriever: FactRetriever;
  readonly logger: Logger;
  readonly trackRetrievals: boolean;
  readonly parallelIngest: boolean;
  private bulkEncoder: BulkEncoder | null = null;
  private conn: SharedConnection | null;
  private readonly stmts: ReturnType<typeof prepare>;
  private readonly dirtyBanks = new Set<string>();
  /** Per-fact cos/sin terms of the category banks, kept while the store is small (see `categoryBank`). */
  private readonly bankTerms = new Map<string, Map<number, { blob: Buffer; terms: Float64Array }>>();
  /** Facts without an embedding for `embedder` (null until first loaded from the DB). */
  private pendingEmbeds: Set<number> | null = null;
  private dense: DenseIndex | null = null;
  private embedding: Promise<void> | null = null;
  /** Write-behind retrieval_count increments: fact_id → unwritten count. */
  private readonly pendingRetrievals = new Map<number, number>();
  private retrievalTimer: ReturnType<typeof setTimeout> | null = null;
  private warming: Promise<void> | null = null;

  constructor(options: FactStoreOptions) {
    this.dbPath = options.dbPath;
    this.defaultTrust = clampTrust(options.defaultTrust ?? 0.5);
    this.hrrDim = options.hrrDim ?? 1024;
    if (!Number.isInteger(this.hrrDim) || this.hrrDim < 1)
      throw new RangeError(`hrrDim must be a positive integer, got ${this.hrrDim}`);
    this.hrrEnabled = options.hrrEnabled ?? true;
    this.currentEmbedder = options.embedder;
    this.logger = options.logger ?? silentLogger;
    this.trackRetrievals = options.trackRetrievals ?? true;
    this.parallelIngest = options.parallelIngest ?? true;
    this.conn = options.snapshot ? acquireSnapshot(options.dbPath) : acquireConnection(options.dbPath);
    this.stmts = prepare(this.conn.db);
    this.vectorFormat = this.chooseVectorFormat(options.vectorFormat ?? 'auto');
    this.retriever = new FactRetriever(this, {
      mode: options.retrieval ?? 'default',
      halfLife: options.temporalDecayHalfLife ?? 0,
      referenceWeights: options.referenceWeights,
      weights: options.weights,
      semanticThreshold: options.semanticThreshold,
    });
  }

  /**
   * Read every fact into the retriever's caches (scoring rows and token statistics) in the
   * background, so a freshly started process searches as fast as the one that imported the facts:
   * otherwise each fact is read and tokenized the first time it is a candidate. Runs in slices of
   * about `WARM_SLICE_MS` on unref'd timers (a search waits at most one slice; the process can exit
   * meanwhile). Resolves when every fact was read (or the caches are full), the store closed, or a
   * read failed (logged; searches then read rows as they need them). Started once per store; the
   * provider starts it at `initialize` (decision 0406). No-op in reference mode.
   */
  warmUp(): Promise<void> {
    this.warming ??= new Promise<void>((resolve) => {
      let last = 0;
      const slice = () => {
        if (this.closed) return resolve();
        const end = performance.now() + WARM_SLICE_MS;
        try {
          do {
            const next = this.retriever.warmStep(last, WARM_CHUNK_ROWS);
            if (next === null) return resolve();
            last = next;
          } while (performance.now() < end);
        } catch (error) {
          this.logger.debug?.('holographic: cache warm-up stopped', { error: String(error) });
          return resolve();
        }
        setTimeout(slice, 0).unref?.();
      };
      setTimeout(slice, 0).unref?.();
    });
    return this.warming;
  }

  /** The embedder of the semantic signal (undefined = lexical only). */
  get embedder(): Embedder | undefined {
    return this.currentEmbedder;
  }

  /**
   * Attach (or replace, or detach) the embedder after construction, e.g. once a lazily imported
   * model is ready. Facts without a vector for its model are embedded on the next `recall`.
   */
  setEmbedder(embedder: Embedder | undefined): void {
    if (embedder?.id === this.currentEmbedder?.id && embedder === this.currentEmbedder) return;
    this.currentEmbedder = embedder;
    this.dense = null;
    this.pendingEmbeds = null;
  }

  /** The shared connection (throws once closed). */
  get db(): Db {
    if (!this.conn) throw new NotReadyError('FactStore', 'closed');
    return this.conn.db;
  }

  get closed(): boolean {
    return this.conn === null;
  }

  // --- Writes -----------------------------------------------------------------------------------

  /** Insert a fact and return its id; an existing identical content returns the existing id unchanged. */
  add(content: string, options: AddOptions = {}): number {
    return this.addMany([{ content, ...options }])[0]!;
  }

  /** Insert many facts in one transaction (ingest path). Returns ids in input order. */
  addMany(items: ReadonlyArray<{ content: string } & AddOptions>): number[] {
    const prepared = items.map((item) => {
      if (typeof item.content !== 'string') throw new TypeError('content must be a string');
      const content = item.content.trim();
      if (!content) throw new Error('content must not be empty');
      const occurredAt = item.occurredAt === undefined ? null : toSqlTimestamp(item.occurredAt);
      return { content, category: item.category ?? 'general', tags: item.tags ?? '', occurredAt };
    });
    const s = this.stmts;
    // The default pipeline's row cache takes the inserted rows as they are written.
    const ids = this.factsWrite((changes) => {
      const entities = entityCacheFor(this.db);
      // Plan first: existing contents keep their id, repeats within the batch share the first
      // one's, and entities are resolved in input order (the ids the one-by-one path assigns).
      const plan: PlanStep[] = [];
      const firstIndex = new Map<string, number>();
      const fresh: Array<{ step: number; item: (typeof prepared)[number]; entityIds: number[] }> = [];
      for (const item of prepared) {
        const existing = s.idByContent.get(item.content) as { fact_id: number } | undefined;
        const earlier = firstIndex.get(item.content);
        if (existing) plan.push({ id: existing.fact_id });
        else if (earlier !== undefined) plan.push({ sameAs: earlier });
        else {
          firstIndex.set(item.content, plan.length);
          fresh.push({
            step: plan.length,
            item,
            entityIds: this.resolveEntities(entities, item.content),
          });
          plan.push({ id: 0 });
        }
      }
      // Rows are inserted once, with their vector (an UPDATE would fire the reference FTS
      // trigger a second time), in input order.
      const written = new Map<number, { content: string; tags: string }>();
      const insert = (index: number, vector: Buffer | null) => {
        const { step, item, entityIds } = fresh[index]!;
        const row = s.insertFact.get(
          item.content,
          item.category,
          item.tags,
          this.defaultTrust,
          vector,
          item.occurredAt,
        ) as FactRecord;
        changes.put(row);
        for (const entityId of entityIds) s.link.run(row.fact_id, entityId);
        this.dirtyBanks.add(item.category);
        written.set(row.fact_id, item);
        plan[step] = { id: row.fact_id };
      };
      const vectors = this.hrrEnabled
        ? fresh.map((f) => ({
            content: f.item.content,
            entities: f.entityIds.map((id) => entities.name(id) ?? ''),
          }))
        : null;
      if (!vectors) for (let i = 0; i < fresh.length; i++) insert(i, null);
      else if (vectors.length >= PARALLEL_MIN_VECTORS && this.parallelIngest && BulkEncoder.available()) {
        this.bulkEncoder ??= new BulkEncoder({ dim: this.hrrDim, format: this.vectorFormat });
        this.bulkEncoder.encode(vectors, insert);
        this.logger.debug?.('holographic: bulk import vectors encoded', {
          facts: vectors.length,
          ...this.bulkEncoder.lastStats,
        });
      } else
        for (const [i, v] of vectors.entries())
          insert(i, phasesToBytes(encodeFact(v.content, v.entities, this.hrrDim), this.vectorFormat));
      const out = plan.map((p) => ('id' in p ? p.id : (plan[p.sameAs] as { id: number }).id));
      this.syncSideIndex(written);
      return out;
    });
    this.flushBanksIfSmall();
    // A bulk import leaves a WAL as large as the data: fold it into the file now (reclaims the
    // disk, and reads no longer consult a large WAL index). Busy readers only make it partial.
    if (prepared.length >= BULK_CHECKPOINT_ROWS) {
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch (error) {
        this.logger.debug?.('holographic: checkpoint after bulk import failed', { error: String(error) });
      }
    }
    return ids;
  }

  /**
   * One IMMEDIATE write transaction of this store; `changes` tells the retriever's row cache which
   * facts rows it wrote, so the other cached rows stay (reference mode keeps no row cache).
   */
  private factsWrite<T>(body: (changes: RowChanges) => T): T {
    if (this.retriever.mode === 'reference')
      return this.db.transaction(() => body(IGNORED_CHANGES)).immediate();
    return this.retriever.rowCache.write(body);
  }

  /** Partial update; trust is clamped. Content changes re-extract entities and re-encode. */
  update(factId: number, options: UpdateOptions): boolean {
    const s = this.stmts;
    const done = this.factsWrite((changes) => {
      const row = s.factById.get(factId) as FactRecord | undefined;
      if (!row) return false;
      changes.drop(factId);
      const sets = ['updated_at = CURRENT_TIMESTAMP'];
      const params: unknown[] = [];
      let content: string | undefined;
      if (options.content !== undefined) {
        content = options.content.trim();
        if (!content) throw new Error('content must not be empty');
        sets.push('content = ?');
        params.push(content);
      }
      if (options.tags !== undefined) {
        sets.push('tags = ?');
        params.push(options.tags);
      }
      if (options.category !== undefined) {
        sets.push('category = ?');
        params.push(options.category);
      }
      if (options.trustDelta !== undefined) {
        if (!Number.isFinite(options.trustDelta)) throw new Error('trust_delta must be a finite number');
        sets.push('trust_score = ?');
        params.push(clampTrust(row.trust_score + options.trustDelta));
      }
      params.push(factId);
      this.db.prepare(`UPDATE facts SET ${sets.join(', ')} WHERE fact_id = ?`).run(...params);
      if (content !== undefined) {
        s.unlinkFact.run(factId);
        const names = this.linkEntities(factId, content);
        this.storeVector(factId, content, names);
      }
      this.dirtyBanks.add(row.category);
      if (options.category !== undefined) this.dirtyBanks.add(options.category);
      this.syncSideIndex();
      return true;
    });
    this.flushBanksIfSmall();
    return done;
  }

  /** Delete a fact and its entity links. */
  remove(factId: number): boolean {
    const s = this.stmts;
    const done = this.factsWrite((changes) => {
      const row = s.factById.get(factId) as FactRecord | undefined;
      if (!row) return false;
      changes.drop(factId);
      s.unlinkFact.run(factId);
      s.deleteFact.run(factId);
      this.pendingRetrievals.delete(factId);
      this.dirtyBanks.add(row.category);
      this.syncSideIndex();
      return true;
    });
    this.flushBanksIfSmall();
    return done;
  }

  /** helpful: trust +0.05 and helpful_count +1; unhelpful: trust −0.10. Unknown id throws. */
  feedback(factId: number, helpful: boolean): FeedbackResult {
    const s = this.stmts;
    return this.factsWrite((changes) => {
      const row = s.factById.get(factId) as FactRecord | undefined;
      if (!row) throw new Error(`fact_id ${factId} not found`);
      const newTrust = clampTrust(row.trust_score + (helpful ? HELPFUL_DELTA : UNHELPFUL_DELTA));
      const inc = helpful ? 1 : 0;
      s.feedback.run(newTrust, inc, factId);
      changes.drop(factId);
      return {
        fact_id: factId,
        old_trust: row.trust_score,
        new_trust: newTrust,
        helpful_count: row.helpful_count + inc,
      };
    });
  }

  // --- Reads --------------------------------------------------------------------------------------

  get(factId: number): FactRecord | undefined {
    return this.withPendingCounts(this.stmts.factById.get(factId) as FactRecord | undefined);
  }

  /** Exact (trimmed) content match, optionally within a category. No FTS, no retrieval counting. */
  findByContent(content: string, category?: string): FactRecord | undefined {
    const row = this.withPendingCounts(
      this.stmts.factByContent.get(content.trim()) as FactRecord | undefined,
    );
    if (!row) return undefined;
    if (category !== undefined && row.category !== category) return undefined;
    return row;
  }

  count(): number {
    return (this.stmts.count.get() as { n: number }).n;
  }

  /** The contents of the latest facts of a category, newest first (what a new fact joins). */
  recentContents(category: string, limit: number, excludeId?: number): string[] {
    const rows = this.stmts.recentInCategory.all(category, excludeId ?? -1, limit) as Array<{
      content: string;
    }>;
    return rows.map((r) => r.content);
  }

  /** Browse by trust descending (store default limit 50). */
  list(options: { category?: string; minTrust?: number; limit?: number } = {}): FactRecord[] {
    const params: unknown[] = [options.minTrust ?? 0];
    let clause = '';
    if (options.category !== undefined) {
      clause = 'AND category = ?';
      params.push(options.category);
    }
    params.push(options.limit ?? 50);
    const rows = this.db
      .prepare(
        `SELECT ${FACT_COLUMNS} FROM facts WHERE trust_score >= ? ${clause} ORDER BY trust_score DESC LIMIT ?`,
      )
      .all(...params) as FactRecord[];
    return rows.map((row) => this.withPendingCounts(row));
  }

  /** Entity names linked to a fact. */
  entitiesOf(factId: number): string[] {
    return (this.stmts.entityNames.all(factId) as Array<{ name: string }>).map((r) => r.name);
  }

  // --- Retrieval (delegated) ----------------------------------------------------------------------

  /** Hybrid search; bumps retrieval_count of the returned facts. */
  search(query: string, options: SearchOptions & { queryEmbedding?: Float32Array } = {}): ScoredFact[] {
    return this.retriever.search(query, options);
  }

  /**
   * `search`, with the semantic signal when an embedder is configured: facts added since the last
   * call are embedded first, in the same batch as the query.
   */
  async recall(query: string, options: SearchOptions = {}): Promise<ScoredFact[]> {
    if (!this.embedder || this.retriever.weights.embedding <= 0 || !query.trim())
      return this.search(query, options);
    const vec = await this.embedPendingAnd(query);
    if (this.closed) return [];
    return this.search(query, { ...options, queryEmbedding: vec });
  }

  /**
   * What is worth putting in front of the model unasked (the provider's prefetch): among the best
   * candidates, the facts whose relevance clears `minRelevance` and is within reach of the
   * strongest one, at most `limit`, in ranking order; [] when nothing is relevant. Only the facts
   * returned count as retrieved. `compat: 'reference'` keeps the reference's plain top `limit`.
   */
  async recallRelevant(query: string, options: RelevantOptions = {}): Promise<ScoredFact[]> {
    const limit = Math.max(1, options.limit ?? 5);
    const base = { category: options.category, minTrust: options.minTrust };
    if (this.retriever.mode === 'reference') return this.recall(query, { ...base, limit });
    const bar = options.minRelevance ?? DEFAULT_MIN_RELEVANCE;
    const candidates = await this.recall(query, {
      ...base,
      limit: Math.max(2 * limit, RELEVANT_POOL),
      countRetrievals: false,
    });
    let best = 0;
    for (const c of candidates) best = Math.max(best, c.relevance ?? 0);
    const chosen = candidates
      .filter((c) => (c.relevance ?? 0) >= bar && (c.relevance ?? 0) >= RELATIVE_RELEVANCE * best)
      .slice(0, limit);
    this.bumpRetrievalCounts(chosen.map((c) => c.fact_id));
    return chosen;
  }

  probe(entity: string, options: { category?: string; limit?: number } = {}): ScoredFact[] {
    return this.retriever.probe(entity, options);
  }

  related(entity: string, options: { category?: string; limit?: number } = {}): ScoredFact[] {
    return this.retriever.related(entity, options);
  }

  reason(entities: readonly string[], options: { category?: string; limit?: number } = {}): ScoredFact[] {
    return this.retriever.reason(entities, options);
  }

  contradict(options: { category?: string; threshold?: number; limit?: number } = {}): ContradictionPair[] {
    return this.retriever.contradict(options);
  }

  // --- Vectors, banks, side index ----------------------------------------------------------------

  /**
   * Recompute every HRR vector and bank from text (recovery, a dimension change, or an explicit
   * format conversion: `{vectorFormat: 'float32'}` converts an older float64 store, after which the
   * older plugin can no longer read it). A number is the dimension, as in the reference.
   */
  rebuildAllVectors(options?: number | { dim?: number; vectorFormat?: VectorFormat }): number {
    if (!this.hrrEnabled) return 0;
    const { dim, vectorFormat } = typeof options === 'number' ? { dim: options } : (options ?? {});
    if (dim !== undefined) this.hrrDim = dim;
    if (vectorFormat !== undefined) this.vectorFormat = vectorFormat;
    const rows = this.db.prepare('SELECT fact_id, content, category FROM facts').all() as FactRecord[];
    this.db
      .transaction(() => {
        for (const row of rows) {
          this.storeVector(row.fact_id, row.content, this.entitiesOf(row.fact_id));
          this.dirtyBanks.add(row.category);
        }
      })
      .immediate();
    this.flushBanks();
    return rows.length;
  }

  /**
   * The format of the vectors already stored at this dimension: `float64` when every one is a raw
   * float64 blob (the older plugin's), `float32` when any is prefixed, null when there are none.
   * `length()` of a blob reads no overflow page, and each EXISTS stops at its first match, so
   * opening a float32 store reads a few rows, not all of them (counting them took ~150 ms at 100k).
   */
  storedVectorFormat(): VectorFormat | null {
    const f64 = this.hrrDim * 8;
    const f32 = HRR_BLOB_PREFIX.length + this.hrrDim * 4;
    if (f64 === f32) return null;
    // CASE stops at the first true branch: a float32 store (the usual) finds its first row at once.
    const found = this.db
      .prepare(
        `SELECT CASE
           WHEN EXISTS (SELECT 1 FROM memory_banks WHERE length(vector) = @f32)
             OR EXISTS (SELECT 1 FROM facts WHERE length(hrr_vector) = @f32) THEN 'float32'
           WHEN EXISTS (SELECT 1 FROM memory_banks WHERE length(vector) = @f64)
             OR EXISTS (SELECT 1 FROM facts WHERE length(hrr_vector) = @f64) THEN 'float64'
         END`,
      )
      .pluck()
      .get({ f64, f32 }) as VectorFormat | null;
    return found ?? null;
  }

  private chooseVectorFormat(requested: VectorFormat | 'auto'): VectorFormat {
    const stored = this.storedVectorFormat();
    if (stored === null) return requested === 'auto' ? 'float32' : requested;
    if (requested !== 'auto' && requested !== stored) {
      this.logger.warn(
        `holographic: ${this.dbPath} holds ${stored} HRR vectors; new vectors are written as ${stored} too, ` +
          `not ${requested} (a mixed store breaks the plugin that wrote it). ` +
          `Convert explicitly with 'hermes-memory holographic reindex --vector-format ${requested}'.`,
      );
    } else if (stored === 'float64') {
      this.logger.info(
        `holographic: ${this.dbPath} holds float64 HRR vectors (the older plugin's format); new vectors are written as float64 too.`,
      );
    }
    return stored;
  }

  /** Decode a stored vector; null when absent or undecodable at this dimension. */
  decodeVector(blob: Uint8Array | null | undefined): PhaseVector | null {
    if (!blob) return null;
    try {
      return bytesToPhases(blob, this.hrrDim);
    } catch (error) {
      this.logger.debug?.('holographic: skipping undecodable HRR vector', { error: String(error) });
      return null;
    }
  }

  /** The bundle of a category's vectors (what `memory_banks` stores), computed from current rows. */
  categoryBank(category: string): PhaseVector | null {
    // Streamed: one decoded vector in memory at a time (100k vectors would be 800 MB at once).
    // Small stores rebuild banks on every write (as the reference does), so each fact's cos/sin
    // terms are kept while the store is small: a rebuild then re-reads the blobs but does no
    // trigonometry for facts it has seen (same terms, same order: the same bank, bit for bit).
    const small = this.count() <= SMALL_STORE_FACTS;
    if (!small) this.bankTerms.clear();
    const previous = this.bankTerms.get(category);
    // Rebuilt from the rows seen now, so removed facts leave the cache.
    const seen = small ? new Map<number, { blob: Buffer; terms: Float64Array }>() : null;
    const acc = new BundleAccumulator(this.hrrDim);
    const rows = this.stmts.vectorsByCategory.iterate(category) as Iterable<{
      fact_id: number;
      hrr_vector: Uint8Array;
    }>;
    for (const r of rows) {
      const hit = previous?.get(r.fact_id);
      if (seen && hit && Buffer.compare(hit.blob, r.hrr_vector) === 0) {
        acc.addTerms(hit.terms);
        seen.set(r.fact_id, hit);
        continue;
      }
      const v = this.decodeVector(r.hrr_vector);
      if (!v) continue;
      if (seen) seen.set(r.fact_id, { blob: Buffer.from(r.hrr_vector), terms: acc.addKeepingTerms(v) });
      else acc.add(v);
    }
    if (seen) this.bankTerms.set(category, seen);
    if (acc.count === 0) return null;
    snrEstimate(this.hrrDim, acc.count, (m) => this.logger.warn(m));
    return acc.result();
  }

  /** Write pending category banks to `memory_banks` (the reference rebuilds them on every write). */
  flushBanks(): void {
    if (!this.hrrEnabled || this.dirtyBanks.size === 0 || this.closed) return;
    const categories = [...this.dirtyBanks];
    this.dirtyBanks.clear();
    // Writes no facts row: the row cache stays.
    this.factsWrite(() => {
      for (const category of categories) {
        const bank = this.categoryBank(category);
        const name = `cat:${category}`;
        if (!bank) {
          this.stmts.deleteBank.run(name);
          continue;
        }
        const n = (this.stmts.countVectors.get(category) as { n: number }).n;
        this.stmts.upsertBank.run(name, phasesToBytes(bank, this.vectorFormat), this.hrrDim, n);
      }
    });
  }

  /**
   * Small stores (≤ 200 facts) rebuild banks at once, like the reference; large categories defer to `close()` or
   * the next category probe, because a rebuild reads every vector of the category (O(n) per write).
   */
  private flushBanksIfSmall(): void {
    if (this.dirtyBanks.size === 0) return;
    if (this.count() <= SMALL_STORE_FACTS) this.flushBanks();
  }

  /**
   * Bring `hm_facts_fts` and `hm_embeddings` up to date with `facts` for every id the triggers queued
   * (our writes, and writes by the Python plugin or another process).
   */
  syncSideIndex(fresh?: ReadonlyMap<number, { content: string; tags: string }>): void {
    const s = this.stmts;
    const ids = s.dirtyIds.all() as Array<{ fact_id: number }>;
    if (ids.length === 0) return;
    const run = () => {
      for (const { fact_id } of ids) {
        // A row inserted by this transaction has no index entry or embedding yet.
        const known = fresh?.get(fact_id);
        if (known) {
          s.ftsInsert.run(fact_id, indexText(known.content), indexText(known.tags));
          this.retriever.primeTokens(fact_id, known.content, known.tags);
          this.pendingEmbeds?.add(fact_id);
          s.dirtyDelete.run(fact_id);
          continue;
        }
        s.ftsDelete.run(fact_id);
        s.embeddingDelete.run(fact_id);
        this.dense?.remove(fact_id);
        const row = s.factText.get(fact_id) as { content: string; tags: string | null } | undefined;
        if (row) {
          s.ftsInsert.run(fact_id, indexText(row.content), indexText(row.tags ?? ''));
          this.retriever.primeTokens(fact_id, row.content, row.tags ?? '');
          this.pendingEmbeds?.add(fact_id);
        } else this.pendingEmbeds?.delete(fact_id);
        s.dirtyDelete.run(fact_id);
      }
      // Only this transaction's inserts queued: the statistics take their lengths, no recount.
      const inserted = fresh;
      if (inserted && this.retriever.corpusStatsCached && ids.every(({ fact_id }) => inserted.has(fact_id))) {
        const added = s.lengthsOf.get(JSON.stringify(ids.map((r) => r.fact_id))) as {
          n: number;
          total: number;
        };
        this.retriever.factsInserted(added.n, added.total);
      } else this.retriever.invalidate();
    };
    if (this.db.inTransaction) run();
    else this.db.transaction(run).immediate();
  }

  /** Embed every fact that has no vector for the configured embedder, in batches. Returns how many. */
  async embedPending(batchSize = 512): Promise<number> {
    let total = 0;
    for (;;) {
      const before = this.pendingCount();
      if (before === 0 || this.closed) return total;
      await this.embedPendingAnd(undefined, batchSize);
      const after = this.pendingCount();
      total += before - after;
      if (after >= before) return total;
    }
  }

  /** Facts still waiting for an embedding (0 without an embedder). */
  pendingCount(): number {
    if (!this.embedder || this.closed) return 0;
    this.syncSideIndex();
    return this.loadPending().size;
  }

  /**
   * The in-memory dense index of the configured embedder, loaded from `hm_embeddings` on first use
   * and kept current by `embedPending` / `syncSideIndex` (null without an embedder).
   */
  denseIndex(): DenseIndex | null {
    const embedder = this.embedder;
    if (!embedder || this.closed) return null;
    if (this.dense && this.dense.model === embedder.id) return this.dense;
    const index = new DenseIndex(embedder.id, embedder.dimensions, 1024);
    for (const row of this.stmts.embeddingsOfModel.iterate(embedder.id) as Iterable<{
      fact_id: number;
      dim: number;
      vector: Buffer;
    }>) {
      if (row.dim !== embedder.dimensions) continue;
      const v = new Float32Array(row.dim);
      new Uint8Array(v.buffer).set(row.vector.subarray(0, row.dim * 4));
      index.set(row.fact_id, v);
    }
    this.dense = index;
    return index;
  }

  /** Pending ids, read from the DB once per open; afterwards maintained by `syncSideIndex`. */
  private loadPending(): Set<number> {
    if (this.pendingEmbeds) return this.pendingEmbeds;
    const ids = this.stmts.missingEmbeddingIds.all(this.embedder?.id ?? '') as Array<{ fact_id: number }>;
    this.pendingEmbeds = new Set(ids.map((r) => r.fact_id));
    return this.pendingEmbeds;
  }

  /**
   * Embed up to `batchSize` pending facts together with `query` (one embedder call), store them and
   * return the query's vector. Concurrent callers wait for an in-flight batch first.
   */
  private async embedPendingAnd(
    query: string | undefined,
    batchSize = 4096,
  ): Promise<Float32Array | undefined> {
    const embedder = this.embedder;
    if (!embedder) return undefined;
    while (this.embedding) await this.embedding;
    if (this.closed) return undefined;
    this.syncSideIndex();
    const pending = this.loadPending();
    const batch: Array<{ fact_id: number; content: string }> = [];
    for (const id of pending) {
      if (batch.length >= batchSize) break;
      const row = this.stmts.factText.get(id) as { content: string } | undefined;
      if (row) batch.push({ fact_id: id, content: row.content });
      else pending.delete(id);
    }
    if (batch.length === 0 && query === undefined) return undefined;
    const texts = batch.map((r) => r.content);
    if (query !== undefined) texts.push(query);
    let release: () => void = () => {};
    this.embedding = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const vectors = await embedder.embed(texts);
      if (!this.closed && batch.length > 0) {
        const dense = this.denseIndex();
        // Writes no facts row: the row cache stays.
        this.factsWrite(() => {
          batch.forEach((r, i) => {
            const v = vectors[i];
            if (!v || !pending.has(r.fact_id)) return;
            // Skip a fact whose content changed while the batch was being embedded.
            const now = this.stmts.factText.get(r.fact_id) as { content: string } | undefined;
            if (now?.content !== r.content) return;
            const buf = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
            this.stmts.embeddingUpsert.run(r.fact_id, embedder.id, v.length, buf);
            dense?.set(r.fact_id, v);
            pending.delete(r.fact_id);
          });
        });
      }
      return query === undefined ? undefined : vectors[batch.length];
    } finally {
      this.embedding = null;
      release();
    }
  }

  /**
   * Count a retrieval of each returned fact (deduplicated per call). Write-behind: increments
   * accumulate in memory and land in one transaction on a later macrotask (at most every
   * `RETRIEVAL_FLUSH_MS`), on `flushRetrievalCounts()` and on `close()`. An UPDATE of `facts` fires
   * the reference's `facts_au` trigger, which rewrites the reference FTS row of every counted fact;
   * batching keeps that off the search path. A crash loses at most the last interval's increments
   * (they are statistics). Read-only contexts (`trackRetrievals: false`) count nothing.
   */
  bumpRetrievalCounts(ids: readonly number[]): void {
    if (ids.length === 0 || !this.trackRetrievals || this.closed) return;
    const pending = this.pendingRetrievals;
    for (const id of new Set(ids)) pending.set(id, (pending.get(id) ?? 0) + 1);
    // A long synchronous burst never yields to the timer: bound the memory held meanwhile.
    if (pending.size >= RETRIEVAL_FLUSH_MAX_IDS) {
      this.flushRetrievalCounts();
      return;
    }
    if (!this.retrievalTimer) {
      this.retrievalTimer = setTimeout(() => {
        this.retrievalTimer = null;
        this.flushRetrievalCounts();
      }, RETRIEVAL_FLUSH_MS);
      // Never keep the process alive for statistics; close() and flush hooks write the rest.
      this.retrievalTimer.unref?.();
    }
  }

  /** Unwritten retrieval increments of a fact (added to rows this process reads). */
  pendingRetrievalCount(factId: number): number {
    return this.pendingRetrievals.get(factId) ?? 0;
  }

  /**
   * Write the accumulated retrieval increments in one transaction. Returns true when nothing is left
   * pending; on failure (e.g. another process holds the write lock past the busy timeout) the
   * increments are kept for the next attempt.
   */
  flushRetrievalCounts(): boolean {
    if (this.retrievalTimer) {
      clearTimeout(this.retrievalTimer);
      this.retrievalTimer = null;
    }
    const pending = this.pendingRetrievals;
    if (pending.size === 0 || this.closed) return pending.size === 0;
    // One statement per distinct increment (usually just 1 and a few 2s).
    const byIncrement = new Map<number, number[]>();
    for (const [id, inc] of pending) {
      const list = byIncrement.get(inc);
      if (list) list.push(id);
      else byIncrement.set(inc, [id]);
    }
    try {
      // Only retrieval_count changes: the retriever's row cache applies the same increments.
      this.factsWrite((changes) => {
        for (const [inc, list] of byIncrement) this.stmts.bumpRetrievals.run(inc, JSON.stringify(list));
        for (const [id, inc] of pending) changes.increment(id, inc);
      });
      pending.clear();
      return true;
    } catch (error) {
      this.logger.debug?.('holographic: retrieval_count not updated', { error: String(error) });
      return false;
    }
  }

  /** `row` with this process's unwritten retrieval increments added (a copy; undefined passes through). */
  withPendingCounts<T extends { fact_id: number; retrieval_count: number } | undefined>(row: T): T {
    if (!row || this.pendingRetrievals.size === 0) return row;
    const inc = this.pendingRetrievals.get(row.fact_id);
    return inc ? { ...row, retrieval_count: row.retrieval_count + inc } : row;
  }

  /** Release this instance's share of the connection (idempotent); flushes pending banks. */
  close(): void {
    if (!this.conn) return;
    this.flushRetrievalCounts();
    if (this.retrievalTimer) clearTimeout(this.retrievalTimer);
    this.retrievalTimer = null;
    try {
      this.flushBanks();
    } catch (error) {
      this.logger.debug?.('holographic: bank flush on close failed', { error: String(error) });
    }
    this.bulkEncoder?.close();
    this.bulkEncoder = null;
    this.conn.release();
    this.conn = null;
  }

  // --- Internals --------------------------------------------------------------------------------------

  private linkEntities(factId: number, content: string): string[] {
    const entities = entityCacheFor(this.db);
    const ids = this.resolveEntities(entities, content);
    for (const entityId of ids) this.stmts.link.run(factId, entityId);
    // The vector encodes the linked entities' stored names, as the reference reads them back.
    return ids.map((id) => entities.name(id) ?? '');
  }

  /** Entity ids of the names in `content`, deduplicated in first-seen order (the link order). */
  private resolveEntities(entities: EntityCache, content: string): number[] {
    const ids: number[] = [];
    for (const name of extractEntities(content)) {
      const id = entities.resolve(name);
      if (!ids.includes(id)) ids.push(id);
    }
    return ids;
  }

  /** Case-insensitive name match, then alias list match, else a new entity. */
  resolveEntity(name: string): number {
    return entityCacheFor(this.db).resolve(name);
  }

  private storeVector(factId: number, content: string, entities: readonly string[]): void {
    if (!this.hrrEnabled) return;
    const vec = encodeFact(content, entities, this.hrrDim);
    this.stmts.setVector.run(phasesToBytes(vec, this.vectorFormat), factId);
  }
}

function prepare(db: Db) {
  return {
    idByContent: db.prepare('SELECT fact_id FROM facts WHERE content = ?'),
    insertFact: db.prepare(
      `INSERT INTO facts (content, category, tags, trust_score, hrr_vector, created_at) VALUES (?, ?, ?, ?, ?, COALESCE(?, CURRENT_TIMESTAMP)) RETURNING ${ROW_COLUMNS}`,
    ),
    factById: db.prepare(`SELECT ${FACT_COLUMNS} FROM facts WHERE fact_id = ?`),
    factByContent: db.prepare(`SELECT ${FACT_COLUMNS} FROM facts WHERE content = ?`),
    factText: db.prepare('SELECT content, tags FROM facts WHERE fact_id = ?'),
    recentInCategory: db.prepare(
      'SELECT content FROM facts WHERE category = ? AND fact_id != ? ORDER BY fact_id DESC LIMIT ?',
    ),
    deleteFact: db.prepare('DELETE FROM facts WHERE fact_id = ?'),
    unlinkFact: db.prepare('DELETE FROM fact_entities WHERE fact_id = ?'),
    link: db.prepare('INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)'),
    entityNames: db.prepare(
      'SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id WHERE fe.fact_id = ? ORDER BY fe.rowid',
    ),
    setVector: db.prepare('UPDATE facts SET hrr_vector = ? WHERE fact_id = ?'),
    feedback: db.prepare(
      'UPDATE facts SET trust_score = ?, helpful_count = helpful_count + ?, updated_at = CURRENT_TIMESTAMP WHERE fact_id = ?',
    ),
    count: db.prepare('SELECT COUNT(*) AS n FROM facts'),
    bumpRetrievals: db.prepare(
      'UPDATE facts SET retrieval_count = retrieval_count + ? WHERE fact_id IN (SELECT value FROM json_each(?))',
    ),
    vectorsByCategory: db.prepare(
      'SELECT fact_id, hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL',
    ),
    countVectors: db.prepare('SELECT COUNT(*) AS n FROM facts WHERE category = ? AND hrr_vector IS NOT NULL'),
    deleteBank: db.prepare('DELETE FROM memory_banks WHERE bank_name = ?'),
    upsertBank: db.prepare(`INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at)
      VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
      ON CONFLICT(bank_name) DO UPDATE SET vector = excluded.vector, dim = excluded.dim,
        fact_count = excluded.fact_count, updated_at = excluded.updated_at`),
    dirtyIds: db.prepare('SELECT fact_id FROM hm_dirty'),
    lengthsOf: db.prepare(
      "SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(content) + LENGTH(COALESCE(tags, ''))), 0) AS total FROM facts WHERE fact_id IN (SELECT value FROM json_each(?))",
    ),
    dirtyDelete: db.prepare('DELETE FROM hm_dirty WHERE fact_id = ?'),
    ftsDelete: db.prepare('DELETE FROM hm_facts_fts WHERE rowid = ?'),
    ftsInsert: db.prepare('INSERT INTO hm_facts_fts (rowid, body, tags) VALUES (?, ?, ?)'),
    embeddingDelete: db.prepare('DELETE FROM hm_embeddings WHERE fact_id = ?'),
    embeddingUpsert: db.prepare(
      'INSERT OR REPLACE INTO hm_embeddings (fact_id, model, dim, vector) VALUES (?, ?, ?, ?)',
    ),
    missingEmbeddingIds: db.prepare(
      'SELECT f.fact_id FROM facts f LEFT JOIN hm_embeddings e ON e.fact_id = f.fact_id AND e.model = ? WHERE e.fact_id IS NULL ORDER BY f.fact_id',
    ),
    embeddingsOfModel: db.prepare('SELECT fact_id, dim, vector FROM hm_embeddings WHERE model = ?'),
  };
}
