/**
 * Holographic retriever for the LoCoMo, precision and scale suites: turns are imported with the
 * store's batch API (`FactStore.addMany`, one transaction, each turn's session date as
 * `occurredAt`), questions go through the provider's own `fact_store search` tool, and `prefetch`
 * is the provider's own, with a fresh store in a temp HERMES_HOME per conversation. Owned by the
 * holographic package.
 */
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { type HolographicProvider, createHolographicProvider } from '@hermes-memory/holographic';
import type { Retriever } from '../locomo/types';
import { createManagerRetriever, toolJson } from './manager';
import { createProviderRetriever } from './provider';

export interface HolographicRetrieverOptions {
  /** true → hybrid with the bundled Model2Vec embedder; false → the lexical/HRR pipeline only. */
  embeddings: boolean;
  /** `reference` reproduces the Python plugin's ranking. Default `default`. */
  compat?: 'default' | 'reference';
}

/** Relevance bars the precision–recall curve moves through (`prefetchMinRelevance`; default 0.45). */
const SWEEP = {
  label: 'relevance bar',
  values: [0, 0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8],
  default: 0.45,
};

export function createHolographicRetriever(options: HolographicRetrieverOptions): Retriever {
  const compat = options.compat ?? 'default';
  const suffix = compat === 'reference' ? '-reference' : options.embeddings ? '+embeddings' : '';
  return createProviderRetriever<HolographicProvider>({
    name: `holographic${suffix}`,
    description:
      compat === 'reference'
        ? 'holographic, reference ranking (FTS .4 / Jaccard .3 / HRR .3 × trust)'
        : `holographic default pipeline (stemmed BM25 + coverage + Jaccard + conversational neighbourhood${options.embeddings ? ' + Model2Vec dense fusion' : ''})`,
    // `embeddings: false` measures the lexical pipeline; with embeddings the provider runs in its
    // default configuration (`embeddings: 'auto'`) on the bundled Model2Vec.
    create: (bar) =>
      createHolographicProvider({
        compat,
        embeddings: options.embeddings ? 'auto' : false,
        ...(bar === undefined ? {} : { prefetchMinRelevance: bar }),
      }),
    context: () => ({ embedder: options.embeddings ? createDefaultEmbedder() : undefined }),
    ingest(provider, turns) {
      const store = provider.factStore;
      if (!store) throw new Error('holographic provider has no open store');
      return store.addMany(
        turns.map((turn) => ({ content: turn.text, occurredAt: sessionTime(turn.sessionDate) })),
      );
    },
    search: async (provider, query, k) =>
      factIds(await provider.handleToolCall('fact_store', searchArgs(query, k))),
    sweep: compat === 'reference' ? undefined : SWEEP,
  });
}

/**
 * The live-agent stack: builtin + holographic in a `MemoryManager` with the provider's defaults
 * (`embeddings: 'auto'` loads the bundled Model2Vec as an installed CLI does; `false` = lexical),
 * facts written by `fact_store add` tool calls one after the other.
 */
export function createHolographicLiveRetriever(options: { embeddings: boolean }): Retriever {
  return createManagerRetriever({
    name: `builtin+holographic${options.embeddings ? '+embeddings' : ''}`,
    description: `MemoryManager(builtin, holographic${options.embeddings ? " with embeddings: 'auto' (bundled Model2Vec)" : ', embeddings: false'})`,
    create: (bar) =>
      createHolographicProvider({
        ...(options.embeddings ? {} : { embeddings: false }),
        ...(bar === undefined ? {} : { prefetchMinRelevance: bar }),
      }),
    async write(manager, content) {
      const raw = await manager.handleToolCall('fact_store', { action: 'add', content });
      return toolJson<{ fact_id: number }>(raw, 'fact_store add').fact_id;
    },
    search: async (manager, query, k) =>
      factIds(await manager.handleToolCall('fact_store', searchArgs(query, k))),
    sweep: SWEEP,
  });
}

function searchArgs(query: string, k: number): Record<string, unknown> {
  return { action: 'search', query, limit: k, min_trust: 0 };
}

function factIds(raw: string): number[] {
  return (toolJson<{ results?: Array<{ fact_id: number }> }>(raw, 'fact_store search').results ?? []).map(
    (r) => r.fact_id,
  );
}

/** The session date when it parsed as ISO 8601 (the loader's normal form), else undefined (= now). */
function sessionTime(date: string): string | undefined {
  return date && !Number.isNaN(Date.parse(date)) ? date : undefined;
}
