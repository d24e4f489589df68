import { runTsChild } from '../child';
import { bytes, ms, table, verdict } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import { lineChart } from '../report/svg';
import { RETRIEVER_NAMES } from '../retrievers/registry';
import type { ScalePoint } from './worker';

/** Stores measured for scale (the dense baseline is included: it is a local store too). */
const DEFAULT_STORES = [
  'bm25',
  'builtin-session-search-or',
  'holographic',
  'holographic+embeddings',
  // Lexical only: its ingest (review-first import) is the slowest here; `--retriever` adds
  // continuity+embeddings.
  'continuity',
  'model2vec',
];
const DEFAULT_SIZES = [1_000, 10_000, 100_000];
const WORKER_TIMEOUT_MS = 240_000;

/**
 * The default suite must finish in 10 minutes on 2 cores: a 100k point runs only if it projects
 * under the point budget and the suite's elapsed time plus that projection stays under the suite
 * budget (the rest of the suite takes ≈ 2.5 min on an idle 2-core EPYC).
 */
const DEFAULT_POINT_BUDGET_S = 180;
const DEFAULT_SUITE_BUDGET_S = 480;

/** Linear projection of a point's wall time (ingest + 210 searches and prefetches) from a smaller measured point. */
function projectedSeconds(p: ScalePoint, n: number): number {
  const f = n / p.n;
  return (p.ingestSeconds ?? 0) * f + (((p.searchMs?.p95 ?? 0) + (p.prefetchMs?.p95 ?? 0)) * 210 * f) / 1000;
}

export interface ScaleSuiteData {
  sizes: number[];
  points: ScalePoint[];
  notes: string[];
}

/** Issue targets checked against the scale points. */
const TARGETS = [
  {
    store: 'builtin-session-search-or',
    n: 100_000,
    what: 'session_search (SessionStore.searchMessages, OR query) p50 over 100,000 stored messages',
    budgetMs: 10,
    pick: (p: ScalePoint) => p.searchMs?.p50,
  },
  {
    store: 'holographic',
    n: 10_000,
    what: 'holographic search p50 at 10k facts',
    budgetMs: 2,
    pick: (p: ScalePoint) => p.searchMs?.p50,
  },
  {
    store: 'holographic',
    n: 100_000,
    what: 'holographic search p50 at 100k facts',
    budgetMs: 15,
    pick: (p: ScalePoint) => p.searchMs?.p50,
  },
  {
    store: 'holographic',
    n: 100_000,
    what: 'holographic ingest of 100k facts',
    budgetMs: 30_000,
    pick: (p: ScalePoint) => (p.ingestSeconds === undefined ? undefined : p.ingestSeconds * 1000),
  },
] as const;

export async function runScaleSuite(ctx: SuiteContext): Promise<SuiteResult> {
  const started = Date.now();
  const stores = (ctx.retrievers ?? DEFAULT_STORES).filter((s) => RETRIEVER_NAMES.includes(s));
  const sizes = DEFAULT_SIZES;
  const data: ScaleSuiteData = { sizes, points: [], notes: [] };
  for (const store of stores) {
    for (const n of sizes) {
      if (n > 10_000 && !ctx.full) {
        const prev = data.points.find((p) => p.retriever === store && p.n === 10_000 && p.ok);
        const projected = prev ? projectedSeconds(prev, n) : Number.POSITIVE_INFINITY;
        const elapsed = (Date.now() - started) / 1000;
        const over =
          projected > DEFAULT_POINT_BUDGET_S
            ? `> ${DEFAULT_POINT_BUDGET_S} s budget`
            : elapsed + projected > DEFAULT_SUITE_BUDGET_S
              ? `after ${Math.round(elapsed)} s of the suite's ${DEFAULT_SUITE_BUDGET_S} s budget`
              : null;
        if (over) {
          const note = `${store} at ${n.toLocaleString('en-US')}: skipped in the default run (projected ≈ ${Math.round(projected)} s from the 10k point ${over}); run \`pnpm bench scale --full\``;
          data.notes.push(note);
          ctx.log(`scale: ${note}`);
          continue;
        }
      }
      ctx.log(`scale: ${store} @ ${n}`);
      const res = await runTsChild(
        'src/scale/worker.ts',
        [store, String(n)],
        ctx.full ? WORKER_TIMEOUT_MS * 3 : WORKER_TIMEOUT_MS,
      );
      const line = res.stdout.trim().split('\n').pop() ?? '';
      let point: ScalePoint;
      try {
        point = JSON.parse(line) as ScalePoint;
      } catch {
        point = {
          retriever: store,
          n,
          ok: false,
          error: res.timedOut
            ? `timed out after ${WORKER_TIMEOUT_MS / 1000} s`
            : `worker exited ${res.code ?? res.signal}: ${res.stderr.slice(-300)}`,
        };
      }
      data.points.push(point);
      if (!point.ok) {
        ctx.log(`scale: ${store} @ ${n} failed: ${point.error}`);
        break; // larger sizes of a failing/unavailable store are not attempted
      }
    }
  }
  return {
    suite: 'scale',
    title: 'Scale curves',
    provenance: ctx.provenance,
    seconds: (Date.now() - started) / 1000,
    data,
    markdown: renderScale(data),
    headline: scaleHeadline(data),
    svgs: renderScaleSvgs(data),
  };
}

