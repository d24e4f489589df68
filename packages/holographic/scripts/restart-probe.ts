/**
 * A restarted agent's search vs the importing process's (a local probe, not a timed test):
 *   node --import tsx scripts/restart-probe.ts build <db> <n>        ingest the scale suite's corpus
 *   node --import tsx scripts/restart-probe.ts search <db> <n> [module]  open a copy in this process
 *   node --import tsx scripts/restart-probe.ts inproc <n> [module]   ingest, then search, one process
 * `module`: a built `index.js` of the package (e.g. a copy of the baseline `dist/`); default: src.
 * Timed: the suite's 200 queries once (pass 1: each query's first run in this process), then again
 * (pass 2), after 10 other queries warm the JIT. Prints one JSON line: open ms, the warm-up's wall
 * and CPU ms (`FactStore.warmUp`, when the module has it; PROBE_NO_WARM=1 skips it), first query
 * ms, p50/p95 (wall) and CPU p50 of each pass, and a digest of pass 1's ranked ids and scores (equal digests = identical
 * rankings). PROBE_WRITES=1 (search mode): time a search after each of 100 adds instead.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildScaleCorpus } from '../../bench/src/scale/corpus';

type Store = {
  addMany(items: Array<{ content: string; occurredAt?: string }>): number[];
  recall(
    q: string,
    o: { limit: number; minTrust: number },
  ): Promise<Array<{ fact_id: number; score: number }>>;
  close(): void;
};
type StoreCtor = new (o: { dbPath: string }) => Store;

async function storeClass(spec: string | undefined): Promise<StoreCtor> {
  const mod = (await import(spec ? pathToFileURL(path.resolve(spec)).href : '../src/store')) as {
    FactStore: StoreCtor;
  };
  return mod.FactStore;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(3);
};

async function timeSearches(store: Store, n: number): Promise<Record<string, unknown>> {
  const queries = buildScaleCorpus(Math.max(n, 1), 210).queries;
  const timed = queries.slice(0, 200);
  const t0 = performance.now();
  await store.recall(queries[200]!, { limit: 10, minTrust: 0 });
  const firstMs = +(performance.now() - t0).toFixed(3);
  for (const q of queries.slice(201)) await store.recall(q, { limit: 10, minTrust: 0 });
  const digest = createHash('sha256');
  const passes: number[][] = [[], []];
  const cpus: number[][] = [[], []];
  for (const [p, times] of passes.entries())
    for (const q of timed) {
      const t = performance.now();
      const c = process.cpuUsage();
      const res = await store.recall(q, { limit: 10, minTrust: 0 });
      times.push(performance.now() - t);
      const cpu = process.cpuUsage(c);
      cpus[p]!.push((cpu.user + cpu.system) / 1000);
      if (p === 0) digest.update(`${q}\n${JSON.stringify(res.map((r) => [r.fact_id, r.score]))}\n`);
    }
  return {
    firstMs,
    pass1: { p50: pct(passes[0]!, 0.5), p95: pct(passes[0]!, 0.95), cpuP50: pct(cpus[0]!, 0.5) },
    pass2: { p50: pct(passes[1]!, 0.5), p95: pct(passes[1]!, 0.95), cpuP50: pct(cpus[1]!, 0.5) },
    digest: digest.digest('hex').slice(0, 16),
  };
}

/** PROBE_WRITES=1: an agent that adds a fact, then searches — 100 times; the searches are timed. */
async function timeAfterWrites(store: Store, n: number): Promise<Record<string, unknown>> {
  const queries = buildScaleCorpus(Math.max(n, 1), 210).queries;
  for (const q of queries.slice(200)) await store.recall(q, { limit: 10, minTrust: 0 });
  const times: number[] = [];
  for (let i = 0; i < 100; i++) {
    store.addMany([{ content: `probe note ${i}: the harbour ferry left at ${i % 12} o'clock` }]);
    const t = performance.now();
    await store.recall(queries[i]!, { limit: 10, minTrust: 0 });
    times.push(performance.now() - t);
  }
  return { afterAdd: { p50: pct(times, 0.5), p95: pct(times, 0.95) } };
}

async function main(): Promise<void> {
  const [cmd, a, b, c] = process.argv.slice(2);
  if (cmd === 'build' && a && b) {
    const FactStore = await storeClass(undefined);
    const corpus = buildScaleCorpus(Number(b));
    fs.rmSync(a, { force: true });
    const store = new FactStore({ dbPath: a });
    const t0 = performance.now();
    store.addMany(corpus.docs.map((t) => ({ content: t.text, occurredAt: t.sessionDate })));
    store.close();
    console.log(
      JSON.stringify({ built: a, n: Number(b), ingestS: +((performance.now() - t0) / 1000).toFixed(2) }),
    );
    return;
  }
  if (cmd === 'search' && a && b) {
    const FactStore = await storeClass(c);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-restart-'));
    const copy = path.join(dir, 'memory_store.db');
    fs.copyFileSync(a, copy);
    try {
      const t0 = performance.now();
      const store = new FactStore({ dbPath: copy });
      const openMs = +(performance.now() - t0).toFixed(3);
      const n = Number(b);
      // What the provider starts at initialize (absent in older builds): an agent is idle for a
      // while after it starts (the model's first call); the warm-up's cost is reported.
      const warmUp = (store as unknown as { warmUp?: () => Promise<void> }).warmUp?.bind(store);
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      // (Its timers are unref'd: something else must keep the process alive, as an agent does.)
      const alive = setInterval(() => {}, 1000);
      if (warmUp && process.env['PROBE_NO_WARM'] !== '1') await warmUp();
      clearInterval(alive);
      const cpu = process.cpuUsage(c0);
      const warm = {
        warmMs: +(performance.now() - w0).toFixed(1),
        warmCpuMs: +((cpu.user + cpu.system) / 1000).toFixed(1),
      };
      const out = {
        ...warm,
        ...(await (process.env['PROBE_WRITES'] === '1' ? timeAfterWrites : timeSearches)(store, n)),
      };
      store.close();
      console.log(JSON.stringify({ mode: 'restarted', module: c ?? 'src', n, openMs, ...out }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  if (cmd === 'inproc' && a) {
    const FactStore = await storeClass(b);
    const n = Number(a);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-restart-'));
    try {
      const store = new FactStore({ dbPath: path.join(dir, 'memory_store.db') });
      const corpus = buildScaleCorpus(n);
      const t0 = performance.now();
      store.addMany(corpus.docs.map((t) => ({ content: t.text, occurredAt: t.sessionDate })));
      const ingestS = +((performance.now() - t0) / 1000).toFixed(2);
      const out = await timeSearches(store, n);
      store.close();
      console.log(JSON.stringify({ mode: 'importing', module: b ?? 'src', n, ingestS, ...out }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    return;
  }
  throw new Error('usage: restart-probe.ts build <db> <n> | search <db> <n> [module] | inproc <n> [module]');
}

await main();
