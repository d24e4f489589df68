import fs from 'node:fs';
import path from 'node:path';
import { recallAll, recallAny } from '../locomo/metrics';
import type { LocomoTurn, Retriever } from '../locomo/types';
import { sharedPath } from '../paths';
import { table } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import { loadRetrievers } from '../retrievers/registry';
import {
  type LmeDocument,
  type LmeInstance,
  loadLongMemEval,
  ndcgAny,
  turnRankingToSessions,
} from './loader';

export const LME_K = [1, 3, 5, 10, 30, 50] as const;
const CANDIDATES = ['longmemeval_s_cleaned.json', 'longmemeval_s.json', 'longmemeval_oracle.json'];

interface Scores {
  n: number;
  any: Record<number, number>;
  all: Record<number, number>;
  ndcg: Record<number, number>;
}

export interface LmeRetrieverResult {
  retriever: string;
  granularity: 'session' | 'turn→session';
  overall: Scores;
  byType: Record<string, Scores>;
}

export interface LmeData {
  file: string | null;
  instances: number;
  scorable: number;
  results: LmeRetrieverResult[];
  unavailable: Array<{ retriever: string; reason: string }>;
}

function docsAsTurns(docs: readonly LmeDocument[]): LocomoTurn[] {
  return docs.map((d, i) => ({
    conversationId: 'lme',
    diaId: d.id,
    speaker: 'user',
    text: d.text,
    sessionIndex: i + 1,
    sessionDate: d.date,
    turnIndex: i,
  }));
}

function emptyScores(): { n: number; any: number[][]; all: number[][]; ndcg: number[][] } {
  return { n: 0, any: LME_K.map(() => []), all: LME_K.map(() => []), ndcg: LME_K.map(() => []) };
}

function finish(acc: ReturnType<typeof emptyScores>): Scores {
  const mean = (v: number[]) => (v.length ? v.reduce((a, b) => a + b, 0) / v.length : Number.NaN);
  const rec = (m: number[][]) => Object.fromEntries(LME_K.map((k, i) => [k, mean(m[i]!)]));
  return { n: acc.n, any: rec(acc.any), all: rec(acc.all), ndcg: rec(acc.ndcg) };
}

/** Score one retriever on the official protocol (§5.2): a fresh index per question over its own haystack. */
export async function scoreLongMemEval(
  retriever: Retriever,
  instances: readonly LmeInstance[],
  granularity: LmeRetrieverResult['granularity'],
): Promise<LmeRetrieverResult> {
  const overall = emptyScores();
  const byType = new Map<string, ReturnType<typeof emptyScores>>();
  for (const inst of instances) {
    if (!inst.scorable) continue;
    const session = await retriever.open(inst.questionId);
    let ranked: string[];
    try {
      if (granularity === 'session') {
        await session.ingest(docsAsTurns(inst.sessionDocs));
        ranked = await session.search(inst.question, 50);
      } else {
        await session.ingest(docsAsTurns(inst.turnDocs));
        const toSession = new Map(inst.turnDocs.map((d) => [d.id, d.sessionId]));
        ranked = turnRankingToSessions(
          await session.search(inst.question, 1000),
          (id) => toSession.get(id) ?? id,
        );
      }
    } finally {
      await session.close();
    }
    const acc = byType.get(inst.questionType) ?? emptyScores();
    byType.set(inst.questionType, acc);
    for (const target of [overall, acc]) {
      target.n++;
      LME_K.forEach((k, i) => {
        target.any[i]!.push(recallAny(ranked, inst.goldSessions, k));
        target.all[i]!.push(recallAll(ranked, inst.goldSessions, k));
        target.ndcg[i]!.push(ndcgAny(ranked, inst.goldSessions, k));
      });
    }
  }
  return {
    retriever: retriever.name,
    granularity,
    overall: finish(overall),
    byType: Object.fromEntries([...byType.entries()].map(([t, a]) => [t, finish(a)])),
  };
}

export async function runLongMemEvalSuite(ctx: SuiteContext, fileArg?: string): Promise<SuiteResult> {
  const started = Date.now();
  const file = fileArg
    ? path.resolve(fileArg)
    : (CANDIDATES.map((c) => sharedPath('bench', c)).find((p) => fs.existsSync(p)) ?? null);
  const data: LmeData = {
    file: file ? path.basename(file) : null,
    instances: 0,
    scorable: 0,
    results: [],
    unavailable: [],
  };
  if (file) {
    const instances = loadLongMemEval(file);
    data.instances = instances.length;
    data.scorable = instances.filter((i) => i.scorable).length;
    for (const entry of await loadRetrievers(ctx.retrievers ?? ['bm25', 'model2vec'])) {
      if ('unavailable' in entry) {
        data.unavailable.push({ retriever: entry.name, reason: entry.unavailable });
        continue;
      }
      ctx.log(`longmemeval: ${entry.name}`);
      data.results.push(await scoreLongMemEval(entry.retriever, instances, 'session'));
      data.results.push(await scoreLongMemEval(entry.retriever, instances, 'turn→session'));
    }
  }
  const lines = ['## LongMemEval retrieval', ''];
  if (!file) {
    lines.push(
      'Data not present: LongMemEval lives on Hugging Face, which this machine cannot reach. The loader and the official ' +
        'retrieval protocol (benchmarks.md §5.2: per-question haystack, user turns only, `_abs` and no-user-evidence ' +
        'questions skipped, recall_any/all and ndcg_any at k ∈ {1,3,5,10,30,50}) are implemented and tested on a ' +
        'hand-written fixture; run `pnpm bench longmemeval --longmemeval <longmemeval_s_cleaned.json>` once the file is supplied.',
    );
  } else {
    lines.push(
      `File \`${data.file}\`: ${data.instances} questions, ${data.scorable} scorable. ` +
        (data.file?.includes('oracle')
          ? '**Oracle haystacks (evidence sessions only): not comparable to published `_s` numbers.** '
          : '') +
        'Protocol: benchmarks.md §5.2 (official run_retrieval.py).',
      '',
      table(
        ['retriever', 'granularity', 'n', ...LME_K.flatMap((k) => [`any@${k}`, `all@${k}`]), 'ndcg@10'],
        data.results.map((r) => [
          r.retriever,
          r.granularity,
          r.overall.n,
          ...LME_K.flatMap((k) => [r.overall.any[k]!, r.overall.all[k]!]),
          r.overall.ndcg[10]!,
        ]),
      ),
      '',
      table(
        ['retriever', 'granularity', 'question type', 'n', 'any@5', 'all@5', 'any@10', 'ndcg@10'],
        data.results.flatMap((r) =>
          Object.entries(r.byType).map(([t, s]) => [
            r.retriever,
            r.granularity,
            t,
            s.n,
            s.any[5]!,
            s.all[5]!,
            s.any[10]!,
            s.ndcg[10]!,
          ]),
        ),
      ),
    );
    for (const u of data.unavailable) lines.push(`- **${u.retriever}** not measured: ${u.reason}`);
  }
  return {
    suite: 'longmemeval',
    title: 'LongMemEval retrieval',
    provenance: ctx.provenance,
    seconds: (Date.now() - started) / 1000,
    data,
    markdown: lines.join('\n'),
    svgs: {},
  };
}
