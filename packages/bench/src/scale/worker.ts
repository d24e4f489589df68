/**
 * One scale measurement in a fresh process (clean RSS, crash isolation):
 *   node --import tsx src/scale/worker.ts <retriever> <n>
 * Prints one JSON line: ingest seconds, search (and, for stores that have one, prefetch) latency
 * summaries, RSS and disk size.
 */
import { loadRetrievers } from '../retrievers/registry';
import { nowMs, round, summarize } from '../stats';
import { buildScaleCorpus } from './corpus';

export interface LatencySummary {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

/** Each query once after 10 warm-up calls, timed one by one. */
async function timeEach(
  queries: readonly string[],
  call: (q: string) => Promise<unknown>,
): Promise<LatencySummary> {
  for (const q of queries.slice(0, 10)) await call(q);
  const times: number[] = [];
  for (const q of queries) {
    const t0 = nowMs();
    await call(q);
    times.push(nowMs() - t0);
  }
  const s = summarize(times);
  return { p50: round(s.p50, 4), p95: round(s.p95, 4), p99: round(s.p99, 4), mean: round(s.mean, 4) };
}

export interface ScalePoint {
  retriever: string;
  n: number;
  ok: boolean;
  error?: string;
  ingestSeconds?: number;
  ingestPerSecond?: number;
  searchMs?: LatencySummary;
  /** The store's own `prefetch` (what it injects unasked) on the same questions, when it has one. */
  prefetchMs?: LatencySummary;
  rssMiB?: number;
  peakRssMiB?: number;
  diskBytes?: number | null;
}

async function main(): Promise<ScalePoint> {
  const [name, nRaw] = process.argv.slice(2);
  const n = Number(nRaw);
  if (!name || !Number.isInteger(n) || n <= 0) throw new Error('usage: worker.ts <retriever> <n>');
  const [loaded] = await loadRetrievers([name]);
  if (!loaded || 'unavailable' in loaded)
    return { retriever: name, n, ok: false, error: loaded?.unavailable ?? 'not loaded' };
  const corpus = buildScaleCorpus(n);
  const session = await loaded.retriever.open('scale');
  try {
    const t0 = nowMs();
    await session.ingest(corpus.docs);
    const ingestSeconds = (nowMs() - t0) / 1000;
    const searchMs = await timeEach(corpus.queries, (q) => session.search(q, 10));
    const prefetch = session.prefetch?.bind(session);
    const prefetchMs = prefetch ? await timeEach(corpus.queries, prefetch) : undefined;
    return {
      retriever: name,
      n,
      ok: true,
      ingestSeconds: round(ingestSeconds, 3),
      ingestPerSecond: round(n / ingestSeconds, 1),
      searchMs,
      ...(prefetchMs ? { prefetchMs } : {}),
      rssMiB: round(process.memoryUsage().rss / 2 ** 20, 1),
      peakRssMiB: round(process.resourceUsage().maxRSS / 1024, 1),
      diskBytes: session.diskBytes ? session.diskBytes() : null,
    };
  } finally {
    await session.close();
  }
}

main().then(
  (point) => {
    process.stdout.write(`${JSON.stringify(point)}\n`);
  },
  (err: unknown) => {
    process.stdout.write(
      `${JSON.stringify({ retriever: process.argv[2], n: Number(process.argv[3]), ok: false, error: err instanceof Error ? err.message : String(err) })}\n`,
    );
    process.exitCode = 1;
  },
);
