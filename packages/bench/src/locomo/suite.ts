import fs from 'node:fs';
import { LOCOMO_AUDIT_DIR_REL, LOCOMO_FILE_REL, sharedPath } from '../paths';
import { bytes, ms, num, table } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import { barChart, lineChart } from '../report/svg';
import { loadRetrievers } from '../retrievers/registry';
import { round, summarize } from '../stats';
import { applyAudit, loadAudit } from './audit';
import { loadLocomo } from './loader';
import {
  GROUPS,
  type GroupMetrics,
  type GroupName,
  groupByCategory,
  K_VALUES,
  TOKEN_BUDGETS,
} from './metrics';
import { type LocomoRun, runLocomo } from './protocol';
import { loadOffTopicQuestions } from '../precision/data';
import { type PrecisionResult, measurePrecision } from '../precision/measure';
import { NoPrefetchError } from '../precision/protocol';
import { curveSvgs, curveTable, precisionHeadline, precisionTable, splitTable } from '../precision/report';
import { DEV_SPLIT, locomoProbeStores } from '../precision/scenarios';
import type { LocomoConversation } from './types';

export interface LocomoRetrieverResult {
  retriever: string;
  description: string;
  variant: 'dataset' | 'audited' | 'haystack';
  groups: Record<GroupName, GroupMetrics>;
  dropped: number;
  turns: number;
  conversations: number;
  ingestMsPerTurn: number;
  queryMs: { p50: number; p95: number; p99: number; mean: number };
  diskBytes: number | null;
}

export interface LocomoSuiteData {
  dataFile: string;
  conversations: string[];
  questions: number;
  auditChanged: number | null;
  results: LocomoRetrieverResult[];
  /** What each backend's prefetch injects (backends without a prefetch are absent). */
  precision: PrecisionResult[];
  /** The sweep's probe set: every other conversation's questions (`all`) or the next one's. */
  curveCross: 'all' | 'next';
  unavailable: Array<{ retriever: string; reason: string }>;
}

/** benchmarks.md §5.4 — plain FTS5 on the same 7 conversations, categories 1–4 (n = 1,033). */
/**
 * Retrievers also run with the haystack variant (each conversation stored after the other six:
 * ~7× the memories, other people on similar topics), so ranking is measured at a larger store.
 */
const HAYSTACK_RETRIEVERS = new Set(['bm25', 'holographic', 'holographic+embeddings']);
/** Per-category cut-offs: the issue's k = 1, 5, 10, 20, plus 50 (the search limit). */
const CATEGORY_KS = [1, 5, 10, 20, 50] as const;
const REFERENCE_BM25_DEV = { mrr: 0.453, any5: 0.578, any10: 0.67, all10: 0.552 };
/** benchmarks.md §5.4 — the Python holographic provider on the same data. */
const REFERENCE_PY_HOLOGRAPHIC = { mrr: 0.41, any5: 0.542, any10: 0.619, all10: 0.515 };

function summarizeRun(
  run: LocomoRun,
  description: string,
  variant: LocomoRetrieverResult['variant'],
): LocomoRetrieverResult {
  const q = summarize(run.queryMs);
  const ingest = run.ingestMsPerTurn.length
    ? run.ingestMsPerTurn.reduce((a, b) => a + b, 0) / run.ingestMsPerTurn.length
    : Number.NaN;
  return {
    retriever: run.retriever,
    description,
    variant,
    groups: groupByCategory(run.scores),
    dropped: run.dropped,
    turns: run.turns,
    conversations: run.conversations,
    ingestMsPerTurn: round(ingest, 4),
    queryMs: { p50: round(q.p50, 4), p95: round(q.p95, 4), p99: round(q.p99, 4), mean: round(q.mean, 4) },
    diskBytes: run.diskBytes,
  };
}

export interface LocomoSuiteOptions {
  /** Also run the audited-evidence sensitivity variant for every retriever (default: bm25 only). */
  auditAll?: boolean;
  /** Restrict to these conversation ids. */
  conversations?: string[];
}

