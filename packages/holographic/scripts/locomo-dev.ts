/**
 * Development driver: LoCoMo dev split through FactStore directly (fresh store per conversation),
 * printing recall-any/all@k and MRR for cats 1-4. The bench package runs the official protocol;
 * this script reads the data with the bench's loader (same turn texts, dates and gold ids).
 *   node --import tsx scripts/locomo-dev.ts [reference|default] [--embed] [--dates] [--w={json}] [--convs=1-4] [--dump=1]
 * `--haystack` stores every turn of the other conversations first (the bench's haystack variant).
 * `--convs` selects conversations (1-based, inclusive) for held-out tuning: tune on 1-4, confirm on 5-7.
 * `--dates` stores each turn with its session date (`occurredAt`); `--dump=<category>` prints each
 * question of that category with the rank of each gold turn (-1 = not in the top 50) and the top 3.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { loadLocomo } from '../../bench/src/locomo/loader';
import type { LocomoTurn } from '../../bench/src/locomo/types';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { FactStore } from '../src/store';

const mode = (process.argv[2] ?? 'default') as 'default' | 'reference';
const weightsArg = process.argv.find((a) => a.startsWith('--w='));
const weights = weightsArg ? JSON.parse(weightsArg.slice(4)) : undefined;
const useDates = process.argv.includes('--dates');
const haystack = process.argv.includes('--haystack');
const dumpArg = process.argv.find((a) => a.startsWith('--dump='));
const dumpCat = dumpArg ? Number(dumpArg.slice(7)) : 0;

const data = loadLocomo(sharedPath(...LOCOMO_FILE_REL));
const convArg = process.argv.find((a) => a.startsWith('--convs='));
const [lo, hi] = convArg ? convArg.slice(8).split('-').map(Number) : [1, data.length];
const selected = data.slice((lo ?? 1) - 1, hi ?? data.length);

const ks = [1, 5, 10, 20];
const agg = new Map<string, { n: number; any: number[]; all: number[]; mrr: number }>();
const bump = (key: string, gold: string[], ranked: string[]) => {
  const a = agg.get(key) ?? { n: 0, any: ks.map(() => 0), all: ks.map(() => 0), mrr: 0 };
  a.n++;
  ks.forEach((k, i) => {
    const top = new Set(ranked.slice(0, k));
    if (gold.some((g) => top.has(g))) a.any[i]!++;
    if (gold.every((g) => top.has(g))) a.all[i]!++;
  });
  const first = ranked.findIndex((r) => gold.includes(r));
  if (first >= 0) a.mrr += 1 / (first + 1);
  agg.set(key, a);
};
const asItem = (t: LocomoTurn) => ({
  content: t.text,
  occurredAt: useDates && t.sessionDate.includes('T') ? t.sessionDate : undefined,
});

const embedder = process.argv.includes('--embed') ? await createDefaultEmbedder() : undefined;
const t0 = Date.now();
for (const conv of selected) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-locomo-'));
  const store = new FactStore({ dbPath: path.join(dir, 'm.db'), retrieval: mode, weights, embedder });
  // --haystack: every turn of the other conversations first; their ids are never mapped to gold.
  if (haystack) store.addMany(data.filter((o) => o !== conv).flatMap((o) => o.turns.map(asItem)));
  const ids = store.addMany(conv.turns.map(asItem));
  const idOf = new Map<number, string>();
  ids.forEach((id, i) => {
    if (!idOf.has(id)) idOf.set(id, conv.turns[i]!.diaId);
  });
  const textOf = new Map(conv.turns.map((t) => [t.diaId, t.text]));
  for (const qa of conv.questions) {
    if (qa.category === 5 || qa.gold.length === 0) continue;
    const res = await store.recall(qa.question, { limit: 50, minTrust: 0 });
    const ranked = [...new Set(res.map((r) => idOf.get(r.fact_id)!).filter(Boolean))];
    bump('all', qa.gold, ranked);
    bump(`cat${qa.category}`, qa.gold, ranked);
    if (qa.category === dumpCat) {
      console.log(`\nQ[${conv.conversationId}] ${qa.question}`);
      for (const g of qa.gold) console.log(`  ${g} @${ranked.indexOf(g)}: ${textOf.get(g)?.slice(0, 140)}`);
      console.log(
        `  top3: ${ranked
          .slice(0, 3)
          .map((d) => `${d} ${textOf.get(d)?.slice(0, 70)}`)
          .join(' || ')}`,
      );
    }
  }
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
for (const [key, a] of [...agg.entries()].sort()) {
  const f = (x: number) => (x / a.n).toFixed(3);
  console.log(
    `${key.padEnd(5)} n=${String(a.n).padEnd(4)} MRR ${f(a.mrr)} ` +
      ks.map((k, i) => `any@${k} ${f(a.any[i]!)} all@${k} ${f(a.all[i]!)}`).join(' | '),
  );
}
console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s`);