function renderScale(data: ScaleSuiteData): string {
  const ok = data.points.filter((p) => p.ok);
  const lines = [
    '## Scale curves',
    '',
    'Each point is a fresh process: ingest N synthetic memories (two seeded LoCoMo sentences each, so the vocabulary is ' +
      'conversational), then 200 LoCoMo questions as searches (k = 10, after 10 warm-up queries). Ingest goes through each ' +
      "store's normal write path (one call with all N items). Stores with a `prefetch` (what they inject unasked) " +
      "then answer the same questions through it, timed the same way. RSS is the process's resident memory after the run; peak is `maxRSS` (it includes parsing the LoCoMo file the corpus is drawn from, ≈ 100 MiB of transient heap, so compare RSS across stores).",
    '',
    table(
      [
        'store',
        'N',
        'ingest',
        'ingest rate',
        'search p50',
        'search p95',
        'prefetch p50',
        'RSS',
        'peak RSS',
        'disk',
      ],
      ok.map((p) => [
        p.retriever,
        p.n,
        `${p.ingestSeconds!.toFixed(2)} s`,
        `${Math.round(p.ingestPerSecond!).toLocaleString('en-US')} /s`,
        ms(p.searchMs!.p50),
        ms(p.searchMs!.p95),
        p.prefetchMs ? ms(p.prefetchMs.p50) : '–',
        `${p.rssMiB} MiB`,
        `${p.peakRssMiB} MiB`,
        bytes(p.diskBytes ?? null),
      ]),
    ),
    '',
    '![search p50 vs N](scale-search.svg) ![ingest rate vs N](scale-ingest.svg)',
    '',
    '![RSS vs N](scale-rss.svg) ![disk size vs N](scale-disk.svg)',
    '',
  ];
  const targetRows = TARGETS.map((t) => {
    const p = data.points.find((x) => x.retriever === t.store && x.n === t.n && x.ok);
    const v = p ? t.pick(p) : undefined;
    return [
      t.what,
      t.budgetMs >= 1000 ? `< ${t.budgetMs / 1000} s` : `< ${t.budgetMs} ms`,
      v === undefined
        ? 'not measured in this run (see below)'
        : t.budgetMs >= 1000
          ? `${(v / 1000).toFixed(1)} s`
          : ms(v),
      v === undefined ? '–' : verdict(v, t.budgetMs),
    ];
  });
  lines.push('### Targets', '', table(['target', 'budget', 'measured', ''], targetRows), '');
  if (data.notes.length > 0) {
    lines.push('Skipped in this run:', '');
    for (const n of data.notes) lines.push(`- ${n}`);
    lines.push('');
  }
  const failed = data.points.filter((p) => !p.ok);
  if (failed.length > 0) {
    lines.push('Not measured:', '');
    for (const p of failed) lines.push(`- **${p.retriever}** at ${p.n}: ${p.error}`);
    lines.push('');
  }
  return lines.join('\n');
}

function renderScaleSvgs(data: ScaleSuiteData): Record<string, string> {
  const stores = [...new Set(data.points.filter((p) => p.ok).map((p) => p.retriever))];
  if (stores.length === 0) return {};
  const series = (pick: (p: ScalePoint) => number | undefined | null) =>
    stores.map((s) => ({
      name: s,
      values: data.sizes.map((n) => {
        const p = data.points.find((x) => x.retriever === s && x.n === n && x.ok);
        const v = p ? pick(p) : null;
        return v === undefined || v === null ? null : v;
      }),
    }));
  const common = { xLabel: 'stored items (N)' };
  return {
    'scale-search.svg': lineChart(
      data.sizes,
      series((p) => p.searchMs?.p50),
      { ...common, title: 'search p50 (ms) vs N', yLabel: 'ms', logY: true },
    ),
    'scale-ingest.svg': lineChart(
      data.sizes,
      series((p) => p.ingestPerSecond),
      { ...common, title: 'ingest rate (items/s) vs N', yLabel: 'items/s', logY: true },
    ),
    'scale-rss.svg': lineChart(
      data.sizes,
      series((p) => p.rssMiB),
      { ...common, title: 'RSS (MiB) vs N', yLabel: 'MiB' },
    ),
    'scale-disk.svg': lineChart(
      data.sizes,
      series((p) => (p.diskBytes ? p.diskBytes / 2 ** 20 : null)),
      { ...common, title: 'index size (MiB) vs N', yLabel: 'MiB', logY: true },
    ),
  };
}

function scaleHeadline(data: ScaleSuiteData): string[] {
  const at100k = data.points.filter((p) => p.ok && p.n === 100_000);
  if (at100k.length === 0) return [];
  return [
    'Search p50 at 100,000 items: ' +
      at100k
        .map(
          (p) =>
            `${p.retriever} ${ms(p.searchMs!.p50)} (ingest ${Math.round(p.ingestPerSecond!).toLocaleString('en-US')}/s)`,
        )
        .join('; ') +
      '.',
  ];
}
