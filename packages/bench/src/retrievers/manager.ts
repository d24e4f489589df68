/**
 * A `Retriever` over the whole stack a user runs: a `MemoryManager` with the builtin provider and
 * one external provider, facts written through the model's own tool calls one after the other (as
 * in a live working session), and recall as the fenced `<memory-context>` block `prefetchAll`
 * returns. Used by the live-agent precision suite; any provider plugs in with one spec.
 */
import { type InitContext, MemoryManager, type MemoryProvider } from '@hermes-memory/core';
import type { LocomoTurn, Retriever, RetrieverSession, Sweep } from '../locomo/types';
import { dirBytes, LOCAL_PROVIDERS, loadProviderFactory, tempHome } from '../providers';
import type { ItemKey } from './provider';

export interface ManagerRetrieverSpec {
  name: string;
  description: string;
  /** The external provider; `setting` is a value of `sweep` (undefined = its default). */
  create(setting: number | undefined): MemoryProvider;
  /** Added to `initializeAll`'s input. */
  context?(): Partial<InitContext>;
  /** The tool call a model makes to store one fact; returns the provider's key for it. */
  write(manager: MemoryManager, text: string): Promise<ItemKey | undefined>;
  /** Ranked keys through the provider's own search tool. */
  search(manager: MemoryManager, query: string, k: number): Promise<ItemKey[]>;
  sweep?: Sweep;
}

export function createManagerRetriever(spec: ManagerRetrieverSpec): Retriever {
  return {
    name: spec.name,
    description: spec.description,
    sweep: spec.sweep,
    async open(_id: string, setting?: number): Promise<RetrieverSession> {
      const builtin = await loadProviderFactory(LOCAL_PROVIDERS.find((p) => p.name === 'builtin')!);
      const { home, cleanup } = tempHome('hm-bench-manager-');
      const manager = new MemoryManager();
      manager.addProvider(builtin());
      manager.addProvider(spec.create(setting));
      await manager.initializeAll('bench-live', {
        hermesHome: home,
        platform: 'cli',
        env: {},
        ...spec.context?.(),
      });
      const diaByKey = new Map<ItemKey, string>();
      return {
        async ingest(turns: LocomoTurn[]) {
          for (const turn of turns) {
            const key = await spec.write(manager, turn.text);
            if (key !== undefined && !diaByKey.has(key)) diaByKey.set(key, turn.diaId);
          }
          // Providers that learn of a write in the background (a builtin write mirrored through
          // onMemoryWrite) have it before the first question, as after a turn in an agent.
          await manager.flushPending();
        },
        async search(query: string, k: number) {
          const ranked: string[] = [];
          for (const key of await spec.search(manager, query, Math.max(k, 1))) {
            const dia = diaByKey.get(key);
            if (dia && !ranked.includes(dia)) ranked.push(dia);
          }
          return ranked.slice(0, k);
        },
        prefetch: (query: string) => manager.prefetchAll(query),
        async close() {
          await manager.shutdownAll();
          cleanup();
        },
        diskBytes: () => dirBytes(home),
      };
    },
  };
}

/** Parse a tool's JSON result, throwing its error text. */
export function toolJson<T>(raw: string, what: string): T {
  const out = JSON.parse(raw) as T & { error?: unknown };
  if (typeof out.error === 'string') throw new Error(`${what}: ${out.error}`);
  return out;
}
