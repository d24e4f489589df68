/**
 * Development A/B of prefetch latency between two builds of this package (say main's `dist` copied
 * aside before a change, and the working tree's after `pnpm build`), on the same LoCoMo
 * conversations, interleaved so machine load affects both alike. Each build ingests into its own
 * store through the bench's `ingestTurns`; every question then goes through both providers' `prefetch`
 * (the first round warms and is not counted). Not shipped; numbers are relative only.
 * `--scale=N` uses the bench's scale corpus of N records and its 200 questions instead (one store per
 * build, as `packages/bench/src/scale`); `--search` times `continuity_search` (limit 10, what the
 * scale bench times) instead of `prefetch`.
 *   node --import tsx scripts/ab-build.ts .ab/main/index.js dist/index.js [--convs=1-2] [--rounds=4]
 *     [--scale=100000] [--search]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '@hermes-memory/core';
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { ingestTurns } from '../../bench/src/retrievers/continuity';
import { buildScaleCorpus } from '../../bench/src/scale/corpus';

type Build = Pick<typeof import('../src/index'), 'createContinuityProvider'>;

const args = process.argv.slice(2);
const builds = args.filter((a) => !a.startsWith('--'));
if (builds.length !== 2) throw new Error('usage: ab-build.ts <buildA/index.js> <buildB/index.js>');
const option = (name: string, fallback: string) =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const [lo, hi] = option('convs', '1').split('-').map(Number);
const rounds = Number(option('rounds', '4'));
const scale = Number(option('scale', '0'));
const search = args.includes('--search');

const modules = (await Promise.all(
  builds.map((b) => import(pathToFileURL(path.resolve(b)).href)),
)) as Build[];
const convs: Array<{ turns: Parameters<typeof ingestTurns>[1]; questions: Array<{ question: string }> }> =
  scale > 0
    ? [buildScaleCorpus(scale)].map((c) => ({
        turns: c.docs,
        questions: c.queries.map((question) => ({ question })),
      }))
    : loadLocomo(sharedPath(...LOCOMO_FILE_REL)).slice(lo! - 1, hi ?? lo);
const times: number[][] = [[], []];
for (const conv of convs) {
  const stores = [];
  for (const m of modules) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-ab-build-'));
    const provider = m.createContinuityProvider({ embeddings: false });
    await provider.initialize('ab', {
      hermesHome: dir,
      platform: 'bench',
      agentContext: 'primary',
      logger: silentLogger,
    });
    const close = () => {
      provider.shutdown();
      fs.rmSync(dir, { recursive: true, force: true });
    };
    const store = { provider, diaOf: new Map<string, string>(), rejected: 0, dir, close };
    await ingestTurns(store as never, conv.turns);
    stores.push(store);
  }
  const qs = conv.questions.map((q) => q.question);
  for (let round = 0; round < rounds; round++)
    for (const q of qs)
      for (const i of round % 2 ? [1, 0] : [0, 1]) {
        const t = process.hrtime.bigint();
        if (search) await stores[i]!.provider.handleToolCall('continuity_search', { query: q, limit: 10 });
        else await stores[i]!.provider.prefetch(q, { sessionId: 'ab' });
        if (round > 0) times[i]!.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
  for (const s of stores) s.close();
}
const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))]!;
for (const [i, name] of builds.entries())
  console.log(
    `${name}: p50 ${pct(times[i]!, 0.5).toFixed(3)} ms, p90 ${pct(times[i]!, 0.9).toFixed(3)} ms (n=${times[i]!.length})`,
  );
