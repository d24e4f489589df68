import type { Retriever } from '../locomo/types';
import { createBm25Retriever } from './bm25';
import { createBuiltinSessionRetriever } from './builtin';
import { createDenseRetriever } from './dense';
import { loadModel2VecEmbedder } from './model2vec';

/**
 * The holographic adapter (`./holographic.ts`, owned by the holographic package's author) is imported
 * lazily: its static imports of packages still being built must not take the other retrievers down.
 */
const holographic = () => import('./holographic');
/** The continuity adapter (owned by the continuity package), lazily for the same reason. */
const continuity = () => import('./continuity');

/** A retriever the bench knows about; `load` fails with a reason when its package is not ready. */
export interface RetrieverEntry {
  name: string;
  load(): Promise<Retriever>;
}

export const RETRIEVERS: readonly RetrieverEntry[] = [
  { name: 'bm25', load: async () => createBm25Retriever() },
  { name: 'builtin-session-search', load: () => createBuiltinSessionRetriever('verbatim') },
  { name: 'builtin-session-search-or', load: () => createBuiltinSessionRetriever('or-keywords') },
  {
    name: 'holographic',
    load: async () => (await holographic()).createHolographicRetriever({ embeddings: false }),
  },
  {
    name: 'holographic+embeddings',
    load: async () => (await holographic()).createHolographicRetriever({ embeddings: true }),
  },
  {
    name: 'holographic-reference',
    load: async () =>
      (await holographic()).createHolographicRetriever({ embeddings: false, compat: 'reference' }),
  },
  { name: 'model2vec', load: async () => createDenseRetriever('model2vec', await loadModel2VecEmbedder()) },
  {
    name: 'continuity',
    load: async () => (await continuity()).createContinuityRetriever({ embeddings: false }),
  },
  {
    name: 'continuity+embeddings',
    load: async () => (await continuity()).createContinuityRetriever({ embeddings: true }),
  },
];

export const RETRIEVER_NAMES: readonly string[] = RETRIEVERS.map((r) => r.name);

/**
 * Whole stacks for the live-agent suite: a `MemoryManager` with builtin and one external provider,
 * facts written through the model's tools (`createManagerRetriever`). A provider joins with one entry.
 */
export const LIVE_STACKS: readonly RetrieverEntry[] = [
  {
    name: 'builtin+holographic',
    load: async () => (await holographic()).createHolographicLiveRetriever({ embeddings: false }),
  },
  {
    name: 'builtin+holographic+embeddings',
    load: async () => (await holographic()).createHolographicLiveRetriever({ embeddings: true }),
  },
  {
    name: 'builtin+continuity',
    load: async () => (await continuity()).createContinuityLiveRetriever({ embeddings: false }),
  },
  {
    name: 'builtin+continuity+embeddings',
    load: async () => (await continuity()).createContinuityLiveRetriever({ embeddings: true }),
  },
];

export type Loaded = { name: string; retriever: Retriever } | { name: string; unavailable: string };

/** Load the selected retrievers (all when `names` is null); unknown names are an error. */
export async function loadRetrievers(
  names: readonly string[] | null,
  entries: readonly RetrieverEntry[] = RETRIEVERS,
): Promise<Loaded[]> {
  const known = entries.map((e) => e.name);
  const wanted = names ?? known;
  const unknown = wanted.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new Error(`unknown retriever(s): ${unknown.join(', ')} (known: ${known.join(', ')})`);
  }
  const out: Loaded[] = [];
  for (const entry of entries) {
    if (!wanted.includes(entry.name)) continue;
    try {
      const retriever = await entry.load();
      out.push({ name: entry.name, retriever: { ...retriever, name: entry.name } });
    } catch (err) {
      out.push({ name: entry.name, unavailable: err instanceof Error ? err.message : String(err) });
    }
  }
  return out;
}
