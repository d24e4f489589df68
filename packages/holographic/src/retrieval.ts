/**
 * Retrieval over a FactStore: the reference's four-stage search (FTS → Jaccard → HRR → trust ×
 * decay), the improved default pipeline, and the algebraic queries probe / related / reason /
 * contradict.
 */
import type { Statement } from 'better-sqlite3';
import { ROLE_CONTENT, ROLE_ENTITY, bind, encodeAtom, encodeText, similarity, unbind } from './hrr';
import type { FactStore } from './store';
import {
  QUERY_STOPWORDS,
  hasTimeExpression,
  isTemporalQuery,
  jaccard,
  jaccardTokens,
  questionShare,
  queryTerms,
  sanitizeFtsQuery,
  stemmedTokens,
} from './text';
import type {
  ContradictionPair,
  DefaultWeights,
  FactRecord,
  ReferenceWeights,
  RetrievalMode,
  ScoredFact,
  SearchOptions,
} from './types';
import { porterStem } from './porter';
import { type DenseIndex, normalised } from './dense';
import { entityCacheFor } from './entity-cache';
import { RowCache } from './row-cache';
import {
  type WeightedTerm,
  isFiller,
  lexicalEvidence,
  nameStems,
  relevanceOf,
  semanticStrength,
  RELEVANCE_MIN_STORE,
  semanticThresholdFor,
} from './relevance';

export const REFERENCE_WEIGHTS: Readonly<ReferenceWeights> = Object.freeze({
  fts: 0.4,
  jaccard: 0.3,
  hrr: 0.3,
});
/** Weights when HRR is unavailable (the reference's numpy-less redistribution). */
export const REFERENCE_WEIGHTS_NO_HRR: Readonly<ReferenceWeights> = Object.freeze({
  fts: 0.6,
  jaccard: 0.4,
  hrr: 0,
});
/** Default-pipeline weights, tuned on the LoCoMo dev split (see docs/decisions/0401). */
export const DEFAULT_WEIGHTS: Readonly<DefaultWeights> = Object.freeze({
  bm25: 0.55,
  coverage: 0.3,
  jaccard: 0.15,
  hrr: 0,
  embedding: 0,
  context: 0.5,
  feedback: 0,
  expansion: 0.2,
  speaker: 0.4,
  temporal: 0.2,
  question: 0.4,
  reply: 0.5,
});
/** Added to the default weights when an embedder is active. */
export const DEFAULT_EMBEDDING_WEIGHT = 0.3;

const MAX_CONTRADICT_FACTS = 500;
/** Pseudo-relevance feedback: facts read and terms added (RM3's usual small values). */
const FEEDBACK_DOCS = 3;
const FEEDBACK_TERMS = 10;
/** Conversational neighbourhood: seeds whose neighbours join the pool, window, decay per step. */
const NEIGHBOUR_SEEDS = 20;
const CONTEXT_WINDOW = 3;
const CONTEXT_DECAY = 0.7;
/** Facts whose token statistics stay in memory (oldest-first eviction past it). */
const TOKEN_CACHE_MAX = 150_000;
/** Facts whose parsed created_at stays in memory (cleared past it). */
const CREATED_CACHE_MAX = 100_000;
/** Interned stems kept before the vocabulary (and the token cache) start afresh. */
const VOCABULARY_MAX = 1_000_000;
const BM25_K1 = 1.2;
/**
 * Length normalisation. Memories are short (a sentence or a chat turn) and their length says more
 * about verbosity than about scope, so it is milder than the usual 0.75 (see 0401, fifth pass).
 */
const BM25_B = 0.3;
/** A chat-log speaker prefix: one to four capitalised words and a colon at the start ("Jane Doe: …"). */
const SPEAKER_PREFIX = /^(\p{Lu}[\p{L}\p{N}'’.-]*(?: \p{Lu}[\p{L}\p{N}'’.-]*){0,3}):\s/u;
const STOP_STEMS = new Set([...QUERY_STOPWORDS].map((w) => porterStem(w)));

export interface RetrieverConfig {
  mode: RetrievalMode;
  halfLife: number;
  referenceWeights?: Partial<ReferenceWeights>;
  weights?: Partial<DefaultWeights>;
  /** Cosine above which the semantic signal counts (default: calibrated per model, `semanticThresholdFor`). */
  semanticThreshold?: number;
}

type FactRow = FactRecord & { hrr_vector?: Uint8Array | null };

/**
 * A fact's token statistics, compact: stems are interned to ids (`FactRetriever.termId`), and one
 * Int32Array holds `[id, count]` per distinct stem in first-occurrence order — the count negated for
 * stopword stems (they score in BM25 but not in Jaccard) — then the speaker prefix's stem ids.
 * About 200 bytes a fact, against ~1.8 KB for Maps and Sets, so 150k facts fit in the cache.
 */
interface TokenStats {
  content: string;
  tags: string;
  data: Int32Array;
  /** Distinct stems (pairs at the start of `data`). */
  distinct: number;
  /** Distinct non-stopword stems (the Jaccard set's size). */
  setSize: number;
  /** Tokens in the text (BM25 document length). */
  length: number;
  /** The text carries a time expression. */
  timed: boolean;
  /** Share of the text's sentences that are questions. */
  asks: number;
}

/** Facts in the store, their total length in characters, and the BM25 average length in tokens. */
interface CorpusStats {
  n: number;
  total: number;
  avgLen: number;
}

function corpusStatsOf(n: number, total: number): CorpusStats {
  // Token length is estimated from characters (≈5.5 per English token incl. the space).
  const chars = n > 0 ? total / n : 0;
  return { n, total, avgLen: Math.max(1, chars / 5.5) };
}

/** Raw lexical scores of one fact for one search (see `FactRetriever.lexicalScores`). */
interface LexicalRow {
  bm25: number;
  /** IDF-weighted share of the query's terms, counting the previous turn's at the expansion weight. */
  coverage: number;
  /** The fact contains one of the query's terms, or replies to a question that does. */
  matched: boolean;
  jaccard: number;
  speaker: number;
}

/** Jaccard similarity of the query's (distinct) term ids and a fact's non-stopword stems, from the number of query ids in the fact's set (`inter`). */
function jaccardFrom(querySize: number, inter: number, tok: TokenStats): number {
  if (querySize === 0 || tok.setSize === 0) return 0;
  const union = querySize + tok.setSize - inter;
  return union > 0 ? inter / union : 0;
}

/**
 * One pass over a fact's stems: `counts[q]` = occurrences of query stem q, and
 * `inSet[q]` = 1 when it is a non-stopword stem of the fact (as `inSet`). Ids interned after the
 * slots were sized are not query stems.
 */
