/**
 * Development A/B of prefetch latency between two builds of this package (say main's `dist` copied
 * aside before a change, and the working tree's after `pnpm build`), on the same LoCoMo
 * conversations, interleaved so machine load affects both alike. Each build ingests into its own
 * store through the bench's `ingestTurns`; every question then goes through both providers' `prefetch`
 * (the first round warms and is not counted). Not shipped; numbers are relative only.
 *   node --import tsx scripts/ab-build.ts .ab/main/index.js dist/index.js [--convs=1-2] [--rounds=4]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { silentLogger } from '@hermes-memory/core';
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { ingestTurns } from '../../bench/src/retrievers/continuity';

type Build = Pick<typeof import('../src/index'), 'createContinuityProvider'>;

const args = process.argv.slice(2);
const builds = args.filter((a) => !a.startsWith('--'));
if (builds.length !== 2) throw new Error('usage: ab-build.ts <buildA/index.js> <buildB/index.js>');
const option = (name: string, fallback: string) =>
  args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const [lo, hi] = option('convs', '1').split('-').map(Number);
const rounds = Number(option('rounds', '4'));

const modules = (await Promise.all(
  builds.map((b) => import(pathToFileURL(path.resolve(b)).href)),
)) as Build[];
const convs = loadLocomo(sharedPath(...LOCOMO_FILE_REL)).slice(lo! - 1, hi ?? lo);
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
        await stores[i]!.provider.prefetch(q, { sessionId: 'ab' });
        if (round > 0) times[i]!.push(Number(process.hrtime.bigint() - t) / 1e6);
      }
  for (const s of stores) s.close();
}
const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))]!;
for (const [i, name] of builds.entries())
  console.log(
    `${name}: p50 ${pct(times[i]!, 0.5).toFixed(3)} ms, p90 ${pct(times[i]!, 0.9).toFixed(3)} ms (n=${times[i]!.length})`,
  );