export async function runLocomoSuite(
  ctx: SuiteContext,
  options: LocomoSuiteOptions = {},
): Promise<SuiteResult> {
  const started = Date.now();
  const dataFile = sharedPath(...LOCOMO_FILE_REL);
  if (!fs.existsSync(dataFile)) throw new Error(`LoCoMo data not found at ${dataFile}`);
  let conversations: LocomoConversation[] = loadLocomo(dataFile);
  // The reference rows of the report were measured on exactly this set (benchmarks.md §5.4).
  const usable = conversations
    .flatMap((c) => c.questions)
    .filter((q) => q.category <= 4 && q.gold.length > 0);
  if (usable.length !== 1033) {
    throw new Error(`LoCoMo: ${dataFile} has ${usable.length} usable category 1–4 questions, expected 1,033`);
  }
  if (options.conversations?.length) {
    conversations = conversations.filter((c) => options.conversations!.includes(c.conversationId));
  }
  const auditDir = sharedPath(...LOCOMO_AUDIT_DIR_REL);
  const audited = fs.existsSync(auditDir) ? applyAudit(conversations, loadAudit(auditDir)) : null;

  const loaded = await loadRetrievers(ctx.retrievers);
  const data: LocomoSuiteData = {
    dataFile: 'shared/bench/locomo-dev.json',
    conversations: conversations.map((c) => c.conversationId),
    questions: conversations.reduce((a, c) => a + c.questions.length, 0),
    auditChanged: audited?.changed ?? null,
    results: [],
    precision: [],
    curveCross: ctx.full ? 'all' : 'next',
    unavailable: [],
  };
  const offTopic = loadOffTopicQuestions();
  const probeStores = locomoProbeStores(conversations, offTopic);
  const curveStores = ctx.full ? probeStores : locomoProbeStores(conversations, offTopic, 'next');
  for (const entry of loaded) {
    if ('unavailable' in entry) {
      ctx.log(`locomo: ${entry.name} unavailable: ${entry.unavailable}`);
      data.unavailable.push({ retriever: entry.name, reason: entry.unavailable });
      continue;
    }
    const r = entry.retriever;
    ctx.log(`locomo: running ${r.name}`);
    try {
      const run = await runLocomo(r, conversations, { onProgress: ctx.log });
      data.results.push(summarizeRun(run, r.description ?? '', 'dataset'));
      if (audited && (options.auditAll || r.name === 'bm25')) {
        const runA = await runLocomo(r, audited.conversations);
        data.results.push(summarizeRun(runA, r.description ?? '', 'audited'));
      }
      if (HAYSTACK_RETRIEVERS.has(r.name)) {
        const runH = await runLocomo(r, conversations, { haystack: conversations });
        data.results.push(summarizeRun(runH, r.description ?? '', 'haystack'));
      }
      try {
        ctx.log(`locomo: what ${r.name}'s prefetch injects`);
        const values = ctx.full ? undefined : quickSweep(r.sweep?.values ?? [], r.sweep?.default);
        data.precision.push(await measurePrecision(r, probeStores, { curveStores, values }));
      } catch (err) {
        if (!(err instanceof NoPrefetchError)) throw err;
      }
    } catch (err) {
      const reason = `failed during the run: ${err instanceof Error ? err.message : String(err)}`;
      ctx.log(`locomo: ${r.name} ${reason}`);
      data.unavailable.push({ retriever: r.name, reason });
    }
  }
  return {
    suite: 'locomo',
    title: 'LoCoMo retrieval quality',
    provenance: ctx.provenance,
    seconds: (Date.now() - started) / 1000,
    data,
    markdown: renderLocomo(data),
    headline: locomoHeadline(data),
    svgs: { ...renderLocomoSvgs(data), ...curveSvgs(data.precision, 'locomo-prefetch', 'LoCoMo prefetch') },
  };
}

function label(r: LocomoRetrieverResult): string {
  if (r.variant === 'audited') return `${r.retriever} (audited evidence)`;
  if (r.variant === 'haystack') return `${r.retriever} (haystack)`;
  return r.retriever;
}

