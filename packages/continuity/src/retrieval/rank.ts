/**
 * Candidate retrieval and scoring: FTS5 (BM25 over title, summary, details, tags, entities and
 * sources), IDF-weighted anchor coverage, optional vector candidates, metadata (named entities,
 * tags, scope), record quality, then association-graph expansion that lets a record borrow part
 * of a strongly matching neighbour's score (decision 0905). Gates come after, in `select.ts`.
 */
import type { Signals } from '../events';
import { type ContextRecord, isLive, type Scopes, TRUST_WEIGHT } from '../records';
import type { ContinuityStore, Edge, RankedRecord } from '../store';
import { type AnalyzedQuery, entityWords, ftsOr, ftsTerm, wordSet } from './query';
import { POSITIONAL_RELATIONS } from './relations';
import { asksWhen, saysWhen } from './time';
import type { VectorIndex } from './vectors';

export interface RetrievalWeights {
  bm25: number;
  /**
   * Share of the question it answers a passage inherits: a record that follows a question in its
   * source document (the next turn of a transcript, the answer under an FAQ question) is about
   * what was asked, even when it does not repeat the words.
   */
  reply: number;
  coverage: number;
  vector: number;
  metadata: number;
  /**
   * Added to a record that says when (a date, weekday, month, "last week") and shares a word with a
   * message that asks when: among the records about the thing asked, the one that dates it answers.
   */
  temporal: number;
  /** Share of a neighbour's score a record borrows through an edge. */
  graph: number;
  /** Per-hop decay of borrowed activation. */
  graphDecay: number;
}

export const DEFAULT_WEIGHTS: Readonly<RetrievalWeights> = {
  bm25: 0.45,
  reply: 1,
  coverage: 0.35,
  vector: 0.25,
  metadata: 0.3,
  temporal: 0.2,
  graph: 0.5,
  graphDecay: 0.7,
};

/**
 * Share of the activation a record borrows along a path with a positional edge (the next passage of
 * a document or transcript) instead of an explicit association (`related_to`, `supersedes`):
 * adjacency is weaker evidence. At the full share every neighbour of a strong hit reached the cap
 * just below it, and together they pushed the other direct hits down the list (decision 0905).
 */
const POSITIONAL_SHARE = 0.75;

/** How far below its source a record that borrowed activation ranks. */
const RANK_EPSILON = 1e-6;

/** Smallest corpus size the coverage IDF assumes (see `idf`). */
const MIN_IDF_CORPUS = 1_000;

/** FTS5 column weights: title, summary, details, tags, entities, sources. */
const COLUMN_WEIGHTS = [1.0, 1.0, 0.5, 1.0, 1.0, 0.3] as const;
const BM25 = `bm25(records_fts, ${COLUMN_WEIGHTS.join(', ')})`;
/** FTS5 column filter for what a record itself says (every column but `sources`). */
const OWN_COLUMNS = '{title summary details tags entities}';
/**
 * Share of its coverage weight a query word earns when a record has it only in `sources` (the path
 * and heading path it came from): the same discount as that column's BM25 weight. A heading is
 * context that completes a match the record makes with its own words; alone, it would make every
 * paragraph under "# Deploy" an answer to "how do we deploy?" (decision 0904).
 */
const CONTEXT_SHARE = COLUMN_WEIGHTS[5];

/** FTS5's bm25() constants (fixed in SQLite). */
const FTS5_K1 = 1.2;
const FTS5_B = 0.75;
/**
 * The length normalisation we want instead. Records are a sentence or a short passage, and a longer
 * one is usually more detailed, not about more topics: FTS5's 0.75 ranked a two-line answer below a
 * one-line remark with the same words. Holographic settled on the same value (decision 0401).
 */
const BM25_B = 0.3;

export type { RankedRecord } from '../store';

export interface Candidate {
  record: RankedRecord;
  /** Final score: own relevance × quality, plus what was borrowed through the graph. */
  score: number;
  /** Own relevance × quality. */
  direct: number;
  via: 'direct' | 'associated';
  /** The record whose activation this one borrowed (graph expansion). */
  parent?: string;
  /** The relation of the last edge on that path. */
  relation?: string;
  signals: Signals;
  /** Query anchors found in the record. */
  matched: string[];
  /** Query anchors it inherits from the question it answers (not found in the record itself). */
  inherited: string[];
}

