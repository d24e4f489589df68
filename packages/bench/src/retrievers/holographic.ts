/**
 * Holographic retriever for the LoCoMo protocol and the scale suite: turns are imported with the
 * store's batch API (`FactStore.addMany`, one transaction, each turn's session date as
 * `occurredAt`) and questions go through the provider's own `fact_store search` tool, with a fresh
 * store in a temp dir per conversation. Owned by the holographic package.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { createHolographicProvider } from '@hermes-memory/holographic';
import type { LocomoTurn, Retriever, RetrieverSession } from '../locomo/types';

export interface HolographicRetrieverOptions {
  /** true → hybrid with the bundled Model2Vec embedder; false → the lexical/HRR pipeline only. */
  embeddings: boolean;
  /** `reference` reproduces the Python plugin's ranking. Default `default`. */
  compat?: 'default' | 'reference';
}

export function createHolographicRetriever(options: HolographicRetrieverOptions): Retriever {
  const compat = options.compat ?? 'default';
  const suffix = compat === 'reference' ? '-reference' : options.embeddings ? '+embeddings' : '';
  return {
    name: `holographic${suffix}`,
    description:
      compat === 'reference'
        ? 'holographic, reference ranking (FTS .4 / Jaccard .3 / HRR .3 × trust)'
        : `holographic default pipeline (stemmed BM25 + coverage + Jaccard + conversational neighbourhood${options.embeddings ? ' + Model2Vec dense fusion' : ''})`,
    async open(): Promise<RetrieverSession> {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-holo-'));
      // `embeddings: false` measures the lexical pipeline; with embeddings the provider runs in its
      // default configuration (`embeddings: 'auto'`) on the bundled Model2Vec.
      const provider = createHolographicProvider({ compat, embeddings: options.embeddings ? 'auto' : false });
      await provider.initialize('bench', {
        hermesHome: dir,
        platform: 'bench',
        agentContext: 'primary',
        logger: silentLogger,
        embedder: options.embeddings ? createDefaultEmbedder() : undefined,
      });
      const diaByFact = new Map<number, string>();
      const call = async (args: Record<string, unknown>): Promise<Record<string, unknown>> => {
        const out = JSON.parse(await provider.handleToolCall('fact_store', args)) as Record<string, unknown>;
        if (typeof out.error === 'string') throw new Error(`fact_store ${String(args.action)}: ${out.error}`);
        return out;
      };
      return {
        async ingest(turns: LocomoTurn[]) {
          const store = provider.factStore;
          if (!store) throw new Error('holographic provider has no open store');
          const ids = store.addMany(
            turns.map((turn) => ({ content: turn.text, occurredAt: sessionTime(turn.sessionDate) })),
          );
          ids.forEach((id, i) => {
            if (!diaByFact.has(id)) diaByFact.set(id, turns[i]!.diaId);
          });
        },
        async search(query: string, k: number) {
          const out = await call({ action: 'search', query, limit: Math.max(k, 1), min_trust: 0 });
          const ranked: string[] = [];
          for (const r of (out.results as Array<{ fact_id: number }>) ?? []) {
            const dia = diaByFact.get(r.fact_id);
            if (dia && !ranked.includes(dia)) ranked.push(dia);
          }
          return ranked.slice(0, k);
        },
        async close() {
          provider.shutdown();
          fs.rmSync(dir, { recursive: true, force: true });
        },
        diskBytes() {
          let total = 0;
          for (const f of fs.existsSync(dir) ? fs.readdirSync(dir) : [])
            total += fs.statSync(path.join(dir, f)).size;
          return total;
        },
      };
    },
  };
}

/** The session date when it parsed as ISO 8601 (the loader's normal form), else undefined (= now). */
function sessionTime(date: string): string | undefined {
  return date && !Number.isNaN(Date.parse(date)) ? date : undefined;
}
