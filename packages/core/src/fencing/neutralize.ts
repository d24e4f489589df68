/**
 * Memory text must never be able to end the `<memory-context>` fence early, open a second one, or
 * pass itself off as the system note. Every piece of recalled or returned memory text goes through
 * `neutralizeMemoryText` (on the way into a store and again on the way out), which ESCAPES what
 * could be read as fence markup instead of deleting it: deleting lets fragments re-assemble
 * (`</memory-</memory-context>context>` minus its middle is a closer), escaping cannot.
 *
 * What counts is judged on a folded reading of the text (see `text/fold.ts`): any case, padding,
 * attributes, full-width or look-alike brackets, invisible characters inside the tag, `_`, space or
 * no separator between "memory" and "context"; and any `[System note:` opener. Inside such a match
 * the angle brackets become `&lt;` / `&gt;` and the square bracket `&#91;`, so the text stays
 * readable but can no longer be taken for markup. The result is a fixed point.
 */
import { codePointEnd, foldChar, originOf, skeleton } from '../text/fold';

/** The folded fence tag: "<" [/] "memory" [separator] "context" [attributes] ">". */
const FENCE_TAG =
  /<[\s]{0,64}(?:\/[\s]{0,64})?memory[\s_\-.]{0,8}context(?:[\s/][^<>\n]{0,128})?[\s]{0,64}>/g;
/** The folded opening of a system note: "[System note:" with any spacing or separator. */
const NOTE_OPENER = /\[[\s]{0,64}system[\s_\-]{0,8}note[\s]{0,64}:/g;

/** Only text holding one of these (after folding) can contain fence markup. */
const CANDIDATE = /[<[]/;

const ESCAPES: Readonly<Record<string, string>> = { '<': '&lt;', '>': '&gt;', '[': '&#91;' };

interface Span {
  start: number;
  end: number;
}

/** Source spans of everything that reads as a fence tag or a system-note opener. */
function markupSpans(text: string): Span[] {
  const sk = skeleton(text);
  if (!CANDIDATE.test(sk.text)) return [];
  const spans: Span[] = [];
  for (const pattern of [FENCE_TAG, NOTE_OPENER]) {
    pattern.lastIndex = 0;
    for (const m of sk.text.matchAll(pattern)) {
      const first = m.index ?? 0;
      const last = first + m[0].length - 1;
      spans.push({ start: originOf(sk, first), end: codePointEnd(text, originOf(sk, last)) });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** Every character that folds to "<" or "[" (see `text/fold.ts`), for the pre-check. */
const BRACKET_LIKE =
  /[<[\u02c2\u1438\u2039\u226e\u2329\u276e\u27e8\u3008\ufe3f\ufe64\uff1c\u27e6\u3010\ufe3b\ufe47\uff3b]/;

/**
 * Quick pre-check: could `text` hold fence markup at all? It needs a bracket-like character.
 * `includes` and the UTF-8 length are native scans, many times faster than a character class.
 */
export function mayHoldMarkup(text: string): boolean {
  if (text.includes('<') || text.includes('[')) return true;
  if (Buffer.byteLength(text, 'utf8') === text.length) return false; // ASCII only
  return BRACKET_LIKE.test(text);
}

function escapeSpans(text: string, spans: readonly Span[]): string {
  let out = '';
  let pos = 0;
  for (const span of spans) {
    if (span.start < pos) continue;
    out += text.slice(pos, span.start);
    let i = span.start;
    while (i < span.end) {
      const end = codePointEnd(text, i);
      const ch = text.slice(i, end);
      const folded = foldChar(ch);
      out += ESCAPES[folded] ?? ch;
      i = end;
    }
    pos = span.end;
  }
  return out + text.slice(pos);
}

/**
 * `text` with every fence tag and system-note opener escaped (see the module comment). Text
 * without such markup is returned unchanged (the same string); the result is a fixed point:
 * neutralising it again changes nothing.
 */
export function neutralizeMemoryText(text: string): string {
  if (!text || !mayHoldMarkup(text)) return text;
  let current = text;
  // Escaping only removes brackets, so one pass already reaches the fixed point; the loop makes
  // that a checked property instead of an argument.
  for (let round = 0; round < 4; round++) {
    const spans = markupSpans(current);
    if (spans.length === 0) return current;
    current = escapeSpans(current, spans);
  }
  return current;
}

/** The first piece of `text` that reads as fence markup or a system-note opener, or null. */
export function findFenceMarkup(text: string): string | null {
  if (!text || !mayHoldMarkup(text)) return null;
  const [first] = markupSpans(text);
  return first ? text.slice(first.start, first.end) : null;
}

/**
 * The first fence markup a tool's answer would show the model: in a JSON result, judged on every
 * decoded string and key (escaped JSON can hide a tag from a plain search); else in the text.
 */
export function findToolResultMarkup(result: string): string | null {
  if (!result) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(result);
  } catch {
    return findFenceMarkup(result);
  }
  const pending: unknown[] = [parsed];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      const found = findFenceMarkup(value);
      if (found !== null) return found;
    } else if (Array.isArray(value)) pending.push(...value);
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) pending.push(key, item);
  }
  return null;
}

/**
 * Every string inside a JSON tool result, neutralised. A result without markup is returned as the
 * same string; one that is not JSON is neutralised as text.
 */
export function neutralizeToolResult(result: string): string {
  // A JSON string may spell '<' or '[' as \u003c / \u005b: such an answer is decoded and judged too.
  if (!result || (!mayHoldMarkup(result) && !result.includes('\\u'))) return result;
  let parsed: unknown;
  try {
    parsed = JSON.parse(result);
  } catch {
    return neutralizeMemoryText(result);
  }
  const clean = neutralizeDeep(parsed);
  return clean === parsed ? result : JSON.stringify(clean);
}

/**
 * `value` with every string neutralised (arrays and plain objects, recursively, keys included).
 * Returns `value` itself when nothing needed escaping, else a copy; never mutates.
 */
export function neutralizeDeep<T>(value: T): T {
  if (typeof value === 'string') return neutralizeMemoryText(value) as T;
  if (Array.isArray(value)) {
    const items = value.map((v) => neutralizeDeep(v));
    return items.some((v, i) => !Object.is(v, value[i])) ? (items as T) : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const entries = Object.entries(value).map(
    ([k, v]) => [k, v, neutralizeMemoryText(k), neutralizeDeep(v)] as const,
  );
  if (entries.every(([k, v, k2, v2]) => k === k2 && Object.is(v, v2))) return value;
  const out: Record<string, unknown> = Object.create(proto);
  for (const [, , key, v] of entries) {
    Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return out as T;
}
