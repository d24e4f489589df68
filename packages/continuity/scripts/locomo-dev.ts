/**
 * Development driver for tuning on the LoCoMo dev split (never shipped; the bench package runs the
 * official protocols). Turns go in through review-first ingestion (the bench adapter), then:
 * - tool recall: `continuity_search` per question → recall-any/all@k, MRR (categories 1–4);
 * - prefetch: `prefetch(question)` → injected precision (share of injected records that are gold),
 *   activation rate, characters per question; and false activation: questions of OTHER
 *   conversations and off-topic questions against this store (anything injected is wrong).
 *   node --import tsx scripts/locomo-dev.ts [--embed] [--convs=1-4] [--settings={json}] [--cross=40] [--dump]
 */
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { ingestTurns, openContinuityStore } from '../../bench/src/retrievers/continuity';

const embed = process.argv.includes('--embed');
const dump = process.argv.includes('--dump');
const skipTool = process.argv.includes('--skip-tool');
const skipPrefetch = process.argv.includes('--skip-prefetch');
const settingsArg = process.argv.find((a) => a.startsWith('--settings='));
const settings = settingsArg ? JSON.parse(settingsArg.slice(11)) : undefined;
const crossArg = process.argv.find((a) => a.startsWith('--cross='));
const crossPerConv = crossArg ? Number(crossArg.slice(8)) : 40;

const data = loadLocomo(sharedPath(...LOCOMO_FILE_REL));
const convArg = process.argv.find((a) => a.startsWith('--convs='));
const [lo, hi] = convArg ? convArg.slice(8).split('-').map(Number) : [1, data.length];
const selected = data.slice((lo ?? 1) - 1, hi ?? data.length);

/** General questions no personal memory answers. */
const OFF_TOPIC = [
  'What is the capital of France?',
  'How do I reverse a linked list in Python?',
  'Explain the difference between TCP and UDP.',
  'What year did the Second World War end?',
  'Can you write a haiku about autumn?',
  'How many grams are in a pound?',
  'What is a good recipe for banana bread?',
  'How do vaccines train the immune system?',
  'Summarize the plot of Hamlet.',
  'What does HTTP status 418 mean?',
  'ok thanks',
  'and?',
  'what do you remember about me?',
  'How does compound interest work?',
  'What is the tallest mountain in Africa?',
];

const ks = [1, 5, 10, 20];
const tool = { n: 0, any: ks.map(() => 0), all: ks.map(() => 0), mrr: 0 };
const pre = {
  n: 0,
  activated: 0,
  injected: 0,
  relevant: 0,
  precisionSum: 0,
  chars: 0,
  anyGold: 0,
  assoc: 0,
  assocRelevant: 0,
};
const cross = { n: 0, activated: 0, chars: 0 };
const off = { n: 0, activated: 0 };
let rejectedTurns = 0;
let totalTurns = 0;
const t0 = Date.now();

for (const conv of selected) {
  const target = await openContinuityStore({ embeddings: embed, settings });
  await ingestTurns(target, conv.turns);
  rejectedTurns += target.rejected;
  totalTurns += conv.turns.length;
  const p = target.provider;
  await p.ready();
  for (const q of conv.questions) {
    if (q.gold.length === 0 || q.category === 5) continue;
    const out = skipTool
      ? { results: [] as Array<{ id: string }> }
      : (JSON.parse(await p.handleToolCall('continuity_search', { query: q.question, limit: 50 })) as {
          results: Array<{ id: string }>;
        });
    const ranked = [
      ...new Set(out.results.map((r) => target.diaOf.get(r.id)).filter((d): d is string => !!d)),
    ];
    tool.n++;
    ks.forEach((k, i) => {
      const top = new Set(ranked.slice(0, k));
      if (q.gold.some((g) => top.has(g))) tool.any[i]!++;
      if (q.gold.every((g) => top.has(g))) tool.all[i]!++;
    });
    const first = ranked.findIndex((r) => q.gold.includes(r));
    if (first >= 0) tool.mrr += 1 / (first + 1);

    if (skipPrefetch) continue;
    const text = await p.prefetch(q.question, { sessionId: 'dev' });
    const injected = [...text.matchAll(/· (ctx_[0-9a-f]+)\]/g)].map((m) => target.diaOf.get(m[1]!));
    pre.n++;
    pre.chars += text.length;
    const assocPart = text.split('Associated context')[1] ?? '';
    for (const m of assocPart.matchAll(/· (ctx_[0-9a-f]+)\]/g)) {
      pre.assoc++;
      const d = target.diaOf.get(m[1]!);
      if (d && q.gold.includes(d)) pre.assocRelevant++;
    }
    if (injected.length > 0) {
      pre.activated++;
      const rel = injected.filter((d) => d && q.gold.includes(d)).length;
      pre.injected += injected.length;
      pre.relevant += rel;
      pre.precisionSum += rel / injected.length;
      if (rel > 0) pre.anyGold++;
    }
    if (dump && injected.length > 0 && !injected.some((d) => d && q.gold.includes(d)))
      console.log(
        `MISS [${q.category}] ${q.question} gold=${q.gold.join(',')} injected=${injected.join(',')}`,
      );
  }
  for (const other of skipPrefetch ? [] : data) {
    if (other === conv) continue;
    for (const q of other.questions.filter((x) => x.category !== 5).slice(0, crossPerConv)) {
      const text = await p.prefetch(q.question, { sessionId: 'dev' });
      cross.n++;
      cross.chars += text.length;
      if (text) {
        cross.activated++;
        if (dump) console.log(`CROSS ${conv.conversationId} ← ${q.question}\n${text}`);
      }
    }
  }
  for (const q of skipPrefetch ? [] : OFF_TOPIC) {
    const text = await p.prefetch(q, { sessionId: 'dev' });
    off.n++;
    if (text) {
      off.activated++;
      if (dump) console.log(`OFF ${conv.conversationId} ← ${q}\n${text}`);
    }
  }
  target.close();
}

const f = (x: number) => x.toFixed(3);
console.log(
  `tool recall (n=${tool.n}): MRR ${f(tool.mrr / tool.n)} ` +
    ks.map((k, i) => `any@${k} ${f(tool.any[i]! / tool.n)}`).join(' ') +
    ' | ' +
    ks.map((k, i) => `all@${k} ${f(tool.all[i]! / tool.n)}`).join(' '),
);
console.log(
  `prefetch (n=${pre.n}): activated ${f(pre.activated / pre.n)}, precision (injected-weighted) ${f(pre.relevant / Math.max(1, pre.injected))}, ` +
    `precision (per activated question) ${f(pre.precisionSum / Math.max(1, pre.activated))}, any gold when activated ${f(pre.anyGold / Math.max(1, pre.activated))}, ` +
    `records/activation ${(pre.injected / Math.max(1, pre.activated)).toFixed(2)}, chars/question ${(pre.chars / pre.n).toFixed(0)}`,
);
console.log(
  `associated: ${pre.assoc} injected, precision ${f(pre.assocRelevant / Math.max(1, pre.assoc))}; direct precision ${f((pre.relevant - pre.assocRelevant) / Math.max(1, pre.injected - pre.assoc))}`,
);
console.log(
  `false activation: cross-conversation ${f(cross.activated / cross.n)} (n=${cross.n}), off-topic ${f(off.activated / off.n)} (n=${off.n})`,
);
console.log(
  `turns rejected by review: ${rejectedTurns} of ${totalTurns}; ${((Date.now() - t0) / 1000).toFixed(1)} s`,
);
