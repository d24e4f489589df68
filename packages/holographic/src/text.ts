/**
 * Text handling shared by the store and the retriever: the reference's FTS sanitiser and Jaccard
 * tokenizer (kept exact for `compat: 'reference'`), the CJK bigram "token soup" (generation B), and
 * the query analysis of the default pipeline (stemming, wider stopwords, possessives, numbers).
 */
import { PY_WHITESPACE } from './hrr';
import { porterStem } from './porter';

/** The reference's FTS stopwords (about 130 common English words). */
export const REFERENCE_STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again all am an and any are as at be because been before being between both but by
  can could did do does doing don down during each few for from further had has have having he her here hers
  herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off
  on once only or other our ours ourselves out over own same she should so some such than that the their
  theirs them themselves then there these they this those through to too under until up very was we were
  what when where which while who whom why will with would you your yours yourself yourselves`
    .split(/\s+/)
    .filter(Boolean),
);

/**
 * Default-pipeline stopwords: the reference list plus question scaffolding and light verbs that
 * carry no topical signal in a question ("what kind of", "did ... ever", "tell me").
 */
export const QUERY_STOPWORDS: ReadonlySet<string> = new Set([
  ...REFERENCE_STOPWORDS,
  ...`also ever kind kinds sort type types many much get got gets thing things something anything one ones
  like likely would might may must shall us let lets tell told say said mention mentioned think
  whose yes yeah oh ok okay really just still even well`
    .split(/\s+/)
    .filter(Boolean),
]);

const SANITIZE_STRIP = new Set('.,;:!?"\'()[]{}#@<>');
const FTS_SPECIAL = /["()*^:\-+]/g;

function stripEnds(token: string, chars: ReadonlySet<string>): string {
  let s = 0;
  let e = token.length;
  while (s < e && chars.has(token[s]!)) s++;
  while (e > s && chars.has(token[e - 1]!)) e--;
  return token.slice(s, e);
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * The reference's Latin-path sanitiser: lowercase, split, strip punctuation at the ends, delete
 * FTS operators inside, drop short tokens and stopwords, phrase-quote and OR-join. Nothing left →
 * the raw query (finds nothing, never errors); empty input → "".
 */
export function sanitizeFtsQuery(query: string): string {
  if (!query) return '';
  const tokens: string[] = [];
  for (const raw of query.toLowerCase().split(PY_WHITESPACE)) {
    const cleaned = stripEnds(raw, SANITIZE_STRIP).replace(FTS_SPECIAL, '');
    if (codePointLength(cleaned) < 2) continue;
    if (REFERENCE_STOPWORDS.has(cleaned)) continue;
    tokens.push(`"${cleaned}"`);
  }
  return tokens.length === 0 ? query : tokens.join(' OR ');
}

// --- CJK -------------------------------------------------------------------------------------

/** Ranges the reference's Jaccard tokenizer treats as CJK. */
export function isCjkChar(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0;
  return (c >= 0x4e00 && c <= 0x9fff) || (c >= 0x3400 && c <= 0x4dbf) || (c >= 0xf900 && c <= 0xfaff);
}

/** Generation B run ranges: CJK ideographs and radicals, kana, Hangul. */
function isSoupCjk(c: number): boolean {
  return (
    (c >= 0x2e80 && c <= 0x9fff) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0x3040 && c <= 0x30ff) ||
    (c >= 0xac00 && c <= 0xd7af)
  );
}

export function hasCjk(text: string): boolean {
  for (const ch of text) if (isSoupCjk(ch.codePointAt(0) ?? 0)) return true;
  return false;
}

/**
 * Generation B tokenizer: maximal CJK runs become overlapping 2-grams (a single character stays
 * itself), maximal `[A-Za-z0-9_.]` runs stay whole; everything lowercased.
 * "供应商账期" → 供应 应商 商账 账期; "P160金顺" → p160 金顺.
 */
export function cjkTokens(text: string): string[] {
  const out: string[] = [];
  const chars = [...text.toLowerCase()];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i]!.codePointAt(0) ?? 0;
    if (isSoupCjk(c)) {
      let j = i;
      while (j < chars.length && isSoupCjk(chars[j]!.codePointAt(0) ?? 0)) j++;
      if (j - i === 1) out.push(chars[i]!);
      else for (let k = i; k < j - 1; k++) out.push(chars[k]! + chars[k + 1]!);
      i = j;
    } else if (/[a-z0-9_.]/.test(chars[i]!)) {
      let j = i;
      while (j < chars.length && /[a-z0-9_.]/.test(chars[j]!)) j++;
      out.push(chars.slice(i, j).join(''));
      i = j;
    } else i++;
  }
  return out;
}

/**
 * Text for the default-pipeline index: CJK runs are replaced by their space-separated bigrams so the
 * unicode61 tokenizer can match them; everything else is left for the porter tokenizer.
 */
export function indexText(text: string): string {
  if (!hasCjk(text)) return text;
  let out = '';
  let run: string[] = [];
  const flush = () => {
    if (run.length === 1) out += ` ${run[0]} `;
    else if (run.length > 1) {
      const grams: string[] = [];
      for (let k = 0; k < run.length - 1; k++) grams.push(run[k]! + run[k + 1]!);
      out += ` ${grams.join(' ')} `;
    }
    run = [];
  };
  for (const ch of text) {
    if (isSoupCjk(ch.codePointAt(0) ?? 0)) run.push(ch);
    else {
      flush();
      out += ch;
    }
  }
  flush();
  return out;
}

// --- Jaccard -----------------------------------------------------------------------------------

const JACCARD_STRIP = new Set('.,;:!?"\'()[]{}#@<>');

/** The reference's Jaccard token set (whitespace split, punctuation strip, "/" "=" split, CJK bigrams). */
export function jaccardTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  if (!text) return tokens;
  for (const word of text.toLowerCase().split(PY_WHITESPACE)) {
    const cleaned = stripEnds(word, JACCARD_STRIP);
    if (!cleaned) continue;
    let cjk = '';
    let rest = '';
    for (const ch of cleaned) {
      if (isCjkChar(ch)) cjk += ch;
      else rest += ch;
    }
    for (const part of rest.replace(/[/=]/g, ' ').split(PY_WHITESPACE)) if (part) tokens.add(part);
    if (cjk) {
      const cps = [...cjk];
      if (cps.length === 1) tokens.add(cjk);
      else for (let i = 0; i < cps.length - 1; i++) tokens.add(cps[i]! + cps[i + 1]!);
    }
  }
  return tokens;
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const t of small) if (large.has(t)) inter++;
  const union = a.size + b.size - inter;
  return union > 0 ? inter / union : 0;
}

// --- Default-pipeline analysis ----------------------------------------------------------------

/**
 * Diacritics removed from Latin letters only, as the side index's tokenizer does
 * (`unicode61 remove_diacritics 2`): "Malmö" → "malmo", "Café" → "cafe", "Dvořák" → "dvorak";
 * letters without a decomposition (ø, ł, ß) and other scripts (й, ά, Devanagari signs) stay. Query
 * terms, document frequencies and in-memory statistics then agree with the index for accented words.
 */
export function foldLatinDiacritics(text: string): string {
  if (!/[^\x20-\x7e]/.test(text)) return text; // printable ASCII: nothing to fold
  return text
    .normalize('NFD')
    .replace(/([A-Za-z])[\u0300-\u036f]+/g, '$1')
    .normalize('NFC');
}

/** Lowercase, NFKC, Latin diacritics folded: the text every default-pipeline token comes from. */
function analysisText(text: string): string {
  return foldLatinDiacritics(text.normalize('NFKC').toLowerCase());
}

/**
 * Word tokens for the default pipeline: lowercase, NFKC, Latin diacritics folded, split on anything
 * that is not a letter, digit or apostrophe, possessive `'s` removed, then Porter-stemmed (the
 * index's own stemmer). CJK text contributes its bigrams.
 */
