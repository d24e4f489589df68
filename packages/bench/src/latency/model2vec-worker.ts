/**
 * Model2Vec load time, memory and throughput in a fresh process (so load is truly cold):
 *   node --import tsx src/latency/model2vec-worker.ts
 */

import { loadLocomo } from '../locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../paths';
import { loadModel2VecEmbedder } from '../retrievers/model2vec';
import { nowMs, round } from '../stats';

async function main(): Promise<void> {
  const sentences: string[] = [];
  for (const c of loadLocomo(sharedPath(...LOCOMO_FILE_REL))) {
    for (const t of c.turns)
      for (const s of t.text.split(/(?<=[.!?])\s+/)) if (s.length > 0) sentences.push(s);
  }
  const corpus = Array.from({ length: 20_000 }, (_, i) => sentences[i % sentences.length]!);
  const meanChars = corpus.reduce((a, s) => a + s.length, 0) / corpus.length;
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  const t0 = nowMs();
  const embedder = await loadModel2VecEmbedder(); // constructs, loads and embeds one warm-up text
  const loadMs = nowMs() - t0;
  const rss1 = process.memoryUsage().rss;
  const runs: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t1 = nowMs();
    for (let i = 0; i < corpus.length; i += 1024) await embedder.embed(corpus.slice(i, i + 1024));
    runs.push(corpus.length / ((nowMs() - t1) / 1000));
  }
  const single: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t2 = nowMs();
    await embedder.embed([corpus[i]!]);
    single.push(nowMs() - t2);
  }
  single.sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({
      ok: true,
      embedder: embedder.id,
      dimensions: embedder.dimensions,
      loadMs: round(loadMs, 2),
      modelRssMiB: round((rss1 - rss0) / 2 ** 20, 1),
      sentences: corpus.length,
      meanChars: round(meanChars, 1),
      sentencesPerSecond: round(Math.max(...runs), 0),
      sentencesPerSecondRuns: runs.map((r) => round(r, 0)),
      singleTextP50Ms: round(single[Math.floor(single.length / 2)]!, 4),
    })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stdout.write(
    `${JSON.stringify({ ok: false, error: err instanceof Error ? err.message : String(err) })}\n`,
  );
  process.exitCode = 1;
});
