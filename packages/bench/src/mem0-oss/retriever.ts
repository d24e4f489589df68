/**
 * Mem0's own algorithm in process (`mem0ai/oss`, decision 0911) as a LoCoMo retriever, offline:
 * no LLM, so every turn is stored verbatim (`infer: false`), embedded with the bundled Model2Vec
 * and ranked by mem0's vector search. Turns go in through the `mem0_add` tool and questions through
 * `mem0_search`, the calls an agent makes; a stored memory maps back to its turn by its text.
 */
import type { Embedder } from '@hermes-memory/core';
import { loadModule } from '../packages';
import { createProviderRetriever } from '../retrievers/provider';
import type { Retriever } from '../locomo/types';

type Mem0Module = typeof import('@hermes-memory/mem0');
type Mem0 = InstanceType<Mem0Module['Mem0Provider']>;

export const MEM0_OSS = { vector_store: { provider: 'memory' } };

export async function loadMem0(): Promise<Mem0Module> {
  return loadModule('@hermes-memory/mem0', () => import('@hermes-memory/mem0'));
}

/** One tool call, parsed (every mem0 tool answers JSON). */
export async function tool(
  provider: Mem0,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  return JSON.parse(await provider.handleToolCall(name, args)) as Record<string, unknown>;
}

export async function createMem0OssRetriever(embedder: Embedder): Promise<Retriever> {
  const { Mem0Provider } = await loadMem0();
  return createProviderRetriever<Mem0>({
    name: 'mem0-oss',
    description:
      'mem0ai/oss in process, offline: turns stored verbatim (infer=false) via mem0_add, Model2Vec embeddings, ranked by mem0_search (its SQLite vector store)',
    create: () => new Mem0Provider({ mode: 'oss', oss: MEM0_OSS }),
    context: () => ({ embedder }),
    async ingest(provider, turns) {
      for (const t of turns) {
        const answer = await tool(provider, 'mem0_add', { content: t.text });
        // A turn the write scanner refuses is not stored (as in an agent), so it cannot be found.
        if (answer.error && !/^Blocked:/.test(String(answer.error)))
          throw new Error(`mem0_add: ${String(answer.error)}`);
      }
      return turns.map((t) => t.text);
    },
    async search(provider, query, k) {
      const answer = await tool(provider, 'mem0_search', { query, top_k: Math.min(k, 50) });
      if (answer.error) throw new Error(`mem0_search: ${String(answer.error)}`);
      return ((answer.results as Array<{ memory: string }> | undefined) ?? []).map((r) => r.memory);
    },
  });
}