export function stemmedTokens(text: string): string[] {
  const out: string[] = [];
  const lower = analysisText(text);
  for (const m of lower.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu)) {
    const w = m[0].replace(/['’]s$/u, '').replace(/['’]/gu, '');
    if (hasCjk(w)) {
      for (const t of cjkTokens(w)) out.push(t);
      continue;
    }
    if (w.length === 0) continue;
    out.push(stemOf(w));
  }
  return out;
}

// Vocabulary repeats across facts: memoise stems (bounded; cleared when full).
const STEM_MEMO_MAX = 200_000;
const stemMemo = new Map<string, string>();

/** porterStem, memoised. */
function stemOf(word: string): string {
  let stem = stemMemo.get(word);
  if (stem === undefined) {
    stem = porterStem(word);
    if (stemMemo.size >= STEM_MEMO_MAX) stemMemo.clear();
    stemMemo.set(word, stem);
  }
  return stem;
}

export interface QueryTerm {
  /** Lowercase surface form, FTS-safe (letters and digits only). */
  word: string;
  stem: string;
}

/** Content terms of a query for the default pipeline: stopwords and 1-character words dropped. */
export function queryTerms(query: string): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  const lower = analysisText(query);
  for (const m of lower.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu)) {
    const word = m[0].replace(/['’]s$/u, '').replace(/['’]/gu, '');
    if (hasCjk(word)) {
      for (const t of cjkTokens(word)) {
        if (!seen.has(t)) {
          seen.add(t);
          out.push({ word: t, stem: t });
        }
      }
      continue;
    }
    if (word.length < 2 && !/\d/.test(word)) continue;
    if (QUERY_STOPWORDS.has(word)) continue;
    const stem = porterStem(word);
    if (seen.has(stem)) continue;
    seen.add(stem);
    out.push({ word, stem });
  }
  return out;
}

