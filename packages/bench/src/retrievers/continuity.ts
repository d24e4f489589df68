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
import {
  type ContinuityProvider,
  type ContinuitySettings,
  createContinuityProvider,
  importCandidates,
  ingestText,
  review,
} from '@hermes-memory/continuity';
import { silentLogger } from '@hermes-memory/core';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import type { LocomoTurn, Retriever, RetrieverSession, Sweep } from '../locomo/types';
import { createManagerRetriever, toolJson } from './manager';

export interface ContinuityRetrieverOptions {
  /** true → the bundled Model2Vec embedder; false → lexical only. */
  embeddings: boolean;
  settings?: ContinuitySettings;
}

/**
 * The coverage bar the precision–recall curve moves (`gates.min_coverage`: the IDF-weighted share
 * of the message's topic words a record must contain to reach the prompt; default 0.5).
 */
export const CONTINUITY_SWEEP: Sweep = {
  label: 'coverage bar',
  values: [0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8],
  default: 0.5,
};

/** Settings with the swept coverage bar applied (undefined = the provider's default). */
function withBar(settings: ContinuitySettings | undefined, bar: number | undefined): ContinuitySettings {
  if (bar === undefined) return { ...settings };
  return { ...settings, gates: { ...settings?.gates, minCoverage: bar } };
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
  bar?: number,
): Promise<ContinuityLocomoStore> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-continuity-'));
  const provider = createContinuityProvider({
    embeddings: options.embeddings ? 'auto' : false,
    ...withBar(options.settings, bar),
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
    sweep: CONTINUITY_SWEEP,
    async open(_id: string, bar?: number): Promise<RetrieverSession> {
      const target = await openContinuityStore(options, bar);
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

/**
 * The live-agent stack: builtin + continuity in a `MemoryManager` with the provider's defaults
 * (`embeddings: 'auto'` loads the bundled Model2Vec; `false` = lexical). The model writes each fact
 * with the builtin `memory` tool, and continuity mirrors it into a record (`onMemoryWrite`, its
 * default `mirror_builtin`) — the path every fact takes in an agent with both installed. A record
 * is keyed by its summary (the fact's text), which is what its search results show.
 */
export function createContinuityLiveRetriever(options: { embeddings: boolean }): Retriever {
  return createManagerRetriever({
    name: `builtin+continuity${options.embeddings ? '+embeddings' : ''}`,
    description: `MemoryManager(builtin, continuity${options.embeddings ? " with embeddings: 'auto' (bundled Model2Vec)" : ', embeddings: false'}), facts written with the memory tool and mirrored`,
    create: (bar) => createContinuityProvider(withBar(options.embeddings ? {} : { embeddings: false }, bar)),
    context: () => ({ embedder: options.embeddings ? createDefaultEmbedder() : undefined }),
    async write(manager, content) {
      const raw = await manager.handleToolCall('memory', { action: 'add', target: 'memory', content });
      toolJson<{ success?: boolean }>(raw, 'memory add');
      return content.trim();
    },
    async search(manager, query, k) {
      const raw = await manager.handleToolCall('continuity_search', {
        query,
        limit: Math.min(Math.max(k, 1), 50),
      });
      return (toolJson<{ results?: Array<{ summary: string }> }>(raw, 'continuity_search').results ?? []).map(
        (r) => r.summary,
      );
    },
    sweep: CONTINUITY_SWEEP,
  });
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