export interface RankOptions {
  /** Pool size for each candidate source (default max(10 × limit, 100)). */
  pool?: number;
  limit: number;
  /** Include archived, retracted, expired and superseded records (tool searches only). */
  includeInactive?: boolean;
  kinds?: readonly string[];
  /** The conversation's scopes, for the scope signal. */
  scopes?: Scopes;
  /** Graph expansion depth in hops (0 = off). */
  graphDepth?: number;
  weights?: Partial<RetrievalWeights>;
  signal?: AbortSignal;
}

/** The question a record answers: its row and the share of it that asks. */
interface Question {
  seq: number;
  share: number;
}

interface TermStats {
  total: number;
  df: Map<string, number>;
}

/** What scoring one query needs, shared by the direct pass and the graph pass. */
interface RankPass {
  query: AnalyzedQuery;
  terms: readonly string[];
  stats: TermStats;
  /** BM25 of the pool (records outside it score 0). */
  bm25: Map<number, number>;
  cosine: Map<number, number>;
  denseFloor: number;
  weights: RetrievalWeights;
  options: RankOptions;
  keep: (r: RankedRecord) => boolean;
}

/** What the index says about terms and rows, valid until the next write (`store.version()`). */
interface IndexCache {
  version: string;
  /** Record count of the index. */
  total: number;
  /** Rowids containing each (rare) term, ascending: FTS5's own MATCH result. */
  postings: Map<string, number[]>;
  postingsSize: number;
  /** Row length over the index mean, by rowid. */
  lengths: Map<number, number>;
  /** Records containing every one of a sorted, joined set of terms. */
  shared: Map<string, number>;
  /** Records whose status is not `active` (what the BM25 pool may have to skip). */
  inactive?: number;
  /**
   * The first letters of the words in a row's `sources` column (paths, headings), by rowid; null
   * when it has none. A query word can only match there if one of them starts it.
   */
  hasContext: Map<number, ReadonlySet<string> | null>;
  /** Rowids containing a (rare) term in their own columns, not only in `sources`. */
  ownPostings: Map<string, Set<number>>;
}

/** The query words each record contains, and those it has only in its source context. */
interface LexicalMatch {
  matched: Map<number, string[]>;
  /** Per rowid, the matched words found only in `sources` (path, heading path). */
  context: Map<number, Set<string>>;
}

/** Rowids of posting lists kept in memory before the cache starts over. */
const MAX_CACHED_POSTINGS = 200_000;
/** Word sets whose `sharedBy` count is kept before that cache starts over. */
const MAX_CACHED_SHARED = 10_000;

export class Ranker {
  private stats: { version: string; value: TermStats } | null = null;
  private entityCache: { version: string; value: Set<string> } | null = null;
  private indexCache: IndexCache | null = null;
  /** The question each record answers (null: none), by record id, for one store version. */
  private questionCache: { version: string; value: Map<string, Question | null> } | null = null;
  /** Records whose answered question is kept before the cache starts afresh. */
  private static readonly MAX_CACHED = 100_000;

  constructor(
    private readonly store: ContinuityStore,
    private readonly vectors: VectorIndex | null,
  ) {}

  /** Lower-cased entity words of active records (a sentence-initial word is a name when known). */
  knownEntities(): Set<string> {
    const version = this.store.version();
    if (this.entityCache?.version === version) return this.entityCache.value;
    const rows = this.store
      .stmt("SELECT DISTINCT entities FROM records WHERE status = 'active'")
      .all() as Array<{
      entities: string;
    }>;
    const out = new Set<string>();
    for (const r of rows) {
      try {
        for (const e of JSON.parse(r.entities) as string[]) for (const w of wordSet(e)) out.add(w);
      } catch {
        /* a malformed row written by hand: skip */
      }
    }
    this.entityCache = { version, value: out };
    return out;
  }

  /** The per-version index cache (emptied by any write, here or in another process). */
  private index(): IndexCache {
    const version = this.store.version();
    if (this.indexCache?.version === version) return this.indexCache;
    const total = (this.store.stmt('SELECT count(*) AS n FROM records_fts').get() as { n: number }).n;
    const fresh: IndexCache = {
      version,
      total,
      postings: new Map(),
      postingsSize: 0,
      lengths: new Map(),
      shared: new Map(),
      hasContext: new Map(),
      ownPostings: new Map(),
    };
    // What a transaction reads after its own writes may still roll back: used, never kept.
    if (!this.store.db.inTransaction) this.indexCache = fresh;
    return fresh;
  }

