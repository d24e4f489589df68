/**
 * Development A/B of prefetch latency for two settings on the same LoCoMo conversation (interleaved,
 * so machine load affects both alike). Not shipped; numbers are relative only.
 *   node --import tsx scripts/ab-latency.ts '{"weights":{"reply":0}}' '{}'
 */
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { ingestTurns, openContinuityStore } from '../../bench/src/retrievers/continuity';

const [a, b] = process.argv.slice(2).map((s) => JSON.parse(s));
const conv = loadLocomo(sharedPath(...LOCOMO_FILE_REL))[0]!;
const stores = [
  await openContinuityStore({ embeddings: false, settings: a }),
  await openContinuityStore({ embeddings: false, settings: b }),
];
for (const s of stores) await ingestTurns(s, conv.turns);
const qs = conv.questions.map((q) => q.question);
const times: number[][] = [[], []];
for (let round = 0; round < 4; round++)
  for (const q of qs)
    for (const i of round % 2 ? [1, 0] : [0, 1]) {
      const t = process.hrtime.bigint();
      await stores[i]!.provider.prefetch(q, { sessionId: 'ab' });
      if (round > 0) times[i]!.push(Number(process.hrtime.bigint() - t) / 1e6);
    }
const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.floor(p * (xs.length - 1))]!;
for (const [i, name] of ['A', 'B'].entries())
  console.log(
    `${name}: p50 ${pct(times[i]!, 0.5).toFixed(2)} ms, p90 ${pct(times[i]!, 0.9).toFixed(2)} ms (n=${times[i]!.length})`,
  );
for (const s of stores) s.close();
