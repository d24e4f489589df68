/**
 * Development driver for the prefetch precision of decision 0705: the bench's own protocol
 * (`locomoProbeStores`, `runPrecision`) on the development side of `DEV_SPLIT` only — LoCoMo
 * conversations 1–4 as stores, every other conversation's questions as cross negatives, the even
 * off-topic questions. Held-out numbers come from the bench run, never from here.
 *   node --import tsx scripts/precision-dev.ts [--embed] [--holographic] [--settings={json}]
 */
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { loadOffTopicQuestions } from '../../bench/src/precision/data';
import { summarisePrecision } from '../../bench/src/precision/metrics';
import { runPrecision } from '../../bench/src/precision/protocol';
import { DEV_SPLIT, locomoProbeStores } from '../../bench/src/precision/scenarios';
import { createContinuityRetriever } from '../../bench/src/retrievers/continuity';
import { createHolographicRetriever } from '../../bench/src/retrievers/holographic';

const embeddings = process.argv.includes('--embed');
const settingsArg = process.argv.find((a) => a.startsWith('--settings='));
const settings = settingsArg ? JSON.parse(settingsArg.slice(11)) : undefined;
const retriever = process.argv.includes('--holographic')
  ? createHolographicRetriever({ embeddings })
  : createContinuityRetriever({ embeddings, settings });

const stores = locomoProbeStores(loadLocomo(sharedPath(...LOCOMO_FILE_REL)), loadOffTopicQuestions()).filter(
  (s) => DEV_SPLIT.locomo.includes(s.id),
);
const t0 = Date.now();
const run = await runPrecision(retriever, stores);
const s = summarisePrecision(run.outcomes.filter((o) => o.split === 'dev'));
const f = (x: number) => x.toFixed(3);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
console.log(
  `${retriever.name} dev: one-gold precision ${f(s.single.precision)}, injected precision ${f(s.answerable.precision)}, ` +
    `answer injected ${f(s.answerable.recallAny)}, records/question ${s.answerable.records.toFixed(2)}, chars/question ${s.answerable.chars.toFixed(0)}, ` +
    `false activation cross ${pct(s.cross.activation)} (n=${s.cross.n}) / off-topic ${pct(s.offTopic.activation)} (n=${s.offTopic.n}); ` +
    `${((Date.now() - t0) / 1000).toFixed(0)} s`,
);