function queryCounts(
  tok: TokenStats,
  slots: Int32Array,
  counts: Float64Array,
  inSet: Uint8Array | null,
): void {
  counts.fill(0);
  inSet?.fill(0);
  const d = tok.data;
  const end = 2 * tok.distinct;
  for (let j = 0; j < end; j += 2) {
    const id = d[j]!;
    const slot = id < slots.length ? slots[id]! : 0;
    if (slot === 0) continue;
    const c = d[j + 1]!;
    counts[slot - 1] = Math.abs(c);
    if (inSet && c > 0) inSet[slot - 1] = 1;
  }
}

/** Whether term `id` is one of the fact's non-stopword stems. */
function inSet(tok: TokenStats, id: number): boolean {
  const d = tok.data;
  for (let j = 0; j < 2 * tok.distinct; j += 2) if (d[j] === id) return d[j + 1]! > 0;
  return false;
}

/** Whether term `id` is a stem of the fact's speaker prefix. */
function isSpeaker(tok: TokenStats, id: number): boolean {
  const d = tok.data;
  for (let j = 2 * tok.distinct; j < d.length; j++) if (d[j] === id) return true;
  return false;
}

export class FactRetriever {
  readonly mode: RetrievalMode;
  readonly halfLife: number;
  readonly referenceWeights: Readonly<ReferenceWeights>;
  readonly weights: Readonly<DefaultWeights>;
  /** Configured semantic threshold (undefined: the embedding model's calibrated one). */
  readonly semanticThresholdSetting: number | undefined;
  private readonly tokenCache = new Map<number, TokenStats>();
  /** Stem → term id, and back (ids index `termStems`). */
  private readonly termIds = new Map<string, number>();
  private readonly termStems: string[] = [];
  private stats: CorpusStats | null = null;
  private vocabStmt: ReturnType<FactStore['db']['prepare']> | null = null;
  private entityIndex: { generation: number; rows: number; index: Map<string, number[]> } | null = null;
  private readonly dfCache = new Map<string, number>();
  private readonly createdAt = new Map<number, number>();
  private readonly createdText = new Map<number, string>();
  private bridgeStmt: Statement<unknown[]> | null = null;
  private ftsStmt: Statement<unknown[]> | null = null;
  /** Raw lexical scores of this search's facts, per stem set (see `lexicalScores`). */
  private lexicalMemo: {
    stems: ReadonlyMap<string, number>;
    rows: Map<number, LexicalRow>;
  } | null = null;
  /** Rows seen during the current search (null = looked up, absent), for the previous-turn lookups. */
  private searchRows = new Map<number, FactRow | null>();
  private loadStmts: Map<string, Statement<unknown[]>> | null = null;
  private rowCacheInstance: RowCache | null = null;
  /** Term id → query slot + 1 during `lexicalScores` (all zero between calls). */
  private querySlot = new Int32Array(1024);

  constructor(
    private readonly store: FactStore,
    config: RetrieverConfig,
  ) {
    this.mode = config.mode;
    this.halfLife = config.halfLife;
    const ref = { ...REFERENCE_WEIGHTS, ...config.referenceWeights };
    this.referenceWeights = ref.hrr > 0 && !store.hrrEnabled ? REFERENCE_WEIGHTS_NO_HRR : ref;
    // The embedding weight only acts when a query vector is given (an embedder is attached).
    this.weights = { ...DEFAULT_WEIGHTS, embedding: DEFAULT_EMBEDDING_WEIGHT, ...config.weights };
    this.semanticThresholdSetting = config.semanticThreshold;
  }

  /** Cosine above which `model`'s similarity counts as evidence. */
  semanticThreshold(model: string): number {
    return this.semanticThresholdSetting ?? semanticThresholdFor(model);
  }

  /** Scoring columns of facts by id, kept in memory until the database changes. */
  get rowCache(): RowCache {
    this.rowCacheInstance ??= new RowCache(this.store.db);
    return this.rowCacheInstance;
  }

  /** Drop cached statistics after a write. */
  invalidate(): void {
    this.stats = null;
    this.dfCache.clear();
  }

  /**
   * This store inserted `count` facts of `chars` characters in all (SQLite's LENGTH of content
   * plus tags), and nothing else changed since the last sync: the corpus statistics move by that
   * much instead of being recounted (a full scan: ~60 ms at 100k facts, after every `add`). The
   * same integers a recount would give, so the same average, bit for bit.
   */
  factsInserted(count: number, chars: number): void {
    this.dfCache.clear();
    if (this.stats) this.stats = corpusStatsOf(this.stats.n + count, this.stats.total + chars);
  }

  /** Whether the corpus statistics are held (false: the next search counts them). */
  get corpusStatsCached(): boolean {
    return this.stats !== null;
  }

  search(query: string, options: SearchOptions & { queryEmbedding?: Float32Array } = {}): ScoredFact[] {
    const results =
      this.mode === 'reference' ? this.referenceSearch(query, options) : this.defaultSearch(query, options);
    return options.countRetrievals === false ? this.withPendingCounts(results) : this.counted(results);
  }

  /**
   * Results show the count as of this read (this process's unwritten increments included, as if
   * written at once), then this retrieval is counted (write-behind, see `bumpRetrievalCounts`).
   */
  private counted(results: ScoredFact[]): ScoredFact[] {
    this.withPendingCounts(results);
    this.store.bumpRetrievalCounts(results.map((r) => r.fact_id));
    return results;
  }

  private withPendingCounts(results: ScoredFact[]): ScoredFact[] {
    for (const r of results) r.retrieval_count += this.store.pendingRetrievalCount(r.fact_id);
    return results;
  }

  // --- Reference pipeline ------------------------------------------------------------------------

  private referenceSearch(query: string, options: SearchOptions): ScoredFact[] {
    const limit = options.limit ?? 10;
    const minTrust = options.minTrust ?? 0.3;
    const candidates = this.referenceCandidates(query, options.category, minTrust, limit * 3);
    if (candidates.length === 0) return [];
    const w = this.referenceWeights;
    const queryTokens = jaccardTokens(query);
    let queryVec: Float64Array | null = null;
    const scored: ScoredFact[] = [];
    for (const fact of candidates) {
      const all = jaccardTokens(fact.content);
      for (const t of jaccardTokens(fact.tags ?? '')) all.add(t);
      const jac = jaccard(queryTokens, all);
      let hrrSim = 0.5;
      const vec = w.hrr > 0 ? this.store.decodeVector(fact.hrr_vector) : null;
      if (vec) {
        queryVec ??= encodeText(query, this.store.hrrDim);
        hrrSim = (similarity(queryVec, vec) + 1) / 2;
      }
      const relevance = w.fts * (fact.fts_rank ?? 0) + w.jaccard * jac + w.hrr * hrrSim;
      let score = relevance * fact.trust_score;
      if (this.halfLife > 0) score *= temporalDecay(fact.updated_at || fact.created_at, this.halfLife);
      scored.push(stripVector({ ...fact, score }));
    }
    scored.sort((a, b) => b.score - a.score);
    return scored.slice(0, limit);
  }

