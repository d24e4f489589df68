/**
 * Development driver for first place (decision 0905): continuity and holographic through the bench's
 * own retrievers (`search`, top 10) on the same LoCoMo questions (categories 1–4), their any@1, MRR
 * and any@10, and the questions where one puts a gold turn first and the other does not.
 *   node --import tsx scripts/first-place.ts [--convs=1-4] [--embed] [--settings={json}] [--list]
 */
import { loadLocomo } from '../../bench/src/locomo/loader';
import type { Retriever } from '../../bench/src/locomo/types';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { createContinuityRetriever } from '../../bench/src/retrievers/continuity';
import { createHolographicRetriever } from '../../bench/src/retrievers/holographic';

const embeddings = process.argv.includes('--embed');
const list = process.argv.includes('--list');
const settingsArg = process.argv.find((a) => a.startsWith('--settings='));
const settings = settingsArg ? JSON.parse(settingsArg.slice(11)) : undefined;
const convArg = process.argv.find((a) => a.startsWith('--convs='));
const [lo = 1, hi = 4] = convArg ? convArg.slice(8).split('-').map(Number) : [];
const data = loadLocomo(sharedPath(...LOCOMO_FILE_REL)).slice(lo - 1, hi);

interface Answer {
  question: string;
  gold: string[];
  top: string[];
}

async function answers(retriever: Retriever): Promise<Answer[]> {
  const out: Answer[] = [];
  for (const conv of data) {
    const session = await retriever.open(conv.conversationId);
    await session.ingest(conv.turns);
    for (const q of conv.questions) {
      if (q.gold.length === 0 || q.category === 5) continue;
      out.push({ question: q.question, gold: q.gold, top: await session.search(q.question, 10) });
    }
    await session.close();
  }
  return out;
}

const rank = (a: Answer) => a.top.findIndex((id) => a.gold.includes(id));
const first = (a: Answer) => rank(a) === 0;
function summary(name: string, rows: Answer[]): string {
  const n = rows.length;
  const mrr = rows.reduce((s, a) => s + (rank(a) >= 0 ? 1 / (rank(a) + 1) : 0), 0) / n;
  const f = (x: number) => x.toFixed(3);
  return `${name}: any@1 ${f(rows.filter(first).length / n)}, MRR@10 ${f(mrr)}, any@10 ${f(rows.filter((a) => rank(a) >= 0).length / n)} (n=${n})`;
}

const ours = await answers(createContinuityRetriever({ embeddings, settings }));
const theirs = await answers(createHolographicRetriever({ embeddings }));
console.log(summary('continuity', ours));
console.log(summary('holographic', theirs));
const onlyTheirs = ours.filter((a, i) => !first(a) && first(theirs[i]!));
const onlyOurs = ours.filter((a, i) => first(a) && !first(theirs[i]!));
console.log(`gold first in holographic only: ${onlyTheirs.length}; in continuity only: ${onlyOurs.length}`);
if (list)
  for (const a of onlyTheirs)
    console.log(`  ${a.question} — gold ${a.gold.join(', ')}, continuity ${a.top.slice(0, 3).join(', ')}`);
