/**
 * Query analysis: which words of a message can anchor a record (anchors), which only talk about
 * memory itself (meta terms), and which name a specific person, place or thing (named entities).
 * Matching of anchors against records is SQLite FTS5's (the index's Porter tokenizer stems both
 * sides), so nothing here needs a stemmer.
 */
import { isTrivialPrompt } from '@hermes-memory/core';

/** Function words and question scaffolding: they carry no topic. */
const STOPWORDS = new Set(
  (
    'a an the and or but if of to in on at by for with from as is are was were be been being am do does did doing ' +
    'have has had having i you he she it we they me him her us them my your his its our their mine yours ours theirs ' +
    'this that these those what which who whom whose when where why how not no nor so than too very can will would ' +
    'should could may might must shall about into over after before up down out off again then once there here all ' +
    'any both each few more most other some such only own same just s t don doesn didn isn aren wasn weren won wouldn ' +
    'also ever kind sort type tell give get got let lets please thing things something anything someone one ones ' +
    'yes yeah ok okay oh well really actually maybe perhaps still yet while during because since until via per ve ll re d m ' +
    // Acknowledgements and small talk: "ok thanks", "cool, great" carry no topic.
    'thanks thank thx ty cool great nice awesome sure hi hello hey bye goodbye lol haha wow alright fine perfect'
  ).split(/\s+/),
);

/**
 * Light verbs and vague words that fit any topic ("take", "new", "use", "lot"). They still find and
 * rank records, but a record need not contain them to cover the message (coverage ignores them).
 */
const LIGHT_WORDS = new Set(
  (
    'take takes took taken taking make makes made making get gets getting go goes went gone going put puts ' +
    'use uses used using new want wants wanted need needs needed come came see saw seen look looks think thought ' +
    'lot lots way ways much many good bad best better'
  ).split(/\s+/),
);

/**
 * Words about memory itself. A question like "what do you remember?" shares them with every record
 * that talks about memory, notes or saving, which says nothing about relevance (the memory-meta
 * collision gate).
 */
const META_TERMS = new Set(
  (
    'memory memories remember remembered remembering recall recalled recalls know knew told mention mentioned ' +
    'mentions said say says talk talked discussed earlier previously forget forgot forgotten'
  ).split(/\s+/),
);

/** Capitalised words that are not names (sentence starters, pronouns, calendar words). */
const NOT_NAMES = new Set(
  (
    'i im ive id ill what when where who whom whose why how which can could would should will did does do is are was ' +
    'were have has had hey hi hello thanks thank please ok okay yes no so and but or if then also remember recall ' +
    'tell show give find list remind let lets monday tuesday wednesday thursday friday saturday sunday january ' +
    'february march april may june july august september october november december today tomorrow yesterday'
  ).split(/\s+/),
);

export interface AnalyzedQuery {
  raw: string;
  /** Topic words (lower-case, de-duplicated, in order), at most `MAX_ANCHORS`. */
  anchors: string[];
  /** The anchors coverage is measured on: without light words, unless that leaves none. */
  coverageAnchors: string[];
  /** Memory-meta words present in the query. */
  meta: string[];
  /** Lower-cased names the query mentions (capitalised words that are not sentence starters). */
  entities: string[];
  /** True when the message carries no topic at all ("ok", "thanks", "and?", "what about that?"). */
  lowInformation: boolean;
}

/** Upper bound on anchors per query (long pasted messages): the rarest words win later via IDF. */
export const MAX_ANCHORS = 24;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu;

/** Word tokens in order, with possessives removed ("Caroline's" → "Caroline"). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.normalize('NFKC').matchAll(WORD)) {
    const w = m[0].replace(/['’](s|S)$/, '');
    // Split what FTS5's tokenizer splits too ("follow-up" → "follow", "up"; "don't" → "don", "t").
    for (const part of w.split(/['’_-]+/)) if (part) out.push(part);
  }
  return out;
}

function isCapitalised(w: string): boolean {
  const first = w[0]!;
  return first !== first.toLowerCase() && w.slice(1) === w.slice(1).toLowerCase() && w.length > 1;
}

/** Names in `text`: capitalised words that are not at the start of a sentence and not common words. */
export function namedEntities(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const sentences = text.normalize('NFKC').split(/(?<=[.!?])\s+|\n+/);
  for (const sentence of sentences) {
    const ws = words(sentence);
    ws.forEach((w, i) => {
      if (i === 0 || !isCapitalised(w)) return;
      const lower = w.toLowerCase();
      if (NOT_NAMES.has(lower) || STOPWORDS.has(lower) || META_TERMS.has(lower) || seen.has(lower)) return;
      seen.add(lower);
      out.push(lower);
    });
  }
  return out;
}