  private referenceCandidates(
    query: string,
    category: string | undefined,
    minTrust: number,
    limit: number,
  ): Array<FactRow & { fts_rank: number }> {
    const params: unknown[] = [sanitizeFtsQuery(query)];
    let where = 'facts_fts MATCH ?';
    if (category) {
      where += ' AND f.category = ?';
      params.push(category);
    }
    where += ' AND f.trust_score >= ?';
    params.push(minTrust, limit);
    let rows: Array<FactRow & { fts_rank_raw: number }>;
    try {
      rows = this.store.db
        .prepare(
          `SELECT f.*, facts_fts.rank AS fts_rank_raw FROM facts_fts JOIN facts f ON f.fact_id = facts_fts.rowid WHERE ${where} ORDER BY facts_fts.rank LIMIT ?`,
        )
        .all(...params) as Array<FactRow & { fts_rank_raw: number }>;
    } catch {
      return [];
    }
    if (rows.length === 0) return [];
    const maxRank = Math.max(1e-6, ...rows.map((r) => Math.abs(r.fts_rank_raw)));
    return rows.map(({ fts_rank_raw, ...fact }) => ({ ...fact, fts_rank: Math.abs(fts_rank_raw) / maxRank }));
  }

  // --- Default pipeline -----------------------------------------------------------------------

  private defaultSearch(
    query: string,
    options: SearchOptions & { queryEmbedding?: Float32Array },
  ): ScoredFact[] {
    const limit = options.limit ?? 10;
    const minTrust = options.minTrust ?? 0.3;
    if (!query?.trim()) return [];
    this.store.syncSideIndex();
    // A change this store did not make (another process, another store on the connection) may have
    // added or removed facts: recount the corpus statistics and document frequencies too.
    if (this.rowCache.validate()) this.invalidate();
    this.searchRows = new Map();
    this.lexicalMemo = null;
    this.boundVocabulary();
    const terms = queryTerms(query);
    const w = this.weights;
    const dense = w.embedding > 0 && options.queryEmbedding ? this.store.denseIndex() : null;
    const qVec = dense && options.queryEmbedding ? normalised(options.queryEmbedding) : null;
    // Similarity above this cosine is evidence on its own (related, not just closer than the rest).
    const tau = dense ? this.semanticThreshold(dense.model) : 1;
    if (terms.length === 0 && !qVec) return [];

    const stats = this.corpusStats();
    const idf = new Map<string, number>();
    const withDf = terms.map((t) => {
      const df = this.docFreq(t.stem);
      idf.set(t.stem, bm25Idf(stats.n, df));
      return { ...t, df };
    });

    // Candidate pool: lexical (OR over discriminative terms, BM25-ordered), the entity bridge, and
    // the dense nearest neighbours over every fact.
    const pool = Math.max(limit * 10, 100);
    const ids = new Set<number>(this.lexicalCandidates(withDf, stats.n, pool));
    for (const id of this.entityBridge(query, pool)) ids.add(id);
    let denseFloor = 0;
    if (dense && qVec) {
      const top = dense.top(qVec, pool);
      for (const [id] of top) ids.add(id);
      // Floor = the pool's last cosine; when the pool holds every fact, cosine 0 (unrelated).
      denseFloor = top.length >= pool ? top[top.length - 1]![1] : 0;
    }
    if (ids.size === 0) return [];

    const facts = this.loadFacts([...ids], options.category, minTrust, w.hrr > 0);
    const queryStems = new Map(terms.map((t) => [t.stem, 1]));
    const lexical = this.lexicalScores(facts, queryStems, idf, stats);
    let stems: ReadonlyMap<string, number> = queryStems;
    let vec = qVec;
    let semantic = dense && vec ? this.denseScores(facts, dense, vec, denseFloor) : null;
    let fused = this.fuse(facts, lexical, semantic, query);

    // Pseudo-relevance feedback (RM3-style): terms that characterise the best first-pass facts, and
    // (with embeddings) their centroid, retrieve the evidence that shares no word with the question.
    if (w.feedback > 0 && facts.length > 0) {
      const order = facts.map((_, i) => i).sort((a, b) => fused[b]! - fused[a]!);
      const fbDocs = order.slice(0, FEEDBACK_DOCS);
      const expansion = this.expansionTerms(
        fbDocs.map((i) => facts[i]!),
        fbDocs.map((i) => fused[i]!),
        queryStems,
        stats.n,
      );
      let extraIds: number[] = [];
      if (expansion.size > 0) {
        const expTerms = [...expansion.keys()].map((stem) => ({ stem, word: stem, df: this.docFreq(stem) }));
        for (const stem of expansion.keys()) idf.set(stem, bm25Idf(stats.n, this.docFreq(stem)));
        extraIds = this.lexicalCandidates(expTerms, stats.n, Math.ceil(pool / 2), true);
      }
      let fbVec: Float32Array | null = null;
      if (dense && qVec) {
        fbVec = new Float32Array(qVec);
        let total = 0;
        for (const i of fbDocs) total += Math.max(0, fused[i]!);
        for (const i of fbDocs) {
          const v = dense.vector(facts[i]!.fact_id);
          if (!v || total <= 0) continue;
          const share = (w.feedback * Math.max(0, fused[i]!)) / total;
          for (let d = 0; d < fbVec.length; d++) fbVec[d]! += share * v[d]!;
        }
        fbVec = normalised(fbVec);
        const top = dense.top(fbVec, pool);
        for (const [id] of top) extraIds.push(id);
        denseFloor = top.length >= pool ? top[top.length - 1]![1] : 0;
      }
      const known = new Set(facts.map((f) => f.fact_id));
      const fresh = [...new Set(extraIds)].filter((id) => !known.has(id));
      if (fresh.length > 0) facts.push(...this.loadFacts(fresh, options.category, minTrust, w.hrr > 0));
      const expanded = new Map(queryStems);
      for (const [stem, weight] of expansion) expanded.set(stem, w.feedback * weight);
      stems = expanded;
      vec = fbVec ?? vec;
      semantic = dense && vec ? this.denseScores(facts, dense, vec, denseFloor) : null;
      fused = this.fuse(facts, this.lexicalScores(facts, stems, idf, stats), semantic, query);
    }

    // Conversational neighbourhood: facts written right before/after the strongest hits join the
    // pool (a reply rarely repeats the words of the question it answers), then borrow their score.
    if (w.context > 0) {
      const order = facts.map((_, i) => i).sort((a, b) => fused[b]! - fused[a]!);
      const known = new Set(facts.map((f) => f.fact_id));
      const extra: number[] = [];
      for (const i of order.slice(0, Math.max(NEIGHBOUR_SEEDS, limit * 2))) {
        const id = facts[i]!.fact_id;
        for (let d = 1; d <= CONTEXT_WINDOW; d++)
          for (const nid of [id - d, id + d])
            if (nid > 0 && !known.has(nid)) {
              known.add(nid);
              extra.push(nid);
            }
      }
      if (extra.length > 0) {
        facts.push(...this.loadFacts(extra, options.category, minTrust, w.hrr > 0));
        semantic = dense && vec ? this.denseScores(facts, dense, vec, denseFloor) : null;
        fused = this.fuse(facts, this.lexicalScores(facts, stems, idf, stats), semantic, query);
      }
    }

    const scores = new Float64Array(facts.length);
    for (let i = 0; i < facts.length; i++) {
      const fact = facts[i]!;
      let score = fused[i]! * fact.trust_score;
      if (this.halfLife > 0) score *= temporalDecay(fact.updated_at || fact.created_at, this.halfLife);
      scores[i] = score;
    }
    // What matches the question: one of its terms (in the fact, or in the question it replies to) or a
    // similarity above the model's threshold. Only these are returned; the neighbourhood re-ranks
    // them and the semantic signal below the threshold only orders them.
    const memo = this.lexicalMemo!.rows;
    const cosines = facts.map((f) => (dense && qVec ? dense.score(qVec, f.fact_id) : 0));
    const matches = facts.map((f, i) => memo.get(f.fact_id)!.matched || cosines[i]! > tau);
    const final =
      w.context > 0 ? this.applyContext(facts, scores, w.context, matches) : new Float64Array(scores);
    // A question states nothing: its match has already been lent to the replies around it (the
    // neighbourhood pass used its full score), but it ranks itself at a discount.
    if (w.question > 0)
      for (let i = 0; i < facts.length; i++) {
        const asks = this.tokens(facts[i]!).asks;
        if (asks > 0) final[i] = final[i]! - w.question * asks * scores[i]!;
      }
    // Result objects are built for the returned facts only.
    const order: number[] = [];
    for (let i = 0; i < facts.length; i++) if (matches[i] && final[i]! > 0) order.push(i);
    order.sort((a, b) => final[b]! - final[a]! || facts[a]!.fact_id - facts[b]!.fact_id);
    const top = order.slice(0, limit);
    // Filler ("thanks!", "ok, sounds good") is about nothing, whatever it matches.
    const filler = isFiller(terms.map((t) => t.word));
    // Relevance weighs terms as in a store of at least RELEVANCE_MIN_STORE facts: in a handful of
    // facts every present term looks common and every absent one decisive.
    const n = Math.max(stats.n, RELEVANCE_MIN_STORE);
    const rareIdf = bm25Idf(n, 1);
    const weighted = this.weightedTerms(query, withDf, n);
    // Cached rows are current (the cache follows our own count writes and drops on any other).
    return top.map((i) => {
      const tok = this.tokens(facts[i]!);
      const evidence = lexicalEvidence(weighted, (id) => inSet(tok, id), rareIdf);
      return stripVector<FactRow & { fts_rank: number; score: number; relevance: number }>({
        ...facts[i]!,
        fts_rank: lexical.bm25[i] ?? 0,
        score: final[i]!,
        relevance: filler
          ? 0
          : round3(relevanceOf(evidence, semanticStrength(cosines[i]!, tau), tok.asks, w.question)),
      });
    });
  }

