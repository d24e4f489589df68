/**
 * The contract between the LoCoMo protocol (benchmarks.md §5.1) and every retriever under test.
 * Retrievers live in `src/retrievers/`; each one is opened fresh per conversation (isolation rule),
 * ingests every turn in chronological order, then answers ranked dialog ids for each question.
 */

/** One dialog turn, as ingested. `text` is already `"<speaker>: <text>"` plus ` [shares <caption>]`. */
export interface LocomoTurn {
  /** LoCoMo `sample_id`, e.g. `conv-30`. */
  conversationId: string;
  /** Normalised dialog id `D<session>:<turn>`, e.g. `D3:12`. */
  diaId: string;
  speaker: string;
  /** The text to store: `"<speaker>: <text>"` + ` [shares <blip_caption>]` when the turn has an image caption. */
  text: string;
  /** 1-based session number (the `N` of `session_N`). */
  sessionIndex: number;
  /** Session timestamp: ISO 8601 when `session_N_date_time` parsed, else the raw string ('' if absent). */
  sessionDate: string;
  /** 0-based position of the turn in the whole conversation (chronological tie-breaker). */
  turnIndex: number;
}

/** One retriever instance scoped to a single conversation. */
export interface RetrieverSession {
  /** Store every turn (called once, turns in chronological order). */
  ingest(turns: LocomoTurn[]): Promise<void>;
  /**
   * Ranked dialog ids for a question, best first, deduplicated, at most `k`.
   * Retrievers whose items cover several turns expand each item to its source ids in rank order.
   */
  search(query: string, k: number): Promise<string[]>;
  /** Release every resource (database handles, temp dirs). */
  close(): Promise<void>;
  /** Optional: bytes on disk used by the index (reported as "index size"). */
  diskBytes?(): number;
  /**
   * Optional: what the backend puts in front of the model, unasked, before a turn with this user
   * message (a provider's `prefetch`, or a manager's fenced block). "" = nothing. Measured by the
   * precision protocol (`src/precision/`).
   */
  prefetch?(query: string): Promise<string>;
  /**
   * Optional: the stored items each injected record carries (dialog ids per record). Default:
   * each line of the injected text is one record, attributed to the stored texts it contains.
   */
  attribute?(injected: string): string[][];
}

/** A setting the precision–recall curve moves (e.g. a relevance bar), with its default. */
export interface Sweep {
  /** What the value is, for the report ("relevance bar"). */
  label: string;
  values: readonly number[];
  default: number;
}

/** A retrieval backend under test. `open` must return a fresh, empty store. */
export interface Retriever {
  name: string;
  /** One-line description for the report (what it indexes, how it ranks). */
  description?: string;
  /** `setting`: a value of `sweep` (undefined = the backend's default configuration). */
  open(conversationId: string, setting?: number): Promise<RetrieverSession>;
  /** The knob the precision–recall curve moves; absent = one point (the default). */
  sweep?: Sweep;
}

/** A QA item after normalisation. */
export interface LocomoQuestion {
  conversationId: string;
  /** 0-based index into the sample's `qa[]` (the audit's `locomo_<conv>_qa<idx>`). */
  qaIndex: number;
  question: string;
  category: number;
  /** Normalised gold dialog ids that exist in the conversation (may be empty → dropped from scoring). */
  gold: string[];
  /** Raw evidence strings as in the file. */
  rawEvidence: string[];
}

export interface LocomoConversation {
  conversationId: string;
  /** Position in the data file (the audit's conversation index). */
  index: number;
  speakerA: string;
  speakerB: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
  sessionCount: number;
}