  /**
   * The BM25 pool: FTS5's best `pool` rows among the records searched (active ones unless
   * `includeInactive`). Joining `records` row by row for the status cost more than ranking (at
   * 100,000 records, p50 23 ms against 8 ms for the FTS query alone), so the FTS query runs alone,
   * for `pool` + the number of records it may have to skip, and only the statuses of the rows it
   * returns are read. If that still leaves the pool short while FTS5 had more rows, the join answers:
   * the result is the join's in every case.
   */
  private bm25Pool(
    match: string,
    pool: number,
    includeInactive: boolean,
  ): Array<{ seq: number; rank: number }> {
    const cache = this.index();
    if (!includeInactive && cache.inactive === undefined)
      cache.inactive = (
        this.store.stmt("SELECT count(*) AS n FROM records WHERE status <> 'active'").get() as { n: number }
      ).n;
    const skip = includeInactive ? 0 : (cache.inactive ?? 0);
    const statusFilter = includeInactive ? '' : "AND r.status = 'active'";
    const joined = () =>
      this.store
        .stmt(
          `SELECT records_fts.rowid AS seq, ${BM25} AS rank FROM records_fts JOIN records r ON r.seq = records_fts.rowid
           WHERE records_fts MATCH ? ${statusFilter} ORDER BY rank LIMIT ?`,
        )
        .all(match, pool) as Array<{ seq: number; rank: number }>;
    if (skip > Ranker.MAX_SKIPPED) return joined();
    const rows = this.store
      .stmt(
        `SELECT rowid AS seq, ${BM25} AS rank FROM records_fts WHERE records_fts MATCH ? ORDER BY rank LIMIT ?`,
      )
      .all(match, pool + skip) as Array<{ seq: number; rank: number }>;
    const searched = new Set(
      (
        this.store
          .stmt(`SELECT seq FROM records r WHERE seq IN (SELECT value FROM json_each(?)) ${statusFilter}`)
          .all(JSON.stringify(rows.map((r) => r.seq))) as Array<{ seq: number }>
      ).map((r) => r.seq),
    );
    const kept = rows.filter((r) => searched.has(r.seq));
    if (kept.length >= pool) return kept.slice(0, pool);
    return rows.length < pool + skip ? kept : joined();
  }

  /** Records not searched beyond which the pool query joins `records` instead (see `bm25Pool`). */
  private static readonly MAX_SKIPPED = 1_000;

  /** FTS5's rowids for one term, ascending (cached per version). */
  private postings(term: string): readonly number[] {
    const cache = this.index();
    let list = cache.postings.get(term);
    if (!list) {
      list = (
        this.store
          .stmt('SELECT rowid AS seq FROM records_fts WHERE records_fts MATCH ?')
          .all(ftsTerm(term)) as Array<{ seq: number }>
      ).map((r) => r.seq);
      if (cache.postingsSize + list.length > MAX_CACHED_POSTINGS) {
        cache.postings.clear();
        cache.ownPostings.clear();
        cache.postingsSize = 0;
      }
      cache.postings.set(term, list);
      cache.postingsSize += list.length;
    }
    return list;
  }

  /** Initials of the `sources` words of each of `seqs` that has any (cached per version). */
  private withContext(seqs: readonly number[]): Map<number, ReadonlySet<string>> {
    const cache = this.index();
    const missing = seqs.filter((s) => !cache.hasContext.has(s));
    if (missing.length > 0) {
      if (cache.hasContext.size + missing.length > MAX_CACHED_POSTINGS) cache.hasContext.clear();
      for (const s of missing) cache.hasContext.set(s, null);
      const rows = this.store
        .stmt(
          "SELECT rowid AS seq, sources FROM records_fts WHERE rowid IN (SELECT value FROM json_each(?)) AND sources <> ''",
        )
        .all(JSON.stringify(missing)) as Array<{ seq: number; sources: string }>;
      for (const r of rows) cache.hasContext.set(r.seq, new Set(folded(r.sources).map((w) => w[0]!)));
    }
    const out = new Map<number, ReadonlySet<string>>();
    for (const s of seqs) {
      const initials = cache.hasContext.get(s);
      if (initials) out.set(s, initials);
    }
    return out;
  }