  /** The query's terms with their IDF and whether each is used as a name. */
  private weightedTerms(
    query: string,
    terms: ReadonlyArray<{ stem: string; df: number }>,
    n: number,
  ): WeightedTerm[] {
    const names = nameStems(query);
    return terms.map((t) => ({ id: this.termId(t.stem), idf: bm25Idf(n, t.df), name: names.has(t.stem) }));
  }

  /** Document frequency of a stem in the side index (0 when absent). */
  private docFreq(stem: string): number {
    const hit = this.dfCache.get(stem);
    if (hit !== undefined) return hit;
    this.vocabStmt ??= this.store.db.prepare('SELECT doc FROM hm_facts_vocab WHERE term = ?');
    const row = this.vocabStmt.get(stem) as { doc: number } | undefined;
    const df = row?.doc ?? 0;
    if (this.dfCache.size >= 10_000) this.dfCache.clear();
    this.dfCache.set(stem, df);
    return df;
  }

  /**
   * Fact ids matching any of the terms, BM25-ordered. Terms present in a large share of the store
   * (a speaker's name) still score later but do not pull half the store into the pool.
   */
  private lexicalCandidates(
    terms: ReadonlyArray<{ word: string; stem: string; df: number }>,
    n: number,
    pool: number,
    byStem = false,
  ): number[] {
    const present = terms.filter((t) => t.df > 0).sort((a, b) => a.df - b.df);
    const commonCut = Math.max(50, n * 0.2);
    const matchTerms = present.filter((t, i) => i < 2 || t.df <= commonCut);
    if (matchTerms.length === 0) return [];
    // Stems are already index terms: match them as prefixes so the porter tokenizer agrees.
    const match = matchTerms.map((t) => (byStem ? `"${t.stem}"*` : `"${t.word}"`)).join(' OR ');
    try {
      this.ftsStmt ??= this.store.db
        .prepare(
          'SELECT rowid AS id FROM hm_facts_fts WHERE hm_facts_fts MATCH ? ORDER BY bm25(hm_facts_fts, 1.0, 0.5) LIMIT ?',
        )
        .pluck();
      return this.ftsStmt.all(match, pool) as number[];
    } catch (error) {
      this.store.logger.debug('holographic: FTS candidate query failed', { error: String(error) });
      return [];
    }
  }

