/**
 * Precision-oriented entity extraction (reference store.py, newer tests): quoted spans first, then
 * both sides of "X aka Y", then capitalised runs of two or more words. Deduplicated by a casefold key.
 */

const W = '[\\p{L}\\p{N}_]';
const QUOTE_PATTERNS: readonly RegExp[] = [
  new RegExp(`(?<!${W})"([^"\\r\\n]+)"(?!${W})`, 'gu'),
  new RegExp(`(?<!${W})'([^'\\r\\n]+)'(?!${W})`, 'gu'),
  /\u201c([^\u201d\r\n]+)\u201d/gu,
  /\u2018([^\u2019\r\n]+)\u2019/gu,
];
const CAPITALIZED = /\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b/gu;
const PARTICLE = '(?:van|von|de|del|der|da|di|la|le)';
// Tokens are bounded (no entity is longer than MAX_CHARS) and a term may only start where a token
// starts: unbounded, "a.a.a.…" made every position start a scan to the end of the run (quadratic).
const TITLE_TOKEN = '[A-Z](?:[A-Za-z0-9_.-]{0,78}[A-Za-z0-9_])?';
const TITLE_TERM = `${TITLE_TOKEN}(?:\\s{1,8}(?:${PARTICLE}\\s{1,8})?${TITLE_TOKEN}){0,5}`;
const BARE_TERM = '[a-z][a-z0-9_.-]{1,78}[a-z0-9_]';
const AKA = new RegExp(
  `(?<![A-Za-z0-9_.-])(?<left>${TITLE_TERM}|${BARE_TERM})\\s{1,8}(?:[Aa][Kk][Aa]|[Aa][Ll][Ss][Oo]\\s{1,8}[Kk][Nn][Oo][Ww][Nn]\\s{1,8}[Aa][Ss])\\s{1,8}(?<right>${TITLE_TERM}|${BARE_TERM})(?![A-Za-z0-9_])`,
  'gu',
);
/** Only text that says "aka" or "also known as" can hold an alias. */
const HAS_ALIAS = /\baka\b|\balso\s+known\s+as\b/i;

/** Generic words that form headings more often than names (only filtered at sentence start). */
const LOW_SIGNAL = new Set(
  'active assistant concept configuration confirmed current decision default detail details existing fact general important information mapping memory new note previous project recent session setting status summary system task user workflow'.split(
    ' ',
  ),
);

/** Sentence-initial function words and imperative/gerund verbs that are never part of a name. */
const LEADING_NOISE = new Set(
  'a an the so and but or if then when while this that these those my our your his her their its we i you he she they it also just please verify check use using ensure make run add set see note remember keep try let do did does maybe yes no not'.split(
    ' ',
  ),
);

const MAX_CHARS = 80;
const MAX_WORDS = 8;

export function cleanEntityCandidate(name: string): string | null {
  let c = name.normalize('NFKC').replace(/\s+/gu, ' ');
  c = trimChars(c, ' \t\r\n,;:!?()[]{}');
  c = c.replace(/['\u2019][sS]$/u, '').trim();
  if (!c || c.length > MAX_CHARS) return null;
  if (c.split(' ').length > MAX_WORDS) return null;
  const alnum = [...c].filter((ch) => /[\p{L}\p{N}]/u.test(ch));
  if (alnum.length === 0) return null;
  if (alnum.length === 1) {
    const ch = alnum[0]!;
    if (ch.charCodeAt(0) < 128 && ch === ch.toLowerCase()) return null;
  }
  return c;
}

function trimChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

export function entityKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[-_\s]+/gu, ' ')
    .trim();
}

/**
 * Whether `start` begins a sentence: only whitespace before it, or a line break in the whitespace
 * run before it, or a sentence stop ending that run. Reads backwards over the whitespace only
 * (slicing the prefix made every candidate cost the length of the text).
 */
function isSentenceStart(text: string, start: number): boolean {
  let k = start - 1;
  while (k >= 0 && /\s/u.test(text[k]!)) {
    if (text[k] === '\n') return true;
    k--;
  }
  return k < 0 || text[k] === '.' || text[k] === '!' || text[k] === '?';
}

function isLowSignal(name: string): boolean {
  const words = name.toLowerCase().match(/[a-z0-9]+/g);
  if (!words) return false;
  return words[0] === 'no' || words[0] === 'not' || words.every((w) => LOW_SIGNAL.has(w));
}

interface Candidate {
  start: number;
  priority: number;
  source: 'explicit' | 'alias' | 'implicit';
  raw: string;
}

/** Entity names in first-seen order. */
export function extractEntities(text: string): string[] {
  const events: Candidate[] = [];
  const quoted: Array<[number, number]> = [];
  for (const pattern of QUOTE_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const inner = m[1]!;
      const start = (m.index ?? 0) + m[0].indexOf(inner);
      quoted.push([start, start + inner.length]);
      events.push({ start, priority: 0, source: 'explicit', raw: inner });
    }
  }
  for (const m of HAS_ALIAS.test(text) ? text.matchAll(AKA) : []) {
    const groups = m.groups ?? {};
    const left = groups.left ?? '';
    const right = groups.right ?? '';
    const base = m.index ?? 0;
    events.push({ start: base, priority: 1, source: 'alias', raw: left });
    events.push({ start: base + m[0].lastIndexOf(right), priority: 1, source: 'alias', raw: right });
  }
  for (const m of text.matchAll(CAPITALIZED)) {
    let start = m.index ?? 0;
    let raw = m[1]!;
    const end = start + raw.length;
    if (quoted.some(([s, e]) => s <= start && end <= e)) continue;
    if (isSentenceStart(text, start)) {
      // "So Apple…", "Using Python…", "The Playwright tests…": a leading function word or verb is
      // sentence structure, not part of a name.
      const words = raw.split(/\s+/u);
      const first = words[0]!.toLowerCase();
      if (LEADING_NOISE.has(first) || first.endsWith('ing')) {
        if (words.length < 3) continue;
        const cut = raw.indexOf(words[1]!, words[0]!.length);
        start += cut;
        raw = raw.slice(cut);
      }
    }
    events.push({ start, priority: 2, source: 'implicit', raw });
  }
  events.sort((a, b) => a.start - b.start || a.priority - b.priority);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const ev of events) {
    const candidate = cleanEntityCandidate(ev.raw);
    if (candidate === null) continue;
    if (ev.source === 'implicit' && isSentenceStart(text, ev.start) && isLowSignal(candidate)) continue;
    const key = entityKey(candidate);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(candidate);
  }
  return out;
}
