/**
 * Relevance: how strongly a fact is about a query, on an absolute 0–1 scale that means the same in
 * a 30-fact store and a 100,000-fact one. The ranking score orders candidates (it borrows from
 * neighbours, normalises by the best candidate, rewards speakers and time words); relevance decides
 * whether a fact may be put in front of the model unasked. Only evidence in the fact itself counts:
 * the query's terms it contains (weighted by how rare they are in the store), and semantic
 * similarity above a threshold calibrated for the embedding model. See docs/decisions/0404.
 */
import { porterStem } from './porter';

/**
 * Cosine above which the semantic signal counts, per embedding model (id prefix). Calibrated on
 * development data for potion-base-2M: 0.45 is about the 99th percentile of unrelated
 * question–fact pairs (related pairs: median 0.53). Other models: `DEFAULT_SEMANTIC_THRESHOLD`
 * unless configured (`semanticThreshold`).
 */
export const SEMANTIC_THRESHOLDS: ReadonlyArray<readonly [modelPrefix: string, threshold: number]> = [
  ['model2vec:potion-base-2M', 0.45],
];
/** For a model not calibrated here: conservative (most sentence models put unrelated pairs below it). */
export const DEFAULT_SEMANTIC_THRESHOLD = 0.5;
/** Relevance a perfectly similar fact gains from the semantic signal (lexical evidence counts 1). */
export const SEMANTIC_RELEVANCE = 0.3;
/** A matched term counts for at least this share of a rare one (three common terms are evidence). */
export const MIN_TERM_SPECIFICITY = 0.3;
/** Relevance takes term rarity as in a store of at least this many facts (IDF is noise below it). */
export const RELEVANCE_MIN_STORE = 100;
/** Prefetch default: relevance a fact needs to be injected (calibrated, docs/decisions/0404). */
export const DEFAULT_MIN_RELEVANCE = 0.45;
/** Prefetch also drops facts much weaker than the strongest one (below this share of it). */
export const RELATIVE_RELEVANCE = 0.9;

export function semanticThresholdFor(modelId: string): number {
  for (const [prefix, threshold] of SEMANTIC_THRESHOLDS) if (modelId.startsWith(prefix)) return threshold;
  return DEFAULT_SEMANTIC_THRESHOLD;
}

/** The semantic signal on a 0–1 scale: 0 at or below the threshold, 1 at cosine 1. */
export function semanticStrength(cosine: number, threshold: number): number {
  if (!(cosine > threshold) || threshold >= 1) return 0;
  return Math.min(1, (cosine - threshold) / (1 - threshold));
}

/** A query term with its inverse document frequency in the store and whether it is used as a name. */
export interface WeightedTerm {
  /** The term's id in the retriever's vocabulary. */
  id: number;
  idf: number;
  /** Capitalised mid-sentence ("When is Ifeoma's wedding?"): what the question is about. */
  name: boolean;
}

/**
 * Lexical evidence that a fact answers the query, 0–1: the IDF-weighted share of the query's terms
 * the fact contains, where a name weighs double — it says who or what the question is about, so a
 * fact naming it is strong evidence, and a question about someone the store has never heard of is
 * mostly unanswered even when its other words match — times the specificity of what
 * matched: each matched term counts its IDF as a share of a term found in a single fact (at least
 * `MIN_TERM_SPECIFICITY`), capped at 1 — one rare term, or a few common ones, is full evidence; a
 * lone common word such as "thanks" in a chat log is not.
 */
export function lexicalEvidence(
  terms: readonly WeightedTerm[],
  has: (termId: number) => boolean,
  rareIdf: number,
): number {
  let total = 0;
  let matched = 0;
  let specificity = 0;
  for (const t of terms) {
    const weight = t.name ? 2 * t.idf : t.idf;
    total += weight;
    if (!has(t.id)) continue;
    matched += weight;
    specificity += rareIdf > 0 ? Math.max(MIN_TERM_SPECIFICITY, Math.min(1, t.idf / rareIdf)) : 1;
  }
  return total > 0 ? (matched / total) * Math.min(1, specificity) : 0;
}

/**
 * Relevance of one fact: lexical evidence plus the semantic share, lowered for a fact that asks
 * rather than states (`questionDiscount` × its share of question sentences), clamped to 0–1.
 */
export function relevanceOf(
  lexical: number,
  semantic: number,
  asks: number,
  questionDiscount: number,
): number {
  const r = (lexical + SEMANTIC_RELEVANCE * semantic) * (1 - questionDiscount * asks);
  return Math.max(0, Math.min(1, r));
}

/**
 * Conversational filler: greetings, thanks, acknowledgements. A message made only of these ("hi",
 * "thanks!", "ok, sounds good") asks nothing of memory, however many chat turns share its words.
 */
const FILLER = new Set(
  `hi hello hey hiya yo morning evening thanks thank thx ty cheers ok okay sure yes yeah yep yup no nope nah
  cool great nice good awesome perfect fine alright right sounds sound bye goodbye later please welcome lol
  haha hmm wow gotcha understood agreed done noted`.split(/\s+/),
);

/** Whether every term of the query is conversational filler (a query with no terms is not). */
export function isFiller(words: readonly string[]): boolean {
  return words.length > 0 && words.every((w) => FILLER.has(w));
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/**
 * Stems of the words a query uses as names: capitalised and not the first word of a sentence
 * ("What is Gina's store called?" → `gina`; "I", "I'm" are not names). Stemmed like query terms.
 */
export function nameStems(query: string): Set<string> {
  const text = query.normalize('NFKC');
  const out = new Set<string>();
  for (const m of text.matchAll(WORD)) {
    const word = m[0];
    if (!/^\p{Lu}/u.test(word) || /^I(?:['’]\p{L}+)?$/u.test(word)) continue;
    const before = text.slice(0, m.index).trimEnd();
    if (before === '' || /[.!?:;\n"“(]$/u.test(before)) continue;
    const bare = word
      .replace(/['’]s$/u, '')
      .replace(/['’]/gu, '')
      .toLowerCase();
    out.add(porterStem(bare));
  }
  return out;
}
