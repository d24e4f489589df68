/**
 * Development baseline: what holographic's `prefetch` injects on the same LoCoMo questions
 * (precision, activation, cross-conversation and off-topic false activation), for comparison.
 *   node --import tsx scripts/holo-prefetch.ts [--convs=1-4] [--cross=40]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import { createHolographicProvider } from '../../holographic/src/provider';
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';

const data = loadLocomo(sharedPath(...LOCOMO_FILE_REL));
const convArg = process.argv.find((a) => a.startsWith('--convs='));
const [lo, hi] = convArg ? convArg.slice(8).split('-').map(Number) : [1, data.length];
const crossArg = process.argv.find((a) => a.startsWith('--cross='));
const crossPerConv = crossArg ? Number(crossArg.slice(8)) : 40;
const pre = { n: 0, activated: 0, injected: 0, relevant: 0, precisionSum: 0, chars: 0 };
const cross = { n: 0, activated: 0 };
for (const conv of data.slice((lo ?? 1) - 1, hi ?? data.length)) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-holo-pre-'));
  const p = createHolographicProvider({ embeddings: false });
  p.initialize('dev', { hermesHome: dir, platform: 'cli', agentContext: 'primary', logger: silentLogger });
  const ids = p.factStore!.addMany(
    conv.turns.map((t) => ({ content: t.text, occurredAt: t.sessionDate || undefined })),
  );
  const dia = new Map(ids.map((id, i) => [id, conv.turns[i]!.diaId]));
  for (const q of conv.questions) {
    if (q.gold.length === 0 || q.category === 5) continue;
    const text = await p.prefetch(q.question);
    const injected = [...text.matchAll(/\[id (\d+)\]/g)].map((m) => dia.get(Number(m[1])));
    pre.n++;
    pre.chars += text.length;
    if (injected.length) {
      pre.activated++;
      const rel = injected.filter((d) => d && q.gold.includes(d)).length;
      pre.injected += injected.length;
      pre.relevant += rel;
      pre.precisionSum += rel / injected.length;
    }
  }
  for (const other of data) {
    if (other === conv) continue;
    for (const q of other.questions.filter((x) => x.category !== 5).slice(0, crossPerConv)) {
      cross.n++;
      if (await p.prefetch(q.question)) cross.activated++;
    }
  }
  p.shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
}
const f = (x: number) => x.toFixed(3);
console.log(
  `holographic prefetch (n=${pre.n}): activated ${f(pre.activated / pre.n)}, precision (injected-weighted) ${f(pre.relevant / Math.max(1, pre.injected))}, ` +
    `precision (per activated question) ${f(pre.precisionSum / Math.max(1, pre.activated))}, records/activation ${(pre.injected / Math.max(1, pre.activated)).toFixed(2)}, chars/question ${(pre.chars / pre.n).toFixed(0)}`,
);
console.log(
  `holographic false activation: cross-conversation ${f(cross.activated / cross.n)} (n=${cross.n})`,
);