  /** BM25 (normalised by the best fact), IDF-weighted coverage and Jaccard for weighted stems. */
  private lexicalScores(
    facts: readonly FactRow[],
    stems: ReadonlyMap<string, number>,
    idf: ReadonlyMap<string, number>,
    stats: { n: number; avgLen: number },
  ): { bm25: number[]; coverage: number[]; jaccard: number[]; speaker: number[] } {
    // A fact's raw scores depend only on the stems (and this search's IDF and statistics): a pass
    // after the pool grows scores only the new facts. Only the BM25 normalisation is per pass.
    let memo = this.lexicalMemo;
    if (!memo || memo.stems !== stems) {
      memo = { stems, rows: new Map() };
      this.lexicalMemo = memo;
    }
    const rows = memo.rows;
    const unscored = facts.filter((f) => !rows.has(f.fact_id));
    if (unscored.length > 0) {
      let idfTotal = 0;
      for (const [stem, weight] of stems) idfTotal += weight * (idf.get(stem) ?? 0);
      idfTotal ||= 1;
      // Query stems as term ids, interned before any fact is tokenized in the loop below.
      const stemList = [...stems.keys()];
      const stemIds = stemList.map((stem) => this.termId(stem));
      const querySet = stemList.flatMap((stem, q) => (stems.get(stem)! >= 1 ? [stemIds[q]!] : []));
      // Per-stem weight × IDF, computed once rather than per fact.
      const stemIdf = stemList.map((stem) => stems.get(stem)! * (idf.get(stem) ?? 0));
      const { expansion, reply } = this.weights;
      const context = expansion > 0 || reply > 0 ? this.previousTurns(unscored) : null;
      // Each fact's and its previous turn's counts of the query stems, read in one pass over their
      // stems (term id → query slot) instead of one scan per query stem; the sums below run in the
      // same order as before, so the scores are the same numbers.
      const slots = this.querySlots(stemIds);
      const nq = stemIds.length;
      const ownCounts = new Float64Array(nq);
      const ownInSet = new Uint8Array(nq);
      const ctxCounts = new Float64Array(nq);
      const isQuery = stemList.map((stem) => stems.get(stem)! >= 1);
      for (let k = 0; k < unscored.length; k++) {
        const fact = unscored[k]!;
        const tok = this.tokens(fact);
        const ctx = context?.[k] ?? null;
        queryCounts(tok, slots, ownCounts, ownInSet);
        if (ctx) queryCounts(ctx, slots, ctxCounts, null);
        // A reply to a question inherits more of that question's topic than one to a statement.
        const e = ctx ? expansion + reply * ctx.asks : 0;
        let score = 0;
        let covered = 0;
        let matched = false;
        let spoken = 0;
        let inter = 0;
        const norm = BM25_K1 * (1 - BM25_B + (BM25_B * tok.length) / stats.avgLen);
        for (let q = 0; q < nq; q++) {
          if (isQuery[q] && ownInSet[q]) inter++;
          const own = ownCounts[q]!;
          // Document expansion: the previous turn's terms count at weight e (own terms at 1).
          const tf = ctx ? own + e * ctxCounts[q]! : own;
          if (tf === 0) continue;
          const i = stemIdf[q]!;
          covered += own > 0 ? i : e * i;
          if (own > 0 || (ctx !== null && ctx.asks > 0)) matched = true;
          if (spoken === 0 && isSpeaker(tok, stemIds[q]!)) spoken = 1;
          score += (i * tf * (BM25_K1 + 1)) / (tf + norm);
        }
        rows.set(fact.fact_id, {
          bm25: score,
          coverage: covered / idfTotal,
          matched,
          jaccard: jaccardFrom(querySet.length, inter, tok),
          speaker: spoken,
        });
      }
      this.clearQuerySlots(stemIds);
    }
    const bm25: number[] = [];
    const coverage: number[] = [];
    const jac: number[] = [];
    const spk: number[] = [];
    let maxBm25 = 1e-6;
    for (const fact of facts) {
      const r = rows.get(fact.fact_id)!;
      if (r.bm25 > maxBm25) maxBm25 = r.bm25;
      bm25.push(r.bm25);
      coverage.push(r.coverage);
      jac.push(r.jaccard);
      spk.push(r.speaker);
    }
    for (let i = 0; i < bm25.length; i++) bm25[i]! /= maxBm25;
    return { bm25, coverage, jaccard: jac, speaker: spk };
  }

  /** `querySlot` with each query stem's term id mapped to its index + 1 (0 = not a query stem). */
  private querySlots(stemIds: readonly number[]): Int32Array {
    let slots = this.querySlot;
    if (slots.length < this.termStems.length) {
      slots = new Int32Array(Math.max(this.termStems.length, 2 * slots.length));
      this.querySlot = slots;
    }
    for (let q = 0; q < stemIds.length; q++) if (slots[stemIds[q]!] === 0) slots[stemIds[q]!] = q + 1;
    return slots;
  }

  private clearQuerySlots(stemIds: readonly number[]): void {
    for (const id of stemIds) if (id < this.querySlot.length) this.querySlot[id] = 0;
  }

  /**
   * Token stats of each fact's previous turn (fact_id − 1 written within the hour), or null. Rows not
   * among the candidates are read in one query (any trust or category: context is context).
   */
  private previousTurns(facts: readonly FactRow[]): Array<TokenStats | null> {
    const byId = this.searchRows;
    for (const f of facts) byId.set(f.fact_id, f);
    const missing: number[] = [];
    for (const f of facts) {
      const prev = f.fact_id - 1;
      if (prev > 0 && !byId.has(prev)) {
        byId.set(prev, null);
        missing.push(prev);
      }
    }
    if (missing.length > 0) for (const row of this.rowCache.get(missing)) byId.set(row.fact_id, row);
    return facts.map((f) => {
      const prev = byId.get(f.fact_id - 1);
      if (!prev || !(Math.abs(this.createdTime(prev) - this.createdTime(f)) <= 3_600_000)) return null;
      return this.tokens(prev);
    });
  }

  /** Cosine to the query, rescaled so the dense pool's floor maps to 0 and the best candidate to 1. */
  private denseScores(
    facts: readonly FactRow[],
    dense: DenseIndex,
    query: Float32Array,
    floor: number,
  ): number[] {
    const raw = facts.map((f) => dense.score(query, f.fact_id));
    let max = floor;
    for (const x of raw) if (x > max) max = x;
    const span = max - floor;
    return raw.map((x) => (span > 1e-9 ? Math.max(0, (x - floor) / span) : 0));
  }

  private fuse(
    facts: readonly FactRow[],
    lexical: { bm25: number[]; coverage: number[]; jaccard: number[]; speaker: number[] },
    semantic: number[] | null,
    query: string,
  ): number[] {
    const w = this.weights;
    let queryVec: Float64Array | null = null;
    const temporal = w.temporal > 0 && isTemporalQuery(query);
    return facts.map((fact, i) => {
      let rel =
        w.bm25 * lexical.bm25[i]! +
        w.coverage * lexical.coverage[i]! +
        w.jaccard * lexical.jaccard[i]! +
        w.speaker * lexical.speaker[i]!;
      if (semantic) rel += w.embedding * semantic[i]!;
      // A "when" question is answered by a statement anchored in time — among facts that match it.
      if (temporal && rel > 0 && this.tokens(fact).timed) rel += w.temporal;
      if (w.hrr > 0) {
        const vec = this.store.decodeVector(fact.hrr_vector);
        if (vec) {
          queryVec ??= encodeText(query, this.store.hrrDim);
          rel += w.hrr * ((similarity(queryVec, vec) + 1) / 2);
        } else rel += w.hrr * 0.5;
      }
      return rel;
    });
  }

