/**
 * Continuity retriever for the LoCoMo protocol. Turns go in the way a user's transcripts would:
 * each session becomes a source document ("Speaker: text" lines, dated with the session date), is
 * segmented, turned into candidate records, reviewed with the default checks (approve what passes)
 * and explicitly imported. Questions go through the provider's own `continuity_search` tool.
 * A fresh store in a temp dir per conversation. Owned by the continuity package.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import {
  type ContinuityProvider,
  type ContinuitySettings,
  createContinuityProvider,
  importCandidates,
  ingestText,
  review,
} from '@hermes-memory/continuity';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import type { LocomoTurn, Retriever, RetrieverSession } from '../locomo/types';

export interface ContinuityRetrieverOptions {
  /** true → the bundled Model2Vec embedder; false → lexical only. */
  embeddings: boolean;
  settings?: ContinuitySettings;
}

export interface ContinuityLocomoStore {
  provider: ContinuityProvider;
  /** Record id → LoCoMo dialog id. */
  diaOf: Map<string, string>;
  /** Turns that became no record (rejected by review: too short, duplicates). */
  rejected: number;
  dir: string;
  close(): void;
}

export async function openContinuityStore(
  options: ContinuityRetrieverOptions,
): Promise<ContinuityLocomoStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-continuity-'));
  const provider = createContinuityProvider({
    embeddings: options.embeddings ? 'auto' : false,
    ...options.settings,
  });
  await provider.initialize('bench', {
    hermesHome: dir,
    platform: 'bench',
    agentContext: 'primary',
    logger: silentLogger,
    embedder: options.embeddings ? createDefaultEmbedder() : undefined,
  });
  return {
    provider,
    diaOf: new Map(),
    rejected: 0,
    dir,
    close() {
      provider.shutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Ingest → review (approve passing) → import, one document per session. */
export async function ingestTurns(
  target: ContinuityLocomoStore,
  turns: readonly LocomoTurn[],
): Promise<void> {
  const store = target.provider.recordStore;
  if (!store) throw new Error('continuity provider has no open store');
  const sessions = new Map<string, LocomoTurn[]>();
  for (const t of turns) {
    const key = `${t.conversationId}/session_${t.sessionIndex}`;
    const list = sessions.get(key);
    if (list) list.push(t);
    else sessions.set(key, [t]);
  }
  for (const [name, list] of sessions) {
    const date = list[0]!.sessionDate;
    const { candidates } = ingestText(store, {
      path: name,
      text: list.map((t) => t.text.replace(/\s*\n\s*/g, ' ')).join('\n'),
      observedAt: date && !Number.isNaN(Date.parse(date)) ? date : null,
      format: 'transcript',
    });
    const reviewed = review(store, candidates, { approvePassing: true }).candidates;
    const imported = importCandidates(store, reviewed);
    // Line n of the document is turn n of the session.
    const lineOf = new Map(
      reviewed.map((c) => [c.candidate_id, Number((c.source.lines ?? '0').split('-')[0])]),
    );
    for (const { candidate_id, record_id } of imported.records) {
      const turn = list[(lineOf.get(candidate_id) ?? 0) - 1];
      if (turn) target.diaOf.set(record_id, turn.diaId);
    }
    target.rejected += list.length - imported.records.length;
  }
}

export function createContinuityRetriever(options: ContinuityRetrieverOptions): Retriever {
  return {
    name: options.embeddings ? 'continuity+embeddings' : 'continuity',
    description: `continuity continuity_search (FTS5 BM25 + anchor coverage + metadata + association graph${options.embeddings ? ' + Model2Vec candidates' : ''}), turns imported through review-first ingestion`,
    async open(): Promise<RetrieverSession> {
      const target = await openContinuityStore(options);
      return {
        async ingest(turns: LocomoTurn[]) {
          await ingestTurns(target, turns);
        },
        async search(query: string, k: number) {
          const out = JSON.parse(
            await target.provider.handleToolCall('continuity_search', {
              query,
              limit: Math.min(Math.max(k, 1), 50),
            }),
          ) as { results?: Array<{ id: string }>; error?: string };
          if (out.error) throw new Error(`continuity_search: ${out.error}`);
          const ranked: string[] = [];
          for (const r of out.results ?? []) {
            const dia = target.diaOf.get(r.id);
            if (dia && !ranked.includes(dia)) ranked.push(dia);
          }
          return ranked.slice(0, k);
        },
        // What the provider puts in front of the model unasked: its gated recall block, each
        // record line attributed through its id (`- [kind · date · id] …`) to the turn it came from.
        prefetch: (query: string) => target.provider.prefetch(query),
        attribute: (injected: string) =>
          recordIds(injected).map((id) => {
            const dia = target.diaOf.get(id);
            return dia ? [dia] : [];
          }),
        async close() {
          target.close();
        },
        diskBytes() {
          let total = 0;
          const walk = (d: string) => {
            for (const f of fs.readdirSync(d, { withFileTypes: true })) {
              const p = path.join(d, f.name);
              if (f.isDirectory()) walk(p);
              else total += fs.statSync(p).size;
            }
          };
          if (fs.existsSync(target.dir)) walk(target.dir);
          return total;
        },
      };
    },
  };
}

/** Ids of the record lines of a continuity recall block, in order. */
export function recordIds(block: string): string[] {
  const ids: string[] = [];
  for (const line of block.split('\n')) {
    const m = /^- \[[^\]]*· ([^\s\]]+)\]/u.exec(line);
    if (m) ids.push(m[1]!);
  }
  return ids;
}