// --- Time expressions ---------------------------------------------------------------------------

/** A question about time: "when", "what time/date/day/year/month", "how long ago", "since when". */
const TEMPORAL_QUESTION =
  /\b(?:when|what\s+(?:time|date|day|days|year|month|week|weekend)|which\s+(?:day|date|year|month|week)|how\s+long\s+ago|since\s+when)\b/i;

/** Words and patterns that anchor a statement in time (relative or absolute), English. */
const TEMPORAL_EXPRESSION = new RegExp(
  [
    '\\b(?:yesterday|today|tonight|tomorrow|recently|lately|ago|earlier|later|soon)\\b',
    '\\b(?:last|next|this|past|coming)\\s+(?:week|weekend|month|year|night|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday|time)\\b',
    '\\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\\b',
    '\\b(?:january|february|march|april|june|july|august|september|october|november|december)\\b',
    '\\b(?:19|20)\\d{2}\\b',
    '\\b\\d{1,2}[/.-]\\d{1,2}(?:[/.-]\\d{2,4})?\\b',
    '\\b(?:a|one|two|three|four|five|six|few|couple\\s+of)\\s+(?:days?|weeks?|months?|years?)\\b',
  ].join('|'),
  'i',
);

/** Does the query ask about time? */
export function isTemporalQuery(query: string): boolean {
  return TEMPORAL_QUESTION.test(query);
}

/** Does the text carry a time expression ("last week", "in May", "2022", "3 days ago")? */
export function hasTimeExpression(text: string): boolean {
  return TEMPORAL_EXPRESSION.test(text);
}

/**
 * Share of a text's sentences that are questions (0 when it asks nothing, 1 when it only asks).
 * A trailing bracketed note ("[shares a photo …]") is ignored.
 */
export function questionShare(text: string): number {
  const body = text.replace(/\s*\[[^\]]*\]\s*$/u, '').trim();
  const sentences = body.match(/[^.!?…]+(?:[.!?…]+|$)/gu)?.filter((s) => /[\p{L}\p{N}]/u.test(s)) ?? [];
  if (sentences.length === 0) return 0;
  let asked = 0;
  for (const s of sentences) if (s.trimEnd().endsWith('?')) asked++;
  return asked / sentences.length;
}