  /**
   * RM3-style expansion: stems weighted by their share of each feedback fact × that fact's relevance
   * × IDF, excluding query stems, stopwords and terms in most of the store. Weights are scaled to
   * a maximum of 1.
   */
  private expansionTerms(
    docs: readonly FactRow[],
    relevance: readonly number[],
    queryStems: ReadonlyMap<string, number>,
    n: number,
  ): Map<string, number> {
    const scores = new Map<string, number>();
    const top = Math.max(...relevance, 1e-9);
    docs.forEach((doc, k) => {
      const tok = this.tokens(doc);
      const docWeight = Math.max(0, relevance[k]!) / top;
      for (let j = 0; j < 2 * tok.distinct; j += 2) {
        const count = tok.data[j + 1]!;
        if (count <= 0) continue; // stopword stem
        const stem = this.termStems[tok.data[j]!]!;
        if (queryStems.has(stem) || stem.length < 3 || /^\d+$/.test(stem)) continue;
        const p = count / Math.max(1, tok.length);
        scores.set(stem, (scores.get(stem) ?? 0) + p * docWeight);
      }
    });
    const ranked: Array<[string, number]> = [];
    for (const [stem, s] of scores) {
      const df = this.docFreq(stem);
      if (df === 0 || df > Math.max(5, n * 0.1)) continue;
      ranked.push([stem, s * bm25Idf(n, df)]);
    }
    ranked.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    const chosen = ranked.slice(0, FEEDBACK_TERMS);
    const max = chosen[0]?.[1] ?? 1;
    return new Map(chosen.map(([stem, s]) => [stem, s / max]));
  }

  /**
   * Episodic contiguity: facts written next to each other (adjacent ids, created within an hour)
   * share context, so a fact that `matches` the question (one of its terms, or a similarity above
   * the threshold) takes a share of its best neighbour's score. The neighbourhood
   * only re-ranks matches; it never carries in a fact that matches nothing (in a live session every
   * fact of the hour is a neighbour).
   */
  private applyContext(
    facts: readonly FactRow[],
    base: Float64Array,
    weight: number,
    matches: readonly boolean[],
  ): Float64Array {
    const indexOf = new Map<number, number>();
    const times = new Float64Array(facts.length);
    for (let i = 0; i < facts.length; i++) {
      indexOf.set(facts[i]!.fact_id, i);
      times[i] = this.createdTime(facts[i]!);
    }
    const out = new Float64Array(facts.length);
    for (let i = 0; i < facts.length; i++) {
      const id = facts[i]!.fact_id;
      let best = 0;
      if (!matches[i]) {
        out[i] = base[i]!;
        continue;
      }
      for (let d = 1; d <= CONTEXT_WINDOW; d++) {
        for (const nid of [id - d, id + d]) {
          const j = indexOf.get(nid);
          // Written within an hour of each other (unparseable timestamps never match).
          if (j === undefined || !(Math.abs(times[j]! - times[i]!) <= 3_600_000)) continue;
          best = Math.max(best, base[j]! * CONTEXT_DECAY ** (d - 1));
        }
      }
      out[i] = base[i]! + weight * best;
    }
    return out;
  }

  /** created_at in ms (NaN when unparseable), cached per fact id and timestamp text. */
  private createdTime(fact: FactRow): number {
    const cached = this.createdAt.get(fact.fact_id);
    if (cached !== undefined && this.createdText.get(fact.fact_id) === fact.created_at) return cached;
    const t = Date.parse(`${String(fact.created_at).replace(' ', 'T')}Z`);
    if (this.createdAt.size >= CREATED_CACHE_MAX) {
      this.createdAt.clear();
      this.createdText.clear();
    }
    this.createdAt.set(fact.fact_id, t);
    this.createdText.set(fact.fact_id, fact.created_at);
    return t;
  }

  /** Rows for `ids` (trust ≥ minTrust, optional category), ascending fact_id; one prepared statement. */
  private loadFacts(
    ids: number[],
    category: string | undefined,
    minTrust: number,
    withVector: boolean,
  ): FactRow[] {
    if (ids.length === 0) return [];
    if (!withVector) {
      const out = this.rowCache
        .get(ids)
        .filter((r) => r.trust_score >= minTrust && (!category || r.category === category));
      return out.sort((a, b) => a.fact_id - b.fact_id);
    }
    const cols = withVector
      ? '*'
      : 'fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at';
    const key = `${cols}|${category ? 1 : 0}`;
    this.loadStmts ??= new Map();
    let stmt = this.loadStmts.get(key);
    if (!stmt) {
      stmt = this.store.db.prepare(
        `SELECT ${cols} FROM facts WHERE fact_id IN (SELECT value FROM json_each(?)) AND trust_score >= ?${category ? ' AND category = ?' : ''} ORDER BY fact_id`,
      );
      this.loadStmts.set(key, stmt);
    }
    const json = JSON.stringify(ids);
    return (category ? stmt.all(json, minTrust, category) : stmt.all(json, minTrust)) as FactRow[];
  }

  /**
   * Tokenize a fact as it is indexed (content and tags as stored), so searches never stem stored
   * facts. Only while the token cache has room: a bulk import past the cap is left to search time
   * rather than churning the cache. No-op in reference mode (it keeps no token statistics).
   */
  primeTokens(factId: number, content: string, tags: string): void {
    if (this.mode === 'reference' || this.tokenCache.size >= TOKEN_CACHE_MAX) return;
    this.boundVocabulary();
    this.computeTokens(factId, content, tags);
  }

  /**
   * One step of the background warm-up (`FactStore.warmUp`): the next `limit` facts after `afterId`
   * into the row cache, with their token statistics (computed exactly as a search would). Returns
   * the last id read, or null when every fact has been read or the caches are full.
   */
  warmStep(afterId: number, limit: number): number | null {
    if (this.mode === 'reference') return null;
    this.boundVocabulary();
    if (this.rowCache.validate()) this.invalidate();
    const rows = this.rowCache.readAfter(afterId, limit);
    if (!rows) return null;
    if (this.tokenCache.size >= TOKEN_CACHE_MAX && this.rowCache.full) return null;
    for (const row of rows) {
      if (this.tokenCache.size < TOKEN_CACHE_MAX) this.tokens(row);
      if (this.createdAt.size < CREATED_CACHE_MAX) this.createdTime(row);
    }
    return rows[rows.length - 1]!.fact_id;
  }

  /** Facts whose token statistics and scoring rows are held in memory (for tests and probes). */
  cacheSizes(): { tokens: number; rows: number } {
    return { tokens: this.tokenCache.size, rows: this.rowCacheInstance?.size ?? 0 };
  }

  private tokens(fact: FactRow): TokenStats {
    const hit = this.tokenCache.get(fact.fact_id);
    if (hit && hit.content === fact.content && hit.tags === (fact.tags ?? '')) return hit;
    return this.computeTokens(fact.fact_id, fact.content, fact.tags ?? '');
  }

