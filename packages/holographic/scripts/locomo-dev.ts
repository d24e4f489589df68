/**
 * Development driver: LoCoMo dev split through FactStore directly (fresh store per conversation),
 * printing recall-any/all@k and MRR for cats 1-4. The bench package runs the official protocol.
 *   node --import tsx scripts/locomo-dev.ts [reference|default] [--embed] [--dates] [--w={json}] [--convs=1-4] [--dump=1]
 * `--haystack` stores every turn of the other conversations first (the bench's haystack variant).
 * `--convs` selects conversations (1-based, inclusive) for held-out tuning: tune on 1-4, confirm on 5-7.
 * `--dates` stores each turn with its session date (`occurredAt`); `--dump=<category>` prints each
 * question of that category with the rank of each gold turn (-1 = not in the top 50) and the top 3.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { FactStore } from '../src/store';

const here = path.dirname(fileURLToPath(import.meta.url));
const dataPath = path.resolve(here, '../../../../shared/bench/locomo-dev.json');
const mode = (process.argv[2] ?? 'default') as 'default' | 'reference';
const weightsArg = process.argv.find((a) => a.startsWith('--w='));
const weights = weightsArg ? JSON.parse(weightsArg.slice(4)) : undefined;

interface Qa {
  question: string;
  evidence: string[];
  category: number;
}
const data = JSON.parse(fs.readFileSync(dataPath, 'utf8')) as Array<{
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Qa[];
}>;
const convArg = process.argv.find((a) => a.startsWith('--convs='));
const [lo, hi] = convArg ? convArg.slice(8).split('-').map(Number) : [1, data.length];
const selected = data.slice((lo ?? 1) - 1, hi ?? data.length);
const ks = [1, 5, 10, 20];
const haystack = process.argv.includes('--haystack');
const dumpArg = process.argv.find((a) => a.startsWith('--dump='));
const dump = Boolean(dumpArg);
const dumpCat = dumpArg ? Number(dumpArg.slice(7)) : 0;
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
const embedder = process.argv.includes('--embed') ? await createDefaultEmbedder() : undefined;
const t0 = Date.now();
for (const conv of selected) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-locomo-'));
  const store = new FactStore({ dbPath: path.join(dir, 'm.db'), retrieval: mode, weights, embedder });
  const idOf = new Map<number, string>();
  const useDates = process.argv.includes('--dates');
  const turnsOf = (c: Record<string, unknown>, prefix: string) => {
    const out: Array<{ content: string; dia: string; occurredAt?: string }> = [];
    for (let s = 1; c[`session_${s}`]; s++) {
      for (const turn of c[`session_${s}`] as Array<{
        speaker: string;
        text: string;
        dia_id: string;
        blip_caption?: string;
      }>) {
        let text = `${turn.speaker}: ${turn.text}`;
        if (turn.blip_caption) text += ` [shares ${turn.blip_caption}]`;
        const date = parseLocomoDate(String(c[`session_${s}_date_time`] ?? ''));
        out.push({ content: text, dia: `${prefix}${turn.dia_id}`, occurredAt: useDates ? date : undefined });
      }
    }
    return out;
  };
  // --haystack: every turn of the other conversations first (ids prefixed: never gold), as the bench's variant.
  const hay = haystack
    ? data.filter((o) => o.sample_id !== conv.sample_id).flatMap((o) => turnsOf(o.conversation, `${o.sample_id}/`))
    : [];
  if (hay.length > 0) store.addMany(hay.map((i) => ({ content: i.content, occurredAt: i.occurredAt })));
  const items = turnsOf(conv.conversation, '');
  const ids = store.addMany(items.map((i) => ({ content: i.content, occurredAt: i.occurredAt })));
  ids.forEach((id, i) => {
    if (!idOf.has(id)) idOf.set(id, items[i]!.dia);
  });
  for (const qa of conv.qa) {
    if (qa.category === 5) continue;
    const gold = qa.evidence
      .flatMap((e) => e.split(/[;,]\s*|\s+/))
      .map((e) => e.trim())
      .filter((e) => /^D\d+:\d+$/.test(e));
    if (gold.length === 0) continue;
    const res = await store.recall(qa.question, { limit: 50, minTrust: 0 });
    const ranked = [...new Set(res.map((r) => idOf.get(r.fact_id)!).filter(Boolean))];
    bump('all', gold, ranked);
    if (dump && qa.category === dumpCat) {
      const pos = gold.map((g) => ranked.indexOf(g));
      const textOf = new Map(items.map((i) => [i.dia, i.content]));
      console.log(`\nQ[${conv.sample_id}] ${qa.question}`);
      for (const [i, g] of gold.entries()) console.log(`  ${g} @${pos[i]}: ${textOf.get(g)?.slice(0, 140)}`);
      console.log(`  top3: ${ranked.slice(0, 3).map((d) => `${d} ${textOf.get(d)?.slice(0, 70)}`).join(' || ')}`);
    }
    bump(`cat${qa.category}`, gold, ranked);
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

/** "1:56 pm on 8 May, 2023" → ISO 8601 (UTC), or undefined. */
function parseLocomoDate(raw: string): string | undefined {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(raw);
  if (!m) return undefined;
  const months = [
    'january',
    'february',
    'march',
    'april',
    'may',
    'june',
    'july',
    'august',
    'september',
    'october',
    'november',
    'december',
  ];
  const month = months.indexOf(m[5]!.toLowerCase());
  if (month < 0) return undefined;
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}
