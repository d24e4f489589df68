/** A fact row as the reference returns it (hrr_vector stripped). */
export interface FactRecord {
  fact_id: number;
  content: string;
  category: string;
  tags: string;
  trust_score: number;
  retrieval_count: number;
  helpful_count: number;
  created_at: string;
  updated_at: string;
}

/**
 * A ranked fact: `score` always (the ranking: relevance signals × trust), `fts_rank` on the search
 * path (normalised to [0, 1]), and on the default pipeline's search path `relevance`: how strongly
 * the fact itself is about the query, 0–1, the same scale in any store and independent of trust.
 */
export interface ScoredFact extends FactRecord {
  score: number;
  fts_rank?: number;
  relevance?: number;
}

export interface ContradictionPair {
  fact_a: Omit<FactRecord, 'retrieval_count' | 'helpful_count'>;
  fact_b: Omit<FactRecord, 'retrieval_count' | 'helpful_count'>;
  entity_overlap: number;
  content_similarity: number;
  contradiction_score: number;
  shared_entities: string[];
}

export interface FeedbackResult {
  fact_id: number;
  old_trust: number;
  new_trust: number;
  helpful_count: number;
}

/** The reference's four categories (the tool schema's enum); the store accepts any string. */
export const FACT_CATEGORIES = ['user_pref', 'project', 'tool', 'general'] as const;
export type FactCategory = (typeof FACT_CATEGORIES)[number];

/**
 * `default`: the improved pipeline (stemmed side index, BM25 + coverage + Jaccard, optional
 * embeddings). `reference`: the Python plugin's exact ranking over `facts_fts`.
 */
export type RetrievalMode = 'default' | 'reference';

/** Fusion weights of the reference pipeline (relevance = Σ w·signal, then × trust). */
export interface ReferenceWeights {
  fts: number;
  jaccard: number;
  hrr: number;
}

/** Fusion weights of the default pipeline. */
export interface DefaultWeights {
  /** BM25 over stemmed terms, normalised by the best candidate. */
  bm25: number;
  /** IDF-weighted share of the query's terms the fact contains. */
  coverage: number;
  /** Jaccard over stemmed token sets. */
  jaccard: number;
  /** HRR bag-of-words similarity, shifted to [0, 1]. */
  hrr: number;
  /** Cosine similarity of embeddings, clamped to [0, 1] (only with an embedder). */
  embedding: number;
  /** Share of the best adjacent fact's score a fact borrows (episodic contiguity). */
  context: number;
  /**
   * Pseudo-relevance feedback: weight of the expansion terms taken from the best first-pass facts
   * (and share of their embedding centroid mixed into the query vector). 0 disables it.
   */
  feedback: number;
  /**
   * Contextual document expansion: a fact's lexical match also counts the previous turn's terms
   * (written within the hour) at this weight, so a reply is found by the words of what it answers.
   */
  expansion: number;
  /**
   * Speaker signal: IDF share of the query's terms that name the fact's chat speaker (a leading
   * "Name: " prefix), so what a person said ranks above turns that only address them by name.
   */
  speaker: number;
  /** Bonus for facts with a time expression when the query asks "when …" (0 disables it). */
  temporal: number;
  /**
   * Question discount: a fact ranks with its own score reduced by this weight × the share of its
   * sentences that are questions ("What kind of books do you like?" states nothing). Its neighbours
   * still borrow its full score. 0 disables it.
   */
  question: number;
  /**
   * Reply expansion: when the previous turn (see `expansion`) is a question, its terms count at
   * `expansion + reply × its question share` — "Which books do you like?" → "Charlotte's Web".
   * 0 disables it.
   */
  reply: number;
}

export interface SearchOptions {
  category?: string;
  minTrust?: number;
  limit?: number;
  /** `false`: this read bumps no retrieval_count (the caller counts the facts it uses). Default true. */
  countRetrievals?: boolean;
}

/** What `FactStore.recallRelevant` (the provider's prefetch) selects. */
export interface RelevantOptions {
  category?: string;
  minTrust?: number;
  /** At most this many facts (default 5). */
  limit?: number;
  /** Relevance a fact needs (default `DEFAULT_MIN_RELEVANCE`). */
  minRelevance?: number;
}