  private computeTokens(factId: number, content: string, tags: string): TokenStats {
    const all = stemmedTokens(`${content} ${tags}`);
    const slot = new Map<number, number>(); // term id → index of its pair
    const pairs: number[] = [];
    let setSize = 0;
    for (const t of all) {
      const id = this.termId(t);
      const at = slot.get(id);
      if (at !== undefined) pairs[at + 1]! += pairs[at + 1]! > 0 ? 1 : -1;
      else {
        slot.set(id, pairs.length);
        const stop = STOP_STEMS.has(t);
        if (!stop) setSize++;
        pairs.push(id, stop ? -1 : 1);
      }
    }
    const speakerMatch = SPEAKER_PREFIX.exec(content);
    const speaker = speakerMatch
      ? [...new Set(stemmedTokens(speakerMatch[1]!))].map((t) => this.termId(t))
      : [];
    const data = new Int32Array(pairs.length + speaker.length);
    data.set(pairs);
    data.set(speaker, pairs.length);
    const stats: TokenStats = {
      content,
      tags,
      data,
      distinct: pairs.length / 2,
      setSize,
      length: all.length,
      timed: hasTimeExpression(content),
      asks: questionShare(content),
    };
    if (!this.tokenCache.has(factId) && this.tokenCache.size >= TOKEN_CACHE_MAX)
      this.tokenCache.delete(this.tokenCache.keys().next().value as number);
    this.tokenCache.set(factId, stats);
    return stats;
  }

  /**
   * Start the vocabulary afresh once it holds `VOCABULARY_MAX` stems (a store full of ids and
   * hashes): ids are only meaningful together with the token cache, so both go. Called between
   * searches, never while ids are in use.
   */
  private boundVocabulary(): void {
    if (this.termStems.length < VOCABULARY_MAX) return;
    this.termIds.clear();
    this.termStems.length = 0;
    this.tokenCache.clear();
    this.lexicalMemo = null;
  }

  /** The interned id of a stem. */
  private termId(stem: string): number {
    let id = this.termIds.get(stem);
    if (id === undefined) {
      id = this.termStems.length;
      this.termStems.push(stem);
      this.termIds.set(stem, id);
    }
    return id;
  }

  private corpusStats(): CorpusStats {
    if (this.stats) return this.stats;
    // SUM, not AVG: AVG over integers is (double)sum / count in SQLite, so the average below is the
    // same number, and inserts can update the integers (`factsInserted`).
    const row = this.store.db
      .prepare("SELECT COUNT(*) AS n, SUM(LENGTH(content) + LENGTH(COALESCE(tags, ''))) AS total FROM facts")
      .get() as { n: number; total: number | null };
    this.stats = corpusStatsOf(row.n, row.total ?? 0);
    return this.stats;
  }