  /** Rowids with a (rare) term in their own columns (cached per version, counted with postings). */
  private ownPostings(term: string): ReadonlySet<number> {
    const cache = this.index();
    let set = cache.ownPostings.get(term);
    if (!set) {
      set = new Set(
        (
          this.store
            .stmt('SELECT rowid AS seq FROM records_fts WHERE records_fts MATCH ?')
            .all(`${OWN_COLUMNS} : ${ftsTerm(term)}`) as Array<{ seq: number }>
        ).map((r) => r.seq),
      );
      if (cache.postingsSize + set.size > MAX_CACHED_POSTINGS) {
        cache.postings.clear();
        cache.ownPostings.clear();
        cache.postingsSize = 0;
      }
      cache.ownPostings.set(term, set);
      cache.postingsSize += set.size;
    }
    return set;
  }

  private termStats(terms: readonly string[]): TermStats {
    const version = this.store.version();
    if (this.stats?.version !== version) {
      this.stats = { version, value: { total: this.index().total, df: new Map() } };
    }
    const stats = this.stats.value;
    const count = this.store.stmt('SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH ?');
    for (const t of terms) {
      if (!stats.df.has(t)) stats.df.set(t, (count.get(ftsTerm(t)) as { n: number }).n);
    }
    return stats;
  }

  /**
   * Each row's length relative to the index's mean, in tokens over all columns — the numbers FTS5's
   * own bm25() uses: per-row column sizes in `records_fts_docsize`, the row count and per-column
   * totals in the averages record (`records_fts_data`, id 1), all SQLite varints.
   */
  relativeLengths(seqs: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    if (seqs.length === 0) return out;
    const cache = this.index();
    const missing: number[] = [];
    for (const seq of seqs) {
      const known = cache.lengths.get(seq);
      if (known === undefined) missing.push(seq);
      else out.set(seq, known);
    }
    if (missing.length === 0) return out;
    for (const [seq, length] of this.readLengths(missing)) {
      cache.lengths.set(seq, length);
      out.set(seq, length);
    }
    return out;
  }

