/**
 * `pnpm bench mem0-oss` — Mem0 OSS offline (`mem0ai/oss` in process, decision 0911): no LLM, so
 * every add is verbatim (infer=false), embedded with the bundled Model2Vec. Measures `mem0_add`
 * and `mem0_search` latency through the provider's tools at each size (a fresh store filled to N
 * with the scale corpus, then the searches), and LoCoMo recall through those tools next to the
 * BM25 baseline on the same conversations — context, not a target: it is mem0's algorithm.
 * Nothing is written under ~/.mem0 (HOME points at a temp dir while it runs); telemetry is off.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadLocomo } from '../locomo/loader';
import { type GroupMetrics, groupByCategory } from '../locomo/metrics';
import { runLocomo } from '../locomo/protocol';
import { LOCOMO_FILE_REL, sharedPath } from '../paths';
import { initContext, tempHome } from '../providers';
import { ms, table } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import { createBm25Retriever } from '../retrievers/bm25';
import { loadModel2VecEmbedder } from '../retrievers/model2vec';
import { buildScaleCorpus } from '../scale/corpus';
import { nowMs, type Summary, summarize } from '../stats';
import { createMem0OssRetriever, loadMem0, MEM0_OSS, tool } from './retriever';

export interface Mem0OssOptions {
  sizes?: number[];
  /** Searches timed per size. */
  queries?: number;
  /** LoCoMo conversations (default: all of the dev file); empty array: skip LoCoMo. */
  conversations?: string[];
  /** A size is skipped when the previous one projects its adds over this (default 900 s). */
  maxAddSeconds?: number;
}

interface SizePoint {
  n: number;
  add?: Summary;
  addSeconds?: number;
  /** Adds the write scanner refused (not stored). */
  blocked?: number;
  search?: Summary;
  skipped?: string;
}

interface LocomoPoint {
  retriever: string;
  pooled: GroupMetrics;
  queryMs: Summary;
  seconds: number;
}

export interface Mem0OssData {
  sizes: SizePoint[];
  /** 1-minute load average when the suite ended (the start's is in the provenance). */
  loadAtEnd?: number;
  locomo: { conversations: string[]; rows: LocomoPoint[] } | null;
}

export async function runMem0OssSuite(ctx: SuiteContext, options: Mem0OssOptions = {}): Promise<SuiteResult> {
  const started = Date.now();
  const savedHome = process.env.HOME;
  const savedTelemetry = process.env.MEM0_TELEMETRY;
  const userHome = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-mem0-userhome-'));
  process.env.HOME = userHome;
  process.env.MEM0_TELEMETRY = 'false';
  try {
    const embedder = await loadModel2VecEmbedder();
    const data: Mem0OssData = {
      sizes: await measureSizes(ctx, embedder, options),
      locomo: null,
    };
    if (options.conversations === undefined || options.conversations.length > 0) {
      let conversations = loadLocomo(sharedPath(...LOCOMO_FILE_REL));
      if (options.conversations)
        conversations = conversations.filter((c) => options.conversations!.includes(c.conversationId));
      const rows: LocomoPoint[] = [];
      for (const retriever of [createBm25Retriever(), await createMem0OssRetriever(embedder)]) {
        ctx.log(`mem0-oss: LoCoMo with ${retriever.name}`);
        const t0 = Date.now();
        const run = await runLocomo(retriever, conversations, { onProgress: ctx.log });
        rows.push({
          retriever: retriever.name,
          pooled: groupByCategory(run.scores)['cat1-4'],
          queryMs: summarize(run.queryMs),
          seconds: (Date.now() - t0) / 1000,
        });
      }
      data.locomo = { conversations: conversations.map((c) => c.conversationId), rows };
    }
    data.loadAtEnd = Math.round(os.loadavg()[0]! * 100) / 100;
    return {
      suite: 'mem0-oss',
      title: 'Mem0 OSS offline',
      provenance: ctx.provenance,
      seconds: (Date.now() - started) / 1000,
      data,
      markdown: renderMem0Oss(data),
      headline: headline(data),
      svgs: {},
    };
  } finally {
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
    if (savedTelemetry === undefined) delete process.env.MEM0_TELEMETRY;
    else process.env.MEM0_TELEMETRY = savedTelemetry;
    fs.rmSync(userHome, { recursive: true, force: true });
  }
}