  /** Facts linked to entities (or aliases) named in the query, by whole-word n-gram lookup. */
  private entityBridge(query: string, limit: number): number[] {
    const index = this.loadEntityIndex();
    if (index.size === 0) return [];
    const words = query.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’._-]*/gu) ?? [];
    const entityIds = new Set<number>();
    for (let i = 0; i < words.length; i++) {
      let phrase = '';
      for (let j = i; j < Math.min(words.length, i + 8); j++) {
        phrase = j === i ? words[j]! : `${phrase} ${words[j]}`;
        const clean = phrase.replace(/['’]s$/u, '');
        if (j === i && (QUERY_STOPWORDS.has(clean) || clean.length < 2)) continue;
        for (const id of index.get(clean) ?? []) entityIds.add(id);
      }
    }
    if (entityIds.size === 0) return [];
    this.bridgeStmt ??= this.store.db
      .prepare(
        'SELECT DISTINCT fact_id FROM fact_entities WHERE entity_id IN (SELECT value FROM json_each(?)) LIMIT ?',
      )
      .pluck();
    return this.bridgeStmt.all(JSON.stringify([...entityIds]), limit) as number[];
  }

  /** name/alias (trimmed, lowercased) → entity ids, kept in step with the connection's entity mirror. */
  private loadEntityIndex(): Map<string, number[]> {
    const cache = entityCacheFor(this.store.db);
    let state = this.entityIndex;
    if (!state || state.generation !== cache.generation) {
      state = { generation: cache.generation, rows: 0, index: new Map() };
      this.entityIndex = state;
    }
    const index = state.index;
    const add = (key: string, id: number) => {
      const k = key.trim().toLowerCase();
      if (!k) return;
      const list = index.get(k);
      if (list) list.push(id);
      else index.set(k, [id]);
    };
    for (; state.rows < cache.rows.length; state.rows++) {
      const row = cache.rows[state.rows]!;
      add(row.name, row.entity_id);
      for (const alias of (row.aliases ?? '').split(',')) add(alias, row.entity_id);
    }
    return index;
  }

  // --- Algebraic queries ---------------------------------------------------------------------------

  private vectorRows(category: string | undefined): FactRow[] {
    const params: unknown[] = [];
    let where = 'WHERE hrr_vector IS NOT NULL';
    if (category) {
      where += ' AND category = ?';
      params.push(category);
    }
    return this.store.db
      .prepare(
        `SELECT fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at, hrr_vector FROM facts ${where}`,
      )
      .all(...params) as FactRow[];
  }

  private finish(scored: ScoredFact[], limit: number): ScoredFact[] {
    scored.sort((a, b) => b.score - a.score);
    return this.counted(scored.slice(0, limit));
  }

  /**
   * Facts about one entity. Reference mode unbinds the role-bound key and compares the residual with
   * the content role, as the Python plugin does. In phase form a bundle of k items is their circular
   * mean, so that residual carries almost no signal; the default mode scores the presence of the
   * role-bound key in the fact vector directly (a bundle stays similar to each input).
   */
  probe(entity: string, options: { category?: string; limit?: number } = {}): ScoredFact[] {
    const limit = options.limit ?? 10;
    if (!this.store.hrrEnabled) return this.search(entity, { category: options.category, limit });
    const dim = this.store.hrrDim;
    const key = bind(encodeAtom(entity.toLowerCase(), dim), encodeAtom(ROLE_ENTITY, dim));
    if (options.category && this.mode === 'reference') {
      const bank = this.store.categoryBank(options.category);
      if (bank) {
        const extracted = unbind(bank, key);
        const scored: ScoredFact[] = [];
        for (const row of this.vectorRows(options.category)) {
          const vec = this.store.decodeVector(row.hrr_vector);
          if (!vec) continue;
          scored.push(
            stripVector({ ...row, score: ((similarity(extracted, vec) + 1) / 2) * row.trust_score }),
          );
        }
        return this.finish(scored, limit);
      }
    }
    const rows = this.vectorRows(options.category);
    if (rows.length === 0) return this.search(entity, { category: options.category, limit });
    const roleContent = encodeAtom(ROLE_CONTENT, dim);
    const scored: ScoredFact[] = [];
    for (const row of rows) {
      const vec = this.store.decodeVector(row.hrr_vector);
      if (!vec) continue;
      const sim =
        this.mode === 'reference'
          ? similarity(unbind(vec, key), bind(encodeText(row.content, dim), roleContent))
          : similarity(vec, key);
      scored.push(stripVector({ ...row, score: ((sim + 1) / 2) * row.trust_score }));
    }
    return this.finish(scored, limit);
  }

  /** Facts structurally connected to an entity in either role. */
  related(entity: string, options: { category?: string; limit?: number } = {}): ScoredFact[] {
    const limit = options.limit ?? 10;
    if (!this.store.hrrEnabled) return this.search(entity, { category: options.category, limit });
    const rows = this.vectorRows(options.category);
    if (rows.length === 0) return this.search(entity, { category: options.category, limit });
    const dim = this.store.hrrDim;
    const entityVec = encodeAtom(entity.toLowerCase(), dim);
    const roleEntity = encodeAtom(ROLE_ENTITY, dim);
    const roleContent = encodeAtom(ROLE_CONTENT, dim);
    const scored: ScoredFact[] = [];
    for (const row of rows) {
      const vec = this.store.decodeVector(row.hrr_vector);
      if (!vec) continue;
      let best: number;
      if (this.mode === 'reference') {
        const residual = unbind(vec, entityVec);
        best = Math.max(similarity(residual, roleEntity), similarity(residual, roleContent));
      } else {
        // Present as an entity (role-bound key in the bundle) or as a word of the content.
        best = Math.max(
          similarity(vec, bind(entityVec, roleEntity)),
          similarity(unbind(vec, roleContent), entityVec),
        );
      }
      scored.push(stripVector({ ...row, score: ((best + 1) / 2) * row.trust_score }));
    }
    return this.finish(scored, limit);
  }

  /** AND across entities: the minimum structural presence over all of them. */
  reason(entities: readonly string[], options: { category?: string; limit?: number } = {}): ScoredFact[] {
    const limit = options.limit ?? 10;
    if (!this.store.hrrEnabled || entities.length === 0)
      return this.search(entities.join(' '), { category: options.category, limit });
    const rows = this.vectorRows(options.category);
    if (rows.length === 0) return this.search(entities.join(' '), { category: options.category, limit });
    const dim = this.store.hrrDim;
    const roleEntity = encodeAtom(ROLE_ENTITY, dim);
    const roleContent = encodeAtom(ROLE_CONTENT, dim);
    const keys = entities.map((e) => bind(encodeAtom(e.toLowerCase(), dim), roleEntity));
    const scored: ScoredFact[] = [];
    for (const row of rows) {
      const vec = this.store.decodeVector(row.hrr_vector);
      if (!vec) continue;
      let min = Number.POSITIVE_INFINITY;
      for (const key of keys) {
        const sim =
          this.mode === 'reference' ? similarity(unbind(vec, key), roleContent) : similarity(vec, key);
        min = Math.min(min, sim);
      }
      scored.push(stripVector({ ...row, score: ((min + 1) / 2) * row.trust_score }));
    }
    return this.finish(scored, limit);
  }

  /** Pairs sharing entities (Jaccard ≥ 0.3) whose content vectors diverge. Bounded to 500 facts. */
  contradict(options: { category?: string; threshold?: number; limit?: number } = {}): ContradictionPair[] {
    if (!this.store.hrrEnabled) return [];
    const threshold = options.threshold ?? 0.3;
    const limit = options.limit ?? 10;
    let rows = this.vectorRows(options.category);
    if (rows.length < 2) return [];
    if (rows.length > MAX_CONTRADICT_FACTS) {
      rows = [...rows]
        .sort((a, b) =>
          String(b.updated_at || b.created_at).localeCompare(String(a.updated_at || a.created_at)),
        )
        .slice(0, MAX_CONTRADICT_FACTS);
    }
    const ents = rows.map((r) => new Set(this.store.entitiesOf(r.fact_id).map((n) => n.toLowerCase())));
    const vecs = rows.map((r) => this.store.decodeVector(r.hrr_vector));
    const texts =
      this.mode === 'reference' ? null : rows.map((r) => encodeText(r.content, this.store.hrrDim));
    const out: ContradictionPair[] = [];
    for (let i = 0; i < rows.length; i++) {
      for (let j = i + 1; j < rows.length; j++) {
        const a = ents[i]!;
        const b = ents[j]!;
        if (a.size === 0 || b.size === 0) continue;
        const shared = [...a].filter((e) => b.has(e));
        const overlap = shared.length / (a.size + b.size - shared.length);
        if (overlap < 0.3) continue;
        const va = vecs[i];
        const vb = vecs[j];
        if (!va || !vb) continue;
        // Default mode compares the claims themselves (content vectors), not the whole fact vectors,
        // whose shared entity component would mask divergent content.
        const sim = texts ? similarity(texts[i]!, texts[j]!) : similarity(va, vb);
        const score = overlap * (1 - (sim + 1) / 2);
        if (score >= threshold) {
          out.push({
            fact_a: pairFact(rows[i]!),
            fact_b: pairFact(rows[j]!),
            entity_overlap: round3(overlap),
            content_similarity: round3(sim),
            contradiction_score: round3(score),
            shared_entities: shared.sort(),
          });
        }
      }
    }
    out.sort((x, y) => y.contradiction_score - x.contradiction_score);
    return out.slice(0, limit);
  }
}

function pairFact(row: FactRow): ContradictionPair['fact_a'] {
  return {
    fact_id: row.fact_id,
    content: row.content,
    category: row.category,
    tags: row.tags,
    trust_score: row.trust_score,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function stripVector<T extends { hrr_vector?: unknown }>(row: T): Omit<T, 'hrr_vector'> {
  const { hrr_vector: _drop, ...rest } = row;
  return rest;
}

function bm25Idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** 0.5^(age_days / half_life); 1.0 for future, missing or unparseable timestamps. */
export function temporalDecay(
  timestamp: string | null | undefined,
  halfLifeDays: number,
  now: number = Date.now(),
): number {
  if (!halfLifeDays || !timestamp) return 1;
  let iso = String(timestamp).trim().replace(' ', 'T');
  if (!/(?:Z|[+-]\d{2}:?\d{2})$/i.test(iso)) iso += 'Z';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return 1;
  const ageDays = (now - t) / 86_400_000;
  if (ageDays < 0) return 1;
  return 0.5 ** (ageDays / halfLifeDays);
}