  private readLengths(seqs: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    const averages = this.store.stmt('SELECT block FROM records_fts_data WHERE id = 1').get() as
      | { block: Uint8Array }
      | undefined;
    const [rows = 0, ...columns] = averages ? varints(averages.block) : [];
    const mean = columns.reduce((a, b) => a + b, 0) / rows;
    if (!(rows > 0 && mean > 0)) return out;
    const sizes = this.store
      .stmt('SELECT id, sz FROM records_fts_docsize WHERE id IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(seqs)) as Array<{ id: number; sz: Uint8Array }>;
    for (const r of sizes) out.set(r.id, varints(r.sz).reduce((a, b) => a + b, 0) / mean);
    return out;
  }

  /** How many records (of every status, as the IDF counts them) contain all of `terms`. */
  sharedBy(terms: readonly string[]): { records: number; corpus: number } {
    const cache = this.index();
    const total = cache.total;
    if (terms.length === 0) return { records: total, corpus: total };
    const key = [...terms].sort().join('\u0000');
    let n = cache.shared.get(key);
    if (n === undefined) {
      if (cache.shared.size >= MAX_CACHED_SHARED) cache.shared.clear();
      n = (
        this.store
          .stmt('SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH ?')
          .get(terms.map(ftsTerm).join(' AND ')) as { n: number }
      ).n;
      cache.shared.set(key, n);
    }
    return { records: n, corpus: total };
  }

  /**
   * BM25-style IDF over at least `MIN_IDF_CORPUS` documents: in a store of a handful of records
   * the plain formula makes every word the store lacks outweigh all the words it has, so one
   * generic verb in a question would sink a record that answers it.
   */
  private idf(stats: TermStats, term: string): number {
    const df = stats.df.get(term) ?? 0;
    const n = Math.max(stats.total, MIN_IDF_CORPUS);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Posting lists longer than this are not read whole; candidates are probed one by one instead. */
  private static readonly MAX_POSTINGS = 2_000;

  /**
   * The query anchors each record contains. FTS5 evaluates `rowid IN (...)` by re-running the
   * MATCH per value, so membership comes from posting lists (rare terms) or `rowid = ?` probes
   * (common ones). Records outside the BM25 pool (vector and graph candidates) keep BM25 0: any
   * lexical score they have is below the pool's floor, and scoring them one by one costs ~0.3 ms each.
   */
  private lexical(terms: readonly string[], seqs: readonly number[], stats: TermStats): LexicalMatch {
    const matched = new Map<number, string[]>();
    const context = new Map<number, Set<string>>();
    const match = ftsOr(terms);
    if (!match || seqs.length === 0) return { matched, context };
    const probe = this.store.stmt('SELECT 1 FROM records_fts WHERE records_fts MATCH ? AND rowid = ?');
    const wanted = new Set(seqs);
    // Only rows with a path or heading can match a word through them alone (most rows have none).
    const contextual = this.withContext(seqs);
    for (const t of terms) {
      const df = stats.df.get(t) ?? 0;
      if (df === 0) continue;
      const hits: number[] = [];
      if (df <= Ranker.MAX_POSTINGS) {
        for (const seq of this.postings(t)) if (wanted.has(seq)) hits.push(seq);
      } else {
        const q = ftsTerm(t);
        for (const seq of seqs) if (probe.get(q, seq)) hits.push(seq);
      }
      for (const seq of hits) {
        const list = matched.get(seq);
        if (list) list.push(t);
        else matched.set(seq, [t]);
      }
      // Porter stemming changes only the end of a word: a word can match in a path or heading only
      // if one of its words starts with the same letter. Most cannot, and need no probe.
      const initial = folded(t)[0]?.[0];
      const placed = hits.filter((seq) => initial !== undefined && contextual.get(seq)?.has(initial));
      if (placed.length === 0) continue;
      const own =
        df <= Ranker.MAX_POSTINGS
          ? this.ownPostings(t)
          : new Set(placed.filter((seq) => probe.get(`${OWN_COLUMNS} : ${ftsTerm(t)}`, seq)));
      for (const seq of placed) {
        if (own.has(seq)) continue;
        const set = context.get(seq);
        if (set) set.add(t);
        else context.set(seq, new Set([t]));
      }
    }
    return { matched, context };
  }

  async rank(query: AnalyzedQuery, options: RankOptions): Promise<Candidate[]> {
    const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
    const pool = options.pool ?? Math.max(2 * options.limit, 100);
    // Tool searches with only meta words ("memory") still search for them; prefetch gates them later.
    const terms = query.anchors.length > 0 ? query.anchors : query.meta;
    const stats = this.termStats(terms);
    const now = this.store.now();

    const seqs = new Set<number>();
    const bm25 = new Map<number, number>();
    const match = ftsOr(terms);
    if (match) {
      const rows = this.bm25Pool(match, pool, options.includeInactive === true);
      const lengths = this.relativeLengths(rows.map((r) => r.seq));
      for (const r of rows) {
        seqs.add(r.seq);
        bm25.set(r.seq, -r.rank * lengthRenormalisation(lengths.get(r.seq) ?? 1));
      }
    }
    let denseFloor = 0;
    let cosine = new Map<number, number>();
    if (this.vectors && query.raw.trim()) {
      const hits = await this.vectors.search(query.raw, pool, options.signal);
      for (const h of hits) seqs.add(h.seq);
      // The pool's floor is the zero point of the normalised vector signal (0 when it holds everything).
      denseFloor = hits.length >= pool ? hits[hits.length - 1]!.cosine : 0;
      cosine = new Map(hits.map((h) => [h.seq, h.cosine]));
    }

    const keep = (r: RankedRecord) =>
      (options.includeInactive || isLive(r, now)) &&
      (!options.kinds?.length || options.kinds.includes(r.kind));
    const pass: RankPass = { query, terms, stats, bm25, cosine, denseFloor, weights, options, keep };
    const byId = new Map<string, Candidate>();
    const direct = this.score(pass, this.store.readBySeq([...seqs]).filter(keep));
    for (const c of direct) byId.set(c.record.id, c);

    const depth = options.graphDepth ?? 2;
    if (depth > 0 && weights.graph > 0 && direct.length > 0) this.expand(pass, byId, depth);
    // Records lifted to the same ceiling by borrowing (just below their source) keep the order of
    // their own evidence.
    return [...byId.values()].sort(
      (a, b) => b.score - a.score || b.direct - a.direct || a.record.seq - b.record.seq,
    );
  }

  private score(pass: RankPass, records: readonly RankedRecord[]): Candidate[] {
    const { query, terms, stats, bm25, cosine, denseFloor, weights, options } = pass;
    if (records.length === 0) return [];
    const seqs = records.map((r) => r.seq);
    // The questions these records answer are matched in the same pass as the records.
    const questions = weights.reply > 0 ? this.questionsAnswered(records) : new Map<number, Question>();
    const { matched, context } = this.lexical(
      terms,
      [...seqs, ...[...questions.values()].map((q) => q.seq)],
      stats,
    );
    if (this.vectors) {
      const missing = seqs.filter((s) => !cosine.has(s));
      for (const [s, c] of this.vectors.cosines(query.raw, missing)) cosine.set(s, c);
    }
    const bestBm25 = Math.max(0, ...bm25.values());
    const bestCos = Math.max(denseFloor, ...records.map((r) => cosine.get(r.seq) ?? -1));
    // Coverage is over the weighty anchors (light words may match, but are not required).
    const covered = new Set(query.anchors.length > 0 ? query.coverageAnchors : terms);
    // A name the message mentions weighs double: it says who or what the message is about —
    // matched, strong evidence; unknown to a record, most of the message is unanswered by it.
    const names = new Set(query.entities);
    const weight = (t: string) => (covered.has(t) ? this.idf(stats, t) * (names.has(t) ? 2 : 1) : 0);
    const idfTotal = terms.reduce((sum, t) => sum + weight(t), 0);
    /** Weight of the words a row matched, those found only in its source context discounted. */
    const earned = (seq: number, ts: readonly string[]) => {
      const ctx = context.get(seq);
      return ts.reduce((s, t) => s + weight(t) * (ctx?.has(t) ? CONTEXT_SHARE : 1), 0);
    };
    const anchorSet = new Set(query.anchors);
    const when = weights.temporal > 0 && asksWhen(query.raw);
    return records.map((record) => {
      const m = matched.get(record.seq) ?? [];
      let coverage = idfTotal > 0 ? earned(record.seq, m) / idfTotal : 0;
      let bmRaw = bm25.get(record.seq) ?? 0;
      // The words of the question this record answers count at the share its passage asks.
      const asked = questions.get(record.seq);
      let inherited: string[] = [];
      let reply = 0;
      if (asked) {
        const share = weights.reply * asked.share;
        inherited = (matched.get(asked.seq) ?? []).filter((t) => !m.includes(t));
        reply = idfTotal > 0 ? (share * earned(asked.seq, inherited)) / idfTotal : 0;
        coverage = Math.min(1, coverage + reply);
        bmRaw += share * (bm25.get(asked.seq) ?? 0);
      }
      const cos = cosine.get(record.seq) ?? 0;
      const vector =
        bestCos > denseFloor ? Math.max(0, Math.min(1, (cos - denseFloor) / (bestCos - denseFloor))) : 0;
      const metadata = metadataSignal(record, query, anchorSet, options.scopes);
      const bm = bestBm25 > 0 ? bmRaw / bestBm25 : 0;
      // Only among records about the thing asked: a date alone answers nothing.
      const temporal = when && m.length > 0 && datesItself(record) ? weights.temporal : 0;
      const relevance =
        weights.bm25 * bm +
        weights.coverage * coverage +
        (this.vectors ? weights.vector * vector : 0) +
        weights.metadata * metadata +
        temporal;
      const quality = qualityFactor(record);
      const signals: Signals = {
        bm25: bm,
        coverage,
        vector,
        cosine: cos,
        metadata,
        graph: 0,
        quality,
        reply,
        temporal,
      };
      const score = relevance * quality;
      return { record, score, direct: score, via: 'direct', signals, matched: m, inherited };
    });
  }

  /**
   * For each record that follows a question in its source document (a positional edge from a
   * passage that asks): that question's row and the share it asks (`askedShare`: 1 when the passage
   * ends by asking) × the edge's weight, which decays across skipped passages. Cached per
   * record until the store changes: each lookup joins edges to records by their text ids.
   */
  private questionsAnswered(records: readonly RankedRecord[]): Map<number, Question> {
    const version = this.store.version();
    if (this.questionCache?.version !== version || this.questionCache.value.size > Ranker.MAX_CACHED)
      this.questionCache = { version, value: new Map() };
    const cache = this.questionCache.value;
    const missing = records.filter((r) => !cache.has(r.id)).map((r) => r.id);
    if (missing.length > 0) {
      const rows = this.store
        .stmt(
          `SELECT e.dst AS id, e.weight AS weight, r.seq AS seq, r.summary AS summary, r.details AS details
             FROM edges e JOIN records r ON r.id = e.src
            WHERE e.dst IN (SELECT value FROM json_each(?)) AND e.relation IN (SELECT value FROM json_each(?))`,
        )
        .all(JSON.stringify(missing), JSON.stringify([...POSITIONAL_RELATIONS])) as Array<{
        id: string;
        weight: number;
        seq: number;
        summary: string;
        details: string | null;
      }>;
      for (const id of missing) cache.set(id, null);
      for (const row of rows) {
        const share = askedShare(`${row.summary} ${row.details ?? ''}`) * row.weight;
        const best = cache.get(row.id);
        if (share > 0 && (!best || share > best.share)) cache.set(row.id, { seq: row.seq, share });
      }
    }
    const out = new Map<number, Question>();
    for (const r of records) {
      const q = cache.get(r.id);
      if (q) out.set(r.seq, q);
    }
    return out;
  }

  /** Breadth-first over association edges from the strongest direct hits. */
  private expand(pass: RankPass, byId: Map<string, Candidate>, depth: number): void {
    const { weights } = pass;
    const seeds = [...byId.values()].sort((a, b) => b.direct - a.direct).slice(0, 20);
    /** Best activation reaching each record, and from which seed. */
    const activation = new Map<string, { value: number; parent: string; relation: string }>();
    let frontier = new Map(
      seeds.map((c) => [c.record.id, { value: c.direct, parent: c.record.id, relation: '' }]),
    );
    for (let hop = 1; hop <= depth && frontier.size > 0; hop++) {
      const edges: Edge[] = this.store.readEdgesOf([...frontier.keys()]);
      const next = new Map<string, { value: number; parent: string; relation: string }>();
      for (const e of edges) {
        for (const [from, to] of [
          [e.src, e.dst],
          [e.dst, e.src],
        ] as const) {
          const source = frontier.get(from);
          if (!source) continue;
          // Each hop after the first decays the activation once more.
          const value = source.value * e.weight * (hop === 1 ? 1 : weights.graphDecay);
          const best = activation.get(to);
          if (
            !best ||
            value > best.value ||
            (value === best.value && this.before(byId, source.parent, best.parent))
          ) {
            // A path is only as meaningful as its weakest link: one positional edge makes it positional.
            const relation = POSITIONAL_RELATIONS.has(source.relation) ? source.relation : e.relation;
            activation.set(to, { value, parent: source.parent, relation });
            next.set(to, { value, parent: source.parent, relation });
          }
        }
      }
      frontier = next;
    }
    const fresh = [...activation.keys()].filter((id) => !byId.has(id));
    if (fresh.length > 0) {
      for (const c of this.score(pass, this.store.readByIds(fresh).filter(pass.keep)))
        byId.set(c.record.id, c);
    }
    for (const [id, a] of activation) {
      const c = byId.get(id);
      if (!c || a.parent === id) continue;
      const borrowed =
        weights.graph * a.value * (POSITIONAL_RELATIONS.has(a.relation) ? POSITIONAL_SHARE : 1);
      c.signals.graph = borrowed;
      // Borrowing lifts a record toward its source, never past it: a neighbour is context for the
      // record that matched, not a better answer than it (decision 0905).
      const source = byId.get(a.parent)?.direct ?? Number.POSITIVE_INFINITY;
      c.score = Math.max(c.direct, Math.min(c.direct + borrowed, source - RANK_EPSILON));
      if (borrowed > c.direct) {
        c.via = 'associated';
        c.parent = a.parent;
        c.relation = a.relation;
      }
    }
  }

  /**
   * Between two seeds whose paths reach a record with the same activation: the stronger seed, then
   * the older one. Edges come back in record-id order, and ids are random, so without this the
   * parent (and whether the record may follow it into the prompt) changed from store to store.
   */
  private before(byId: Map<string, Candidate>, a: string, b: string): boolean {
    const x = byId.get(a);
    const y = byId.get(b);
    if (!x || !y) return false;
    return x.direct > y.direct || (x.direct === y.direct && x.record.seq < y.record.seq);
  }
}

/**
 * How much of a passage the next one answers (0–1): all of it when the passage ends by asking
 * ("Wow, John! What inspired you to join it?" — the reply answers the question, not the greeting);
 * otherwise the share of its sentences that ask.
 */
export function askedShare(text: string): number {
  return /\?[\s"'”’)\]]*$/u.test(text.trim()) ? 1 : questionShare(text);
}

/**
 * The words of a text as FTS5's `unicode61 remove_diacritics 2` tokenizer sees them, near enough for
 * their first letters: lower-cased, accents removed, split at anything but letters and digits.
 */
function folded(text: string): string[] {
  return (
    text
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/** Share of a text's sentences that are questions (0–1). */
export function questionShare(text: string): number {
  const sentences = text
    .trim()
    .split(/(?<=[.!?])\s+/)
    .filter((x) => /[\p{L}\p{N}]/u.test(x));
  if (sentences.length === 0) return 0;
  return sentences.filter((x) => /\?[\s"'”’)\]]*$/u.test(x)).length / sentences.length;
}

/**
 * The entity and tag words of a record, computed once per record object: retrieval's records come
 * frozen from the store's read cache and are shared until the next write (`readBySeq`).
 */
const wordsOf = new WeakMap<object, { entities: Set<string>; tags: Set<string> }>();
function recordWords(record: Pick<ContextRecord, 'entities' | 'tags'>): {
  entities: Set<string>;
  tags: Set<string>;
} {
  let words = Object.isFrozen(record) ? wordsOf.get(record) : undefined;
  if (!words) {
    const tags = new Set<string>();
    for (const t of record.tags) for (const w of wordSet(t)) tags.add(w);
    words = { entities: entityWords(record), tags };
    if (Object.isFrozen(record)) wordsOf.set(record, words);
  }
  return words;
}

/** Whether a record's text says when (computed once per frozen record, like `recordWords`). */
const datedRecords = new WeakMap<object, boolean>();
function datesItself(record: Pick<ContextRecord, 'title' | 'summary' | 'details'>): boolean {
  let dated = Object.isFrozen(record) ? datedRecords.get(record) : undefined;
  if (dated === undefined) {
    dated = saysWhen(`${record.title}\n${record.summary}\n${record.details ?? ''}`);
    if (Object.isFrozen(record)) datedRecords.set(record, dated);
  }
  return dated;
}

/** Named entities, tags and scope (0–1). */
export function metadataSignal(
  record: ContextRecord,
  query: AnalyzedQuery,
  anchors: ReadonlySet<string>,
  scopes: Scopes | undefined,
): number {
  let entity = 0;
  if (query.entities.length > 0) {
    const words = recordWords(record).entities;
    if (query.entities.some((e) => words.has(e))) entity = 1;
  }
  let tag = 0;
  for (const w of recordWords(record).tags) if (anchors.has(w)) tag = 1;
  let scope = 0;
  if (scopes) {
    for (const [k, v] of Object.entries(record.scopes))
      if (v && scopes[k as keyof Scopes]?.toLowerCase() === v.toLowerCase()) scope = 1;
  }
  return Math.min(1, 0.7 * entity + 0.2 * tag + 0.1 * scope);
}

/** Confidence and trust, mildly: relevance decides, quality breaks near-ties. */
export function qualityFactor(record: Pick<ContextRecord, 'confidence' | 'trustLevel'>): number {
  return 0.8 + 0.2 * (0.5 * record.confidence + 0.5 * TRUST_WEIGHT[record.trustLevel]);
}

/**
 * Factor that turns FTS5's bm25() term score into one with length normalisation `BM25_B`, for a
 * row `relative` times the mean length: 1 at the mean length, above 1 for longer rows. Exact for a
 * term found once in a column of weight 1 (the usual case in a record); a close reshaping otherwise.
 */
export function lengthRenormalisation(relative: number): number {
  const fts5 = 1 + FTS5_K1 * (1 - FTS5_B + FTS5_B * relative);
  const ours = 1 + FTS5_K1 * (1 - BM25_B + BM25_B * relative);
  return fts5 / ours;
}

/** SQLite varints (big-endian, 7 bits a byte, the ninth byte whole), as FTS5 stores its sizes. */
export function varints(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    let value = 0;
    for (let n = 0; i < bytes.length; n++) {
      const byte = bytes[i++]!;
      if (n === 8) {
        value = value * 256 + byte;
        break;
      }
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    out.push(value);
  }
  return out;
}
