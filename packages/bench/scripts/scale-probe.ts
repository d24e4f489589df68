/**
 * A/B probe for the scale targets, without the whole suite:
 *   node --import tsx scripts/scale-probe.ts <session|holographic> <n> [moduleA] [moduleB] [rounds]
 * Seeds N items exactly as the scale suite does (same corpus, same write path), then times the
 * suite's 200 queries through each module given (a built `index.js` of the package, e.g. a copy of
 * the baseline `dist/`), interleaved query by query, `rounds` times, over the same stored data.
 * Prints, per module, the p50 / p95 and a digest of every query's ranked result ids, so a speed-up
 * that changes any ranking shows up as a different digest. Without modules, the installed package.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import inspector from 'node:inspector';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { initContext } from '../src/providers';
import { buildScaleCorpus } from '../src/scale/corpus';
import { nowMs, summarize } from '../src/stats';

type Search = (q: string) => Promise<unknown[]> | unknown[];

interface Arm {
  label: string;
  search: Search;
  close(): Promise<void> | void;
}

async function load(spec: string | undefined, pkg: string): Promise<Record<string, unknown>> {
  if (!spec) return (await import(pkg)) as Record<string, unknown>;
  return (await import(pathToFileURL(path.resolve(spec)).href)) as Record<string, unknown>;
}

const toOr = (q: string, terms: (q: string) => string[]) => terms(q).join(' OR ');

async function sessionArms(n: number, specs: Array<string | undefined>): Promise<Arm[]> {
  const { queryTerms } = await import('../src/retrievers/fts-query');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-probe-session-'));
  const dbPath = path.join(dir, 'state.db');
  const corpus = buildScaleCorpus(n);
  const mods = await Promise.all(specs.map((s) => load(s, '@hermes-memory/builtin')));
  type Store = {
    createSession(id: string, o: { source: string; startedAt: number }): void;
    appendMessages(id: string, m: Array<{ role: string; content: string; timestamp: number }>): number[];
    searchMessages(q: string, o: { limit: number }): Array<{ id: number; snippet?: string }>;
    close(): void;
  };
  const Ctor = (m: Record<string, unknown>) => m['SessionStore'] as new (o: { dbPath: string }) => Store;
  const writer = new (Ctor(mods[0]!))({ dbPath });
  const t0 = nowMs();
  const bySession = new Map<number, typeof corpus.docs>();
  for (const t of corpus.docs) bySession.set(t.sessionIndex, [...(bySession.get(t.sessionIndex) ?? []), t]);
  for (const [s, list] of bySession) {
    const sid = `scale-s${s}`;
    const base = Date.parse(list[0]!.sessionDate) / 1000;
    writer.createSession(sid, { source: 'cli', startedAt: base });
    writer.appendMessages(
      sid,
      list.map((t, i) => ({ role: 'user', content: t.text, timestamp: base + i })),
    );
  }
  process.stderr.write(`ingest ${((nowMs() - t0) / 1000).toFixed(2)} s\n`);
  writer.close();
  return mods.map((m, i) => {
    const store = new (Ctor(m))({ dbPath });
    return {
      label: specs[i] ?? '@hermes-memory/builtin',
      // The snippet is part of what the tool returns: digest it too.
      search: (q: string) =>
        store.searchMessages(toOr(q, queryTerms), { limit: 10 }).map((h) => `${h.id}|${h.snippet}`),
      close: () => {
        store.close();
        if (i === mods.length - 1) fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
}

async function holographicArms(n: number, specs: Array<string | undefined>): Promise<Arm[]> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-probe-holo-'));
  const corpus = buildScaleCorpus(n);
  const mods = await Promise.all(specs.map((s) => load(s, '@hermes-memory/holographic')));
  type Provider = {
    initialize(sid: string, ctx: unknown): Promise<void>;
    factStore?: { addMany(items: Array<{ content: string; occurredAt?: string }>): unknown };
    handleToolCall(name: string, args: Record<string, unknown>): Promise<string>;
    shutdown(): Promise<void>;
  };
  const create = (m: Record<string, unknown>) =>
    (m['createHolographicProvider'] as (o: Record<string, unknown>) => Provider)({
      compat: 'default',
      embeddings: false,
    });
  // PROBE_FRESH=1: ingest with a provider of its own, then open every arm afresh (a restarted
  // agent); by default the first arm is the writer, as in the scale suite.
  const fresh = process.env['PROBE_FRESH'] === '1';
  if (fresh) {
    const writer = create(mods[0]!);
    await writer.initialize('bench', initContext(home, { platform: 'bench' }));
    const t0 = nowMs();
    await writer.factStore!.addMany(corpus.docs.map((t) => ({ content: t.text, occurredAt: t.sessionDate })));
    process.stderr.write(`ingest ${((nowMs() - t0) / 1000).toFixed(2)} s\n`);
    await writer.shutdown();
  }
  const arms: Arm[] = [];
  for (const [i, m] of mods.entries()) {
    const provider = create(m);
    await provider.initialize('bench', initContext(home, { platform: 'bench' }));
    if (i === 0 && !fresh) {
      const t0 = nowMs();
      await provider.factStore!.addMany(
        corpus.docs.map((t) => ({ content: t.text, occurredAt: t.sessionDate })),
      );
      process.stderr.write(`ingest ${((nowMs() - t0) / 1000).toFixed(2)} s\n`);
    }
    arms.push({
      label: specs[i] ?? '@hermes-memory/holographic',
      search: async (q: string) => {
        const raw = await provider.handleToolCall('fact_store', {
          action: 'search',
          query: q,
          limit: 10,
          min_trust: 0,
        });
        const parsed = JSON.parse(raw) as { results?: Array<{ fact_id: number; score?: number }> };
        return (parsed.results ?? []).map((r) => `${r.fact_id}|${r.score}`);
      },
      close: async () => {
        await provider.shutdown();
        if (i === mods.length - 1) fs.rmSync(home, { recursive: true, force: true });
      },
    });
  }
  return arms;
}

async function main(): Promise<void> {
  const [kind, nRaw, a, b, roundsRaw] = process.argv.slice(2);
  const n = Number(nRaw);
  if ((kind !== 'session' && kind !== 'holographic') || !Number.isInteger(n) || n <= 0)
    throw new Error('usage: scale-probe.ts <session|holographic> <n> [moduleA] [moduleB] [rounds]');
  const specs = b ? [a, b] : [a];
  const rounds = Number(roundsRaw ?? 3);
  const arms = kind === 'session' ? await sessionArms(n, specs) : await holographicArms(n, specs);
  const queries = buildScaleCorpus(1).queries;
  const times = arms.map(() => [] as number[]);
  const digests = arms.map(() => createHash('sha256'));
  for (const arm of arms) for (const q of queries.slice(0, 10)) await arm.search(q);
  // PROBE_PROFILE=<file.cpuprofile>: a CPU profile of the timed queries only.
  const profileTo = process.env['PROBE_PROFILE'];
  const session = profileTo ? new inspector.Session() : null;
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session!.post(method, params ?? {}, (err, res) => (err ? reject(err) : resolve(res))),
    );
  if (session) {
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 200 });
    await post('Profiler.start');
  }
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      // Alternate which arm goes first so neither always runs on a warmer cache.
      const order = arms.map((_, i) => i);
      if ((r + queries.indexOf(q)) % 2 === 1) order.reverse();
      for (const i of order) {
        const t0 = nowMs();
        const ids = await arms[i]!.search(q);
        times[i]!.push(nowMs() - t0);
        if (r === 0) digests[i]!.update(`${q}\n${JSON.stringify(ids)}\n`);
      }
    }
  }
  if (session && profileTo) {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    fs.writeFileSync(profileTo, JSON.stringify(profile));
  }
  for (const [i, arm] of arms.entries()) {
    const s = summarize(times[i]!);
    process.stdout.write(
      `${JSON.stringify({ arm: arm.label, n, rounds, p50: +s.p50.toFixed(3), p95: +s.p95.toFixed(3), digest: digests[i]!.digest('hex').slice(0, 16) })}\n`,
    );
    await arm.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
