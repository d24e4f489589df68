/**
 * Turn user text into an FTS5 MATCH expression that cannot raise a syntax error, keeping the
 * useful syntax (balanced "phrases", AND / OR / NOT, prefix*). Follows the reference's rules and
 * goes further: every character FTS5 would reject outside a phrase is dropped, operators that
 * would dangle or repeat are removed, and dotted / hyphenated terms become phrases.
 */
const CJK =
  /[\u2E80-\u2FDF\u3040-\u30FF\u3100-\u31FF\u3400-\u4DBF\u4E00-\u9FFF\uA960-\uA97F\uAC00-\uD7AF\uF900-\uFAFF\uFF66-\uFF9F]/u;

/** True when the text holds CJK characters (searched by substring instead of FTS5 tokens). */
export function hasCjk(text: string): boolean {
  return CJK.test(text);
}

const OPERATORS = new Set(['AND', 'OR', 'NOT']);

export function sanitizeFtsQuery(query: string): string {
  if (typeof query !== 'string') return '';
  const tokens: string[] = [];
  // Balanced phrases survive intact; the rest is split into bare tokens.
  const re = /"([^"]*)"|([^\s"]+)/gu;
  for (const m of query.matchAll(re)) {
    if (m[1] !== undefined) {
      const inner = m[1].replace(/\s+/g, ' ').trim();
      if (/[\p{L}\p{N}]/u.test(inner)) tokens.push(`"${inner}"`);
      continue;
    }
    const bare = m[2] ?? '';
    if (OPERATORS.has(bare)) {
      // FTS5 operators are upper-case only; "and" / "not" in prose stay ordinary words.
      tokens.push(bare);
      continue;
    }
    tokens.push(...bareTerms(bare));
  }
  // Drop operators at either end and operators following another operator.
  const out: string[] = [];
  for (const t of tokens) {
    if (OPERATORS.has(t)) {
      if (out.length === 0 || OPERATORS.has(out[out.length - 1]!)) continue;
    }
    out.push(t);
  }
  while (out.length > 0 && OPERATORS.has(out[out.length - 1]!)) out.pop();
  return out.join(' ');
}

/** One whitespace-free chunk → zero or more safe FTS5 terms. */
function bareTerms(chunk: string): string[] {
  // Anything but letters, digits, "_", ".", "-" and "*" separates terms (C++ → C, a:b → a b).
  const parts = chunk.replace(/[^\p{L}\p{N}_.*-]+/gu, ' ').split(' ');
  const terms: string[] = [];
  for (let part of parts) {
    part = part.replace(/\*+/g, '*').replace(/^[*.-]+/, '');
    if (!part) continue;
    const prefix = part.endsWith('*');
    let core = prefix ? part.slice(0, -1) : part;
    core = core.replace(/\*/g, ' ').trim();
    core = core.replace(/[.-]+$/, '');
    if (!/[\p{L}\p{N}]/u.test(core)) continue;
    if (core.includes(' ')) {
      terms.push(...bareTerms(core));
      continue;
    }
    if (/[.-]/.test(core)) {
      // chat-send, P2.2, my-app.config.ts: FTS5 would split these; match them as a phrase.
      terms.push(`"${core}"`);
      continue;
    }
    terms.push(prefix ? `${core}*` : core);
  }
  return terms;
}

/** Plain terms of a query for substring (LIKE) search: phrases and operators unwrapped. */
export function likeTerms(query: string): string[] {
  const terms: string[] = [];
  for (const m of query.matchAll(/"([^"]*)"|([^\s"]+)/gu)) {
    const t = (m[1] ?? m[2] ?? '').trim();
    if (!t || (m[2] !== undefined && OPERATORS.has(t))) continue;
    const cleaned = m[1] !== undefined ? t : t.replace(/^[*]+|[*]+$/g, '');
    if (/[\p{L}\p{N}]/u.test(cleaned)) terms.push(cleaned);
  }
  return terms.slice(0, 16);
}

/**
 * True when the user wrote FTS5 syntax on purpose: a double quote, an upper-case operator
 * (AND / OR / NOT / NEAR), a prefix `term*`, parentheses, a `content:` column filter or a `^`
 * initial-token marker. Such queries are run exactly as written (sanitised, never relaxed).
 */
export function hasFtsSyntax(query: string): boolean {
  if (typeof query !== 'string') return false;
  if (query.includes('"')) return true;
  if (/[()]/.test(query)) return true;
  if (/[\p{L}\p{N}_]\*/u.test(query)) return true;
  if (/(^|\s)-?\{?content\}?\s*:/iu.test(query)) return true;
  if (/(^|\s)\^[\p{L}\p{N}]/u.test(query)) return true;
  return query.split(/\s+/).some((t) => t === 'AND' || t === 'OR' || t === 'NOT' || t === 'NEAR');
}

/**
 * Words that carry no topic in an English question or request: question words, auxiliaries,
 * pronouns, articles, prepositions, conjunctions and contraction fragments. A general list (not
 * tuned to any data set); compared in lower case.
 */
export const QUERY_STOPWORDS: ReadonlySet<string> = new Set(
  // question words and auxiliaries
  (
    'what whats which who whom whose when where why how ' +
    'is am are was were be been being do does did doing done have has had having ' +
    'can could will would shall should may might must ' +
    // pronouns and determiners
    'i me my mine myself you your yours yourself we us our ours they them their theirs he him his ' +
    'she her hers it its itself this that these those there here a an the some any each every ' +
    'all both either neither such own other another ' +
    // prepositions and conjunctions
    'of to in on at by for with from about into onto over under after before during since until ' +
    'up down out off than then so and or but if because while as not no nor ' +
    // fillers common in requests to a search tool
    'please just also too very really ever again ' +
    // contraction fragments left after punctuation is stripped (don't → don t)
    's t d ll m re ve'
  ).split(/\s+/),
);

export interface RelaxedQuery {
  /** OR-joined FTS5 expression of the remaining terms ("" when nothing is left). */
  match: string;
  /** The terms kept, as shown to the caller. */
  terms: string[];
  /** The stopwords removed (lower case, de-duplicated). */
  dropped: string[];
}

/**
 * The loose form of a natural-language query: the sanitiser's terms minus stopwords,
 * de-duplicated case-insensitively and OR-joined, so FTS5 bm25 ranks messages by how many of
 * the rare terms they hold. Meant for queries without explicit FTS syntax.
 */
export function relaxedFtsQuery(query: string, maxTerms = 32): RelaxedQuery {
  const tokens = sanitizeFtsQuery(query).match(/"[^"]*"|\S+/gu) ?? [];
  const terms: string[] = [];
  const dropped: string[] = [];
  const seen = new Set<string>();
  for (const token of tokens) {
    if (OPERATORS.has(token)) continue;
    const key = token.toLowerCase();
    if (QUERY_STOPWORDS.has(key)) {
      if (!dropped.includes(key)) dropped.push(key);
      continue;
    }
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(token);
    if (terms.length >= maxTerms) break;
  }
  return { match: terms.join(' OR '), terms: terms.map((t) => t.replace(/^"|"$/g, '')), dropped };
}