export function analyzeQuery(raw: string, knownEntities?: ReadonlySet<string>): AnalyzedQuery {
  const text = raw ?? '';
  const anchors: string[] = [];
  const meta: string[] = [];
  const seen = new Set<string>();
  for (const w of words(text)) {
    const lower = w.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    if (META_TERMS.has(lower)) meta.push(lower);
    else if (!STOPWORDS.has(lower) && (lower.length > 1 || /\p{N}/u.test(lower))) anchors.push(lower);
  }
  const entities = namedEntities(text);
  // A sentence-initial word is a name only when the store knows it as one ("Caroline said ...").
  if (knownEntities) {
    for (const sentence of text.normalize('NFKC').split(/(?<=[.!?])\s+|\n+/)) {
      const first = words(sentence)[0];
      if (!first || !isCapitalised(first)) continue;
      const lower = first.toLowerCase();
      if (knownEntities.has(lower) && !entities.includes(lower) && !NOT_NAMES.has(lower))
        entities.push(lower);
    }
  }
  const kept = anchors.slice(0, MAX_ANCHORS);
  const weighty = kept.filter((w) => !LIGHT_WORDS.has(w));
  return {
    raw: text,
    anchors: kept,
    coverageAnchors: weighty.length > 0 ? weighty : kept,
    meta,
    entities,
    lowInformation: isTrivialPrompt(text) || weighty.length === 0,
  };
}

/** Quote one term for FTS5 MATCH (operators and punctuation can never leak through). */
export function ftsTerm(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** OR of the quoted terms, or null when there is nothing to match. */
export function ftsOr(terms: readonly string[]): string | null {
  return terms.length === 0 ? null : terms.map(ftsTerm).join(' OR ');
}

/** Lower-cased word set of a text (entity and tag matching; no stemming needed for names). */
export function wordSet(text: string): Set<string> {
  return new Set(words(text).map((w) => w.toLowerCase()));
}

/** Jaccard similarity of two texts' word sets (near-duplicate checks). */
export function textSimilarity(a: string, b: string): number {
  const x = wordSet(a);
  const y = wordSet(b);
  if (x.size === 0 && y.size === 0) return 1;
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  return both / (x.size + y.size - both);
}

export function isStopword(w: string): boolean {
  return STOPWORDS.has(w);
}

export function isMetaTerm(w: string): boolean {
  return META_TERMS.has(w);
}

/** The lower-cased words of each entity of a record ("Jane Doe" → jane, doe). */
export function entityWords(record: { entities: readonly string[] }): Set<string> {
  const out = new Set<string>();
  for (const e of record.entities) for (const w of wordSet(e)) out.add(w);
  return out;
}

/**
 * What a record is about, for the facet gate: its entities' words and the words of its title,
 * summary and details. Kept per record object when the record is frozen: retrieval's records come
 * deep-frozen from the store's read cache, which hands out new objects after any write (here or in
 * another process), so a kept set never outlives the text it was computed from.
 */
const aboutCache = new WeakMap<object, ReadonlySet<string>>();
export function aboutWords(record: {
  title: string;
  summary: string;
  details: string | null;
  entities: readonly string[];
}): ReadonlySet<string> {
  const frozen = Object.isFrozen(record) && Object.isFrozen(record.entities);
  let about = frozen ? aboutCache.get(record) : undefined;
  if (!about) {
    const words = entityWords(record);
    for (const w of wordSet(`${record.title} ${record.summary} ${record.details ?? ''}`)) words.add(w);
    about = words;
    if (frozen) aboutCache.set(record, about);
  }
  return about;
}