export function renderLocomo(data: LocomoSuiteData): string {
  const lines: string[] = ['## LoCoMo retrieval quality', ''];
  lines.push(
    `Protocol: benchmarks.md §5.1, turn level, retrieval only (no LLM). Data: \`${data.dataFile}\` ` +
      `(${data.conversations.length} conversations: ${data.conversations.join(', ')}; ${data.questions} QA items). ` +
      'A fresh store per conversation; every turn ingested in order as `"<speaker>: <text>"` + ` [shares <blip_caption>]`; ' +
      'query = the question verbatim; gold = normalised evidence ids (items with empty gold dropped). ' +
      'Headline = categories 1–4 pooled; cat 5 (adversarial) separately. Numeric category ids (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop). ' +
      '"(haystack)" rows: the same questions with every turn of the other conversations stored first in the same store ' +
      '(older memories of other people on similar topics, ≈ 7× the turns; ids prefixed so they are never gold).',
    '',
  );
  const main = data.results;
  if (main.length > 0) {
    lines.push('### Categories 1–4 pooled (headline)', '');
    const rows = main.map((r) => {
      const g = r.groups['cat1-4'];
      return [
        label(r),
        g.n,
        g.mrr,
        g.recallAny[1],
        g.recallAny[5],
        g.recallAny[10],
        g.recallAny[50],
        g.recallAll[5],
        g.recallAll[10],
        g.fracRecall[10],
        ms(r.ingestMsPerTurn),
        ms(r.queryMs.p50),
        ms(r.queryMs.p95),
        bytes(r.diskBytes),
      ];
    });
    rows.push(
      [
        'reference: plain FTS5, Python (benchmarks.md §5.4, same 7 conversations)',
        1033,
        REFERENCE_BM25_DEV.mrr,
        '–',
        REFERENCE_BM25_DEV.any5,
        REFERENCE_BM25_DEV.any10,
        '–',
        '–',
        REFERENCE_BM25_DEV.all10,
        '–',
        '–',
        '0.7 ms',
        '–',
        '–',
      ],
      [
        'reference: Python holographic (benchmarks.md §5.4)',
        1033,
        REFERENCE_PY_HOLOGRAPHIC.mrr,
        '–',
        REFERENCE_PY_HOLOGRAPHIC.any5,
        REFERENCE_PY_HOLOGRAPHIC.any10,
        '–',
        '–',
        REFERENCE_PY_HOLOGRAPHIC.all10,
        '–',
        '27 ms',
        '30 ms',
        '–',
        '–',
      ],
    );
    lines.push(
      table(
        [
          'retriever',
          'n',
          'MRR',
          'any@1',
          'any@5',
          'any@10',
          'any@50',
          'all@5',
          'all@10',
          'frac@10',
          'ingest / turn',
          'query p50',
          'query p95',
          'index size',
        ],
        rows,
      ),
      '',
      '![recall_any@k, categories 1–4](locomo-recall-any.svg) ![recall_all@k, categories 1–4](locomo-recall-all.svg)',
      '',
      '### Every k (categories 1–4)',
      '',
    );
    const kHead = K_VALUES.flatMap((k) => [`any@${k}`, `all@${k}`, `frac@${k}`]);
    lines.push(
      table(
        ['retriever', ...kHead],
        main.map((r) => {
          const g = r.groups['cat1-4'];
          return [label(r), ...K_VALUES.flatMap((k) => [g.recallAny[k], g.recallAll[k], g.fracRecall[k]])];
        }),
      ),
      '',
      '### Per category',
      '',
    );
    const catRows: Array<Array<string | number>> = [];
    for (const r of main) {
      for (const grp of GROUPS) {
        const g = r.groups[grp];
        catRows.push([
          label(r),
          grp,
          g.n,
          g.mrr,
          ...CATEGORY_KS.flatMap((k) => [g.recallAny[k], g.recallAll[k]]),
        ]);
      }
    }
    lines.push(
      table(
        ['retriever', 'subset', 'n', 'MRR', ...CATEGORY_KS.flatMap((k) => [`any@${k}`, `all@${k}`])],
        catRows,
      ),
      '',
      '![recall_any@10 per category](locomo-categories.svg)',
      '',
      '### Token budget (categories 1–4)',
      '',
      'Recall of the ranked turns whose text fits in a budget of returned tokens (⌈chars / 4⌉ each; benchmarks.md §5.1 step 4) — ' +
        "the fair comparison across granularities, next to vendors' tokens per query (Mem0 ≈ 7k, Zep ≈ 5.8k, full context ≈ 26k). " +
        'Only the top 50 are considered.',
      '',
      table(
        ['retriever', ...TOKEN_BUDGETS.flatMap((b) => [`any@${b} tok`, `all@${b} tok`])],
        main.map((r) => {
          const g = r.groups['cat1-4'];
          return [label(r), ...TOKEN_BUDGETS.flatMap((b) => [g.budgetAny[b], g.budgetAll[b]])];
        }),
      ),
      '',
      '### Session level (secondary; saturates fast: 19–32 sessions per conversation)',
      '',
      table(
        ['retriever', 'any@1', 'all@1', 'any@5', 'all@5', 'any@10', 'all@10'],
        main.map((r) => {
          const g = r.groups['cat1-4'];
          return [
            label(r),
            g.sessionRecallAny[1],
            g.sessionRecallAll[1],
            g.sessionRecallAny[5],
            g.sessionRecallAll[5],
            g.sessionRecallAny[10],
            g.sessionRecallAll[10],
          ];
        }),
      ),
      '',
    );
    if (data.auditChanged !== null) {
      lines.push(
        `The audited-evidence rows set \`evidence := correct_evidence\` from \`shared/bench/locomo-audit\` (${num(data.auditChanged)} questions change on these conversations). ` +
          'Run `bench locomo --audit` to get it for every retriever.',
        '',
      );
    }
    lines.push(
      'QA items dropped for an empty gold set after normalisation (all categories): ' +
        [...new Set(main.map((r) => r.dropped))].join(' / ') +
        '. Descriptions: ' +
        [...new Map(main.map((r) => [r.retriever, r.description])).entries()]
          .map(([n, d]) => `**${n}** — ${d}`)
          .join('; ') +
        '.',
      '',
    );
  }
  if (data.precision?.length > 0) lines.push(renderPrecision(data));
  if (data.unavailable.length > 0) {
    lines.push('Not measured in this run:', '');
    for (const u of data.unavailable) lines.push(`- **${u.retriever}**: ${u.reason}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** Without `--full`, every other value of a sweep (and its default): the curve is the costly part. */
function quickSweep(values: readonly number[], fallback: number | undefined): number[] {
  return values.filter((v, i) => i % 2 === 0 || v === fallback);
}

/** Recall@10 of a backend's own run (the dataset variant), for the precision table. */
function recallOf(data: LocomoSuiteData, retriever: string) {
  const r = data.results.find((x) => x.retriever === retriever && x.variant === 'dataset');
  if (!r) return undefined;
  return {
    any: r.groups['cat1-4'].recallAny[10],
    all: r.groups['cat1-4'].recallAll[10],
    multiHopAll: r.groups.cat1.recallAll[10],
  };
}

function renderPrecision(data: LocomoSuiteData): string {
  const offTopic = data.precision[0]?.summary.offTopic.n ?? 0;
  const lines = [
    '### What prefetch puts in front of the model',
    '',
    'Recall@k rewards filling the top k; a prompt pays for every line it carries. For each backend with a ' +
      '`prefetch` (BM25 and builtin session search have none: they are measured as their top 5 injected, a fixed fill), every question goes through it with ' +
      'a fresh store per conversation, and each injected line is attributed to the stored turn it contains. ' +
      "**Answerable** = the conversation's own questions (categories 1–4, gold in the store); **injected precision** = relevant / injected " +
      'lines, averaged over questions that injected anything; **precision, 1 gold** = the same over questions with one gold turn; **answer injected** = ' +
      'share of answerable questions with a gold turn injected; **false activation** = share of questions with no answer in the store where anything ' +
      "was injected: **cross** = every other conversation's questions asked against the store (other people, similar topics), **off-topic** = " +
      `the ${offTopic / Math.max(1, data.conversations.length)} general questions of \`packages/bench/data/off-topic-questions.json\` (trivia, coding, small talk) asked against every store.`,
    '',
    precisionTable(data.precision.map((result) => ({ result, recall: recallOf(data, result.retriever) }))),
    '',
  ];
  if (data.precision.some((r) => r.splits)) {
    const dev = data.conversations.filter((c) => DEV_SPLIT.locomo.includes(c));
    const heldOut = data.conversations.filter((c) => !DEV_SPLIT.locomo.includes(c));
    lines.push(
      `**Tuning split** (decision 0404): holographic's relevance and prefetch bar were chosen looking only at ${dev.join(', ')} and the ` +
        `even-numbered off-topic questions; ${heldOut.join(', ')} and the odd-numbered ones are held out (other backends were tuned on their own data; the split is shown for all alike). **dev** = the dev ` +
        "conversations' stores with their own questions, every other conversation's as cross and the even off-topic ones; " +
        "**held-out** = the held-out stores with theirs, every other conversation's and the odd off-topic ones.",
      '',
      splitTable(data.precision),
      '',
    );
  }
  if (data.precision.some((r) => r.curve)) {
    lines.push(
      '#### Precision–recall as the relevance bar moves',
      '',
      `Each point is a full run with \`prefetchMinRelevance\` at that value (labelled on the curve; \`--full\` runs every value). Probe set: ${
        data.curveCross === 'all'
          ? 'as above'
          : "the conversation's own questions, the **next** conversation's questions as cross negatives (not all six: run with `--full` for those) and the off-topic set"
      }.`,
      '',
      '![injected precision vs answer injected](locomo-prefetch-precision-recall.svg) ![false activation vs answer injected](locomo-prefetch-false-activation.svg)',
      '',
      curveTable(data.precision),
      '',
    );
  }
  return lines.join('\n');
}

function renderLocomoSvgs(data: LocomoSuiteData): Record<string, string> {
  const main = data.results;
  if (main.length === 0) return {};
  const ks = [...K_VALUES];
  const series = (pick: (g: GroupMetrics) => Record<number, number>) =>
    main.map((r) => ({ name: label(r), values: ks.map((k) => pick(r.groups['cat1-4'])[k] ?? null) }));
  const cats = ['cat1', 'cat2', 'cat3', 'cat4', 'cat5'] as const;
  return {
    'locomo-recall-any.svg': lineChart(
      ks,
      series((g) => g.recallAny),
      {
        title: 'LoCoMo recall_any@k (categories 1–4)',
        xLabel: 'k',
        yLabel: 'recall_any@k',
        yMin: 0,
        yMax: 1,
      },
    ),
    'locomo-recall-all.svg': lineChart(
      ks,
      series((g) => g.recallAll),
      {
        title: 'LoCoMo recall_all@k (categories 1–4)',
        xLabel: 'k',
        yLabel: 'recall_all@k',
        yMin: 0,
        yMax: 1,
      },
    ),
    'locomo-categories.svg': barChart(
      [...cats],
      main.map((r) => ({ name: label(r), values: cats.map((c) => r.groups[c].recallAny[10]) })),
      { title: 'LoCoMo recall_any@10 per category', yLabel: 'recall_any@10', yMin: 0, yMax: 1 },
    ),
  };
}

function locomoHeadline(data: LocomoSuiteData): string[] {
  const rows = data.results.filter((r) => r.variant === 'dataset');
  if (rows.length === 0) return [];
  const fmt = (r: LocomoRetrieverResult) => {
    const g = r.groups['cat1-4'];
    return `${r.retriever} ${num(g.recallAny[10])} / ${num(g.recallAll[10])} (MRR ${num(g.mrr)}, query p50 ${ms(r.queryMs.p50)})`;
  };
  const hay = data.results.filter((r) => r.variant === 'haystack');
  const injects = (data.precision ?? []).filter(
    (r) => r.retriever.startsWith('holographic') || r.retriever === 'bm25',
  );
  return [
    `LoCoMo (${data.conversations.length} conversations, categories 1–4, n = ${rows[0]!.groups['cat1-4'].n}) recall_any@10 / recall_all@10: ` +
      rows.map(fmt).join('; ') +
      '.',
    ...(hay.length > 0
      ? [
          'LoCoMo with the other conversations stored first as a haystack (≈ 7× the turns), recall_any@10 / recall_all@10: ' +
            hay.map(fmt).join('; ') +
            '.',
        ]
      : []),
    ...(injects.length > 0
      ? [
          `What prefetch injects on LoCoMo (answerable questions; negatives: other conversations' questions, off-topic questions): ${injects.map(precisionHeadline).join('; ')}.`,
        ]
      : []),
  ];
}
