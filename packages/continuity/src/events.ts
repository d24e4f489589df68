/**
 * The retrieval event log: for each prefetch (and each explain run), every candidate considered,
 * its signals, and the gate that rejected it or the fact that it was injected. `continuity_explain`
 * and `hermes-memory continuity explain` read it back. Queries are stored with secrets masked;
 * records are referenced by id only, so a hard-deleted record leaves no text behind.
 */
import { redactSecrets } from '@hermes-memory/core';
import type { GateId } from './retrieval/gates';
import type { ContinuityStore } from './store';

export type EventOrigin = 'prefetch' | 'explain';

export interface Signals {
  /** BM25 over the record's fields, normalised by the best candidate (0–1). */
  bm25: number;
  /** IDF-weighted share of the query's anchor terms the record contains (0–1). */
  coverage: number;
  /** Normalised cosine of the record and query embeddings (0–1; 0 without embeddings). */
  vector: number;
  /** Raw cosine, for the vector-only gate. */
  cosine: number;
  /** Metadata bonus: named entities, tags, scope (0–1). */
  metadata: number;
  /** Activation borrowed through the association graph (0–1). */
  graph: number;
  /** Confidence × importance × trust factor applied to the relevance (0–1). */
  quality: number;
  /** Coverage inherited from the question the record answers (0–1; absent in older events). */
  reply?: number;
  /** Added because the message asks when and the record says when (absent in older events). */
  temporal?: number;
}

export interface CandidateDecision {
  recordId: string;
  score: number;
  signals: Signals;
  /** Query anchor terms found in the record. */
  matched: string[];
  /** Query anchors inherited from the question the record answers (absent when none). */
  inherited?: string[];
  via: 'direct' | 'associated';
  verdict: 'injected' | 'rejected';
  gate?: GateId;
  reason?: string;
}

export interface RetrievalEvent {
  id: number;
  at: string;
  sessionId: string | null;
  origin: EventOrigin;
  query: string;
  /** Set when the whole message was rejected before any record was considered. */
  queryGate: GateId | null;
  injected: string[];
  decisions: CandidateDecision[];
  /** Characters of the block handed to the prompt. */
  chars: number;
}

interface EventRow {
  id: number;
  at: string;
  session_id: string | null;
  origin: string;
  query: string;
  query_gate: string | null;
  injected: string;
  decisions: string;
  chars: number;
}

function toEvent(r: EventRow): RetrievalEvent {
  return {
    id: r.id,
    at: r.at,
    sessionId: r.session_id,
    origin: r.origin as EventOrigin,
    query: r.query,
    queryGate: r.query_gate as GateId | null,
    injected: JSON.parse(r.injected) as string[],
    decisions: JSON.parse(r.decisions) as CandidateDecision[],
    chars: r.chars,
  };
}

/** Longest query kept in the log. */
const MAX_QUERY_CHARS = 2_000;

export class EventLog {
  private sinceprune = 0;

  constructor(
    private readonly store: ContinuityStore,
    /** Events kept; older ones are deleted as new ones arrive. */
    private readonly limit = 1_000,
  ) {}

  log(event: Omit<RetrievalEvent, 'id' | 'at'>): number {
    const id = this.store.transaction(() => {
      const info = this.store
        .stmt(
          'INSERT INTO retrieval_events (at, session_id, origin, query, query_gate, injected, decisions, chars) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          this.store.now().toISOString(),
          event.sessionId,
          event.origin,
          redactSecrets(event.query.slice(0, MAX_QUERY_CHARS)),
          event.queryGate,
          JSON.stringify(event.injected),
          JSON.stringify(event.decisions),
          event.chars,
        );
      const newId = Number(info.lastInsertRowid);
      if (++this.sinceprune >= 50 || newId % 100 === 0) {
        this.sinceprune = 0;
        this.store.stmt('DELETE FROM retrieval_events WHERE id <= ?').run(newId - this.limit);
      }
      return newId;
    });
    return id;
  }

  get(id: number): RetrievalEvent | undefined {
    const row = this.store.stmt('SELECT * FROM retrieval_events WHERE id = ?').get(id) as
      | EventRow
      | undefined;
    return row ? toEvent(row) : undefined;
  }

  latest(origin?: EventOrigin): RetrievalEvent | undefined {
    const row = (
      origin
        ? this.store
            .stmt('SELECT * FROM retrieval_events WHERE origin = ? ORDER BY id DESC LIMIT 1')
            .get(origin)
        : this.store.stmt('SELECT * FROM retrieval_events ORDER BY id DESC LIMIT 1').get()
    ) as EventRow | undefined;
    return row ? toEvent(row) : undefined;
  }

  recent(limit = 20): RetrievalEvent[] {
    return (
      this.store.stmt('SELECT * FROM retrieval_events ORDER BY id DESC LIMIT ?').all(limit) as EventRow[]
    ).map(toEvent);
  }

  count(): number {
    return (this.store.stmt('SELECT count(*) AS n FROM retrieval_events').get() as { n: number }).n;
  }
}

/** Small key/value state (maintenance timestamps, dream proposals). */
export class ProviderState {
  constructor(private readonly store: ContinuityStore) {}

  get<T>(key: string): T | undefined {
    const row = this.store.stmt('SELECT value FROM provider_state WHERE key = ?').get(key) as
      | { value: string }
      | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.value) as T;
    } catch {
      return undefined;
    }
  }

  set(key: string, value: unknown): void {
    this.store.transaction(() =>
      this.store
        .stmt(
          `INSERT INTO provider_state (key, value, updated_at) VALUES (?, ?, ?)
           ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        )
        .run(key, JSON.stringify(value), this.store.now().toISOString()),
    );
  }

  delete(key: string): void {
    this.store.transaction(() => this.store.stmt('DELETE FROM provider_state WHERE key = ?').run(key));
  }
}
