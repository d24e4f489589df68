/**
 * The two ways records are retrieved: `search` (a ranked list for tools, lifecycle-filtered only)
 * and `recall` (the gated, budgeted prompt block, logged to the retrieval event log).
 */
import type { EventLog, EventOrigin } from '../events';
import type { Scopes } from '../records';
import { renderRecall } from '../render';
import type { ContinuityStore } from '../store';
import type { GateSettings } from './gates';
import { analyzeQuery } from './query';
import { type Candidate, Ranker, type RetrievalWeights } from './rank';
import { type Budget, type Selection, select } from './select';
import type { VectorIndex } from './vectors';

export interface RetrieverConfig {
  gates: GateSettings;
  weights: RetrievalWeights;
  graphDepth: number;
  scopes: Scopes;
  budget: Budget;
}

export interface SearchOptions {
  limit: number;
  includeInactive?: boolean;
  kinds?: readonly string[];
  signal?: AbortSignal;
}

export interface RecallOptions {
  sessionId?: string | null;
  origin?: EventOrigin;
  /** Write the decisions to the event log (primary agents only). Default true. */
  log?: boolean;
  signal?: AbortSignal;
  budget?: Partial<Budget>;
}

export interface RecallResult {
  text: string;
  selection: Selection;
  /** The event log row, when logged. */
  eventId: number | null;
}

/** How many ranked candidates a recall considers before gating. */
const RECALL_POOL_LIMIT = 20;

export class Retriever {
  readonly ranker: Ranker;

  constructor(
    private readonly store: ContinuityStore,
    private readonly vectors: VectorIndex | null,
    private readonly events: EventLog | null,
    readonly config: RetrieverConfig,
  ) {
    this.ranker = new Ranker(store, vectors);
  }

  get embedderId(): string | null {
    return this.vectors?.embedder.id ?? null;
  }

  /** Embed pending records (and the coming query) off the hot path. */
  async warm(queries: readonly string[] = []): Promise<void> {
    await this.vectors?.warm(queries);
  }

  async search(query: string, options: SearchOptions): Promise<Candidate[]> {
    const analyzed = analyzeQuery(query, this.ranker.knownEntities());
    const ranked = await this.ranker.rank(analyzed, {
      limit: options.limit,
      includeInactive: options.includeInactive,
      kinds: options.kinds,
      scopes: this.config.scopes,
      graphDepth: this.config.graphDepth,
      weights: this.config.weights,
      signal: options.signal,
    });
    return ranked.slice(0, options.limit);
  }

  async recall(query: string, options: RecallOptions = {}): Promise<RecallResult> {
    const analyzed = analyzeQuery(query, this.ranker.knownEntities());
    const candidates = analyzed.lowInformation
      ? []
      : await this.ranker.rank(analyzed, {
          limit: RECALL_POOL_LIMIT,
          scopes: this.config.scopes,
          graphDepth: this.config.graphDepth,
          weights: this.config.weights,
          signal: options.signal,
        });
    const selection = select(
      candidates.slice(0, RECALL_POOL_LIMIT * 2),
      {
        query: analyzed,
        settings: this.config.gates,
        scopes: this.config.scopes,
        sessionId: options.sessionId ?? null,
        now: this.store.now(),
        sharedBy: (terms) => this.ranker.sharedBy(terms),
      },
      { ...this.config.budget, ...options.budget },
    );
    const text = renderRecall(
      selection.direct.map((c) => c.record),
      selection.associated.map((c) => c.record),
    );
    let eventId: number | null = null;
    if (this.events && options.log !== false) {
      eventId = this.events.log({
        sessionId: options.sessionId ?? null,
        origin: options.origin ?? 'prefetch',
        query,
        queryGate: selection.queryGate ?? null,
        injected: [...selection.direct, ...selection.associated].map((c) => c.record.id),
        decisions: selection.decisions,
        chars: text.length,
      });
    }
    return { text, selection, eventId };
  }
}
