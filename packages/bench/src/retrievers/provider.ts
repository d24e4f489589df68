/**
 * A `Retriever` from any `MemoryProvider` factory: a fresh HERMES_HOME per store, the provider
 * initialised as the primary agent, turns stored, and its `prefetch` measured by the precision
 * protocol (and its own search tool by the recall protocol, when the spec says how to call it).
 * New providers plug into the LoCoMo and precision benchmarks with one spec.
 */
import type { InitContext, MemoryProvider } from '@hermes-memory/core';
import type { LocomoTurn, Retriever, RetrieverSession, Sweep } from '../locomo/types';
import { dirBytes, initContext, tempHome } from '../providers';

/** A provider's own key for a stored item (a fact id, a record id). */
export type ItemKey = string | number;

export interface ProviderRetrieverSpec<P extends MemoryProvider> {
  name: string;
  description: string;
  /** A fresh, uninitialised provider; `setting` is a value of `sweep` (undefined = its default). */
  create(setting: number | undefined): P;
  /** Added to the init context (an embedder, a providerConfig block). */
  context?(): Partial<InitContext>;
  /**
   * Store the turns in order and return the provider's key of each (same order), or nothing when
   * the provider has no keys to map back. Default: each turn is mirrored as a builtin memory write
   * (`onMemoryWrite('add', 'memory', text)`), the path every provider receives in an agent.
   */
  ingest?(provider: P, turns: readonly LocomoTurn[]): Promise<ItemKey[] | undefined> | ItemKey[] | undefined;
  /** Ranked keys for a query through the provider's own search tool (the recall protocol). */
  search(provider: P, query: string, k: number): Promise<ItemKey[]>;
  /** The knob the precision–recall curve moves. */
  sweep?: Sweep;
}

export function createProviderRetriever<P extends MemoryProvider>(spec: ProviderRetrieverSpec<P>): Retriever {
  return {
    name: spec.name,
    description: spec.description,
    sweep: spec.sweep,
    async open(_conversationId: string, setting?: number): Promise<RetrieverSession> {
      const { home, cleanup } = tempHome('hm-bench-provider-');
      const provider = spec.create(setting);
      await provider.initialize('bench', initContext(home, { platform: 'bench', ...spec.context?.() }));
      const diaByKey = new Map<ItemKey, string>();
      return {
        async ingest(turns: LocomoTurn[]) {
          let keys: ItemKey[] | undefined;
          if (spec.ingest) keys = await spec.ingest(provider, turns);
          else for (const t of turns) provider.onMemoryWrite('add', 'memory', t.text);
          keys?.forEach((key, i) => {
            if (!diaByKey.has(key)) diaByKey.set(key, turns[i]!.diaId);
          });
        },
        async search(query: string, k: number) {
          const ranked: string[] = [];
          for (const key of await spec.search(provider, query, Math.max(k, 1))) {
            const dia = diaByKey.get(key);
            if (dia && !ranked.includes(dia)) ranked.push(dia);
          }
          return ranked.slice(0, k);
        },
        prefetch: async (query: string) => provider.prefetch(query),
        async close() {
          await provider.shutdown();
          cleanup();
        },
        diskBytes: () => dirBytes(home),
      };
    },
  };
}
