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