async function measureSizes(
  ctx: SuiteContext,
  embedder: Awaited<ReturnType<typeof loadModel2VecEmbedder>>,
  options: Mem0OssOptions,
): Promise<SizePoint[]> {
  const { Mem0Provider } = await loadMem0();
  const maxSeconds = options.maxAddSeconds ?? 900;
  const points: SizePoint[] = [];
  let perAddMs: number | undefined;
  for (const n of options.sizes ?? [1_000, 10_000]) {
    const projected = perAddMs === undefined ? 0 : (perAddMs * n) / 1000;
    if (projected > maxSeconds) {
      const skipped = `projected ${Math.round(projected)} s of adds from the previous size > ${maxSeconds} s`;
      ctx.log(`mem0-oss: ${n} skipped (${skipped})`);
      points.push({ n, skipped });
      continue;
    }
    const corpus = buildScaleCorpus(n, options.queries ?? 100);
    const { home, cleanup } = tempHome('hm-bench-mem0-oss-');
    const provider = new Mem0Provider({ mode: 'oss', oss: MEM0_OSS });
    try {
      await provider.initialize('bench', initContext(home, { embedder }));
      const adds: number[] = [];
      let blocked = 0;
      const t0 = nowMs();
      for (const [i, doc] of corpus.docs.entries()) {
        const a = nowMs();
        const answer = await tool(provider, 'mem0_add', { content: doc.text });
        adds.push(nowMs() - a);
        // The write scanner refuses a few corpus sentences (as it would in an agent): counted, not fatal.
        if (answer.error && /^Blocked:/.test(String(answer.error))) blocked += 1;
        else if (answer.error) throw new Error(`mem0_add #${i}: ${String(answer.error)}`);
        if ((i + 1) % 1000 === 0) ctx.log(`mem0-oss: ${n}: ${i + 1} added`);
      }
      const addSeconds = (nowMs() - t0) / 1000;
      perAddMs = (addSeconds * 1000) / n;
      const searches: number[] = [];
      for (const q of corpus.queries) {
        const a = nowMs();
        const answer = await tool(provider, 'mem0_search', { query: q, top_k: 10 });
        searches.push(nowMs() - a);
        if (answer.error) throw new Error(`mem0_search: ${String(answer.error)}`);
      }
      points.push({ n, add: summarize(adds), addSeconds, blocked, search: summarize(searches) });
      ctx.log(
        `mem0-oss: ${n}: adds ${addSeconds.toFixed(1)} s, search p50 ${summarize(searches).p50.toFixed(1)} ms`,
      );
    } finally {
      await provider.shutdown();
      cleanup();
    }
  }
  return points;
}

export function renderMem0Oss(data: Mem0OssData): string {
  const out = [
    '## Mem0 OSS offline',
    '',
    '`mem0ai/oss` in process with no LLM: every add is stored verbatim (`infer: false`) and embedded with the',
    'bundled Model2Vec (potion-base-2M); search is mem0’s own vector search over its SQLite store. Every call',
    'goes through the provider’s tools (`mem0_add`, `mem0_search` top 10), as an agent makes them.',
    ...(data.loadAtEnd !== undefined
      ? [`1-minute load average at the end: ${data.loadAtEnd} (the start's is below).`]
      : []),
    '',
    table(
      [
        'memories',
        'mem0_add p50',
        'p95',
        'p99',
        'all adds',
        'refused by the scanner',
        'mem0_search p50',
        'p95',
        'p99',
        'searches',
      ],
      data.sizes.map((p) =>
        p.skipped
          ? [p.n.toLocaleString('en-US'), `skipped: ${p.skipped}`, '', '', '', '', '', '', '', '']
          : [
              p.n.toLocaleString('en-US'),
              ms(p.add!.p50),
              ms(p.add!.p95),
              ms(p.add!.p99),
              `${p.addSeconds!.toFixed(1)} s`,
              String(p.blocked ?? 0),
              ms(p.search!.p50),
              ms(p.search!.p95),
              ms(p.search!.p99),
              String(p.search!.n),
            ],
      ),
    ),
  ];
  if (data.locomo) {
    out.push(
      '',
      `LoCoMo recall through the tools (${data.locomo.conversations.length} conversations: ${data.locomo.conversations.join(', ')}; categories 1–4; a fresh store per conversation, turns added in order, questions verbatim), next to the BM25 baseline — context, not a target:`,
      '',
      table(
        [
          'retriever',
          'questions',
          'R@5 any',
          'R@10 any',
          'R@10 all',
          'MRR',
          'query p50',
          'query p95',
          'wall',
        ],
        data.locomo.rows.map((r) => [
          r.retriever,
          String(r.pooled.n),
          r.pooled.recallAny[5].toFixed(3),
          r.pooled.recallAny[10].toFixed(3),
          r.pooled.recallAll[10].toFixed(3),
          r.pooled.mrr.toFixed(3),
          ms(r.queryMs.p50),
          ms(r.queryMs.p95),
          `${Math.round(r.seconds)} s`,
        ]),
      ),
    );
  }
  return out.join('\n');
}

function headline(data: Mem0OssData): string[] {
  const lines: string[] = [];
  const largest = [...data.sizes].reverse().find((p) => p.search);
  if (largest)
    lines.push(
      `Mem0 OSS offline at ${largest.n.toLocaleString('en-US')} memories: mem0_add p50 ${ms(largest.add!.p50)}, mem0_search p50 ${ms(largest.search!.p50)}.`,
    );
  const mem0 = data.locomo?.rows.find((r) => r.retriever === 'mem0-oss');
  const bm25 = data.locomo?.rows.find((r) => r.retriever === 'bm25');
  if (mem0 && bm25)
    lines.push(
      `Mem0 OSS offline LoCoMo R@10 (any, cat 1–4): ${mem0.pooled.recallAny[10].toFixed(3)} vs BM25 ${bm25.pooled.recallAny[10].toFixed(3)}.`,
    );
  return lines;
}
