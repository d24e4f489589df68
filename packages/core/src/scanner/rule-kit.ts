/** Shared building blocks for the threat rules (kept apart so every rule file can import them). */
export type ScanScope = 'all' | 'context' | 'strict';

export interface ThreatRule {
  id: string;
  scope: ScanScope;
  /** True when the rule matches one reading of a text. Match with this. */
  test(text: string): boolean;
  /**
   * The rule as one regular expression, for display. Proximity rules are matched by `test` in
   * linear time; this single-regex form of them is slow on adversarial text.
   * @deprecated Use `test`.
   */
  pattern: RegExp;
}

/** Up to eight words between two key words ("ignore all of the prior instructions"). */
export const GAP = String.raw`(?:[\w'’-]+[\s,;:]+){0,8}?`;

/** Up to three words: for phrases whose parts must stay close to mean the same thing. */
export const NEAR = String.raw`(?:[\w'’-]+[\s,;:]+){0,3}?`;

/** The rest of one sentence (bounded, no line break, no sentence stop). */
export const SENTENCE = String.raw`[^\n.!?]{0,160}?`;

function flagsFor(source: string): string {
  // Case-insensitive; the Unicode flag only when the rule needs it (`\p{…}`, `\u{…}`): with it,
  // V8 matches through full Unicode case folding, which made the rule set 3–5× slower.
  return /\\[pP]\{|\\u\{/.test(source) ? 'iu' : 'i';
}

/** Longest run a repeated single-character atom may match (`\s+` becomes `\s{1,32}`), by atom. */
const RUN_LIMIT: Readonly<Record<string, number>> = { s: 32, d: 16, w: 64 };
const DEFAULT_RUN_LIMIT = 256;
/** Longest repetition of a group (`(?:-\w+\s+)*` becomes `(?:-\w{1,64}\s{1,32}){0,16}`). */
const GROUP_LIMIT = 16;

/**
 * `source` with every `*` and `+` bounded: on a single-character atom (`\s`, `\S`, `\w`, `[…]`,
 * `.`) and on a group. An unbounded run restarted at many positions over the same stretch of text is what
 * makes a backtracking regex quadratic: the shell-profile rule, `>>?\s*` then `\S*` then a
 * `/.bashrc` path, walked to the end of a long space-free line from every ">" in it. No word,
 * path or gap in a rule needs a longer run.
 */
export function boundRuns(source: string): string {
  let out = '';
  let atom = -1; // where the last single-character atom starts in `out`, -1 if the last token is not one
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      atom = out.length;
      out += source.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      atom = out.length;
      out += source.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if ((c === '*' || c === '+') && atom >= 0 && source[i + 1] !== '+') {
      const token = out.slice(atom);
      const key = token.length === 2 && token[0] === '\\' ? token[1]!.toLowerCase() : '';
      const limit =
        key === 's' && token[1] === 'S' ? DEFAULT_RUN_LIMIT : (RUN_LIMIT[key] ?? DEFAULT_RUN_LIMIT);
      out += `{${c === '*' ? 0 : 1},${limit}}`;
      atom = -1;
      i++;
      continue;
    }
    if ((c === '*' || c === '+') && out.endsWith(')') && source[i + 1] !== '+') {
      out += `{${c === '*' ? 0 : 1},${GROUP_LIMIT}}`;
      atom = -1;
      i++;
      continue;
    }
    atom = c === '.' ? out.length : -1;
    out += c;
    i++;
  }
  return out;
}

/** Compile once, with every run bounded (`boundRuns`). */
export function rule(id: string, scope: ScanScope, source: string, flags?: string): ThreatRule {
  const bounded = boundRuns(source);
  const pattern = new RegExp(bounded, flags ?? flagsFor(bounded));
  return { id, scope, pattern, test: (text) => pattern.test(text) };
}

/**
 * "`a`, then `b` starting at most `window` characters after `a` ends" — the shape of most command
 * rules (`curl … $API_KEY`, `update … AGENTS.md`). Written as one regex, `a[^\n]{0,W}?b` costs up to
 * W steps for every `a` in the text, so a line of repeated `a`s costs W times its length. As two
 * scans and a merge of their positions it is linear with a small constant, whatever the window.
 */
export interface Near {
  a: string;
  b: string;
  window: number;
  /** Characters that may not come between the two (default a line break; '' for none). */
  barrier?: string;
  /** Also match `b` followed by `a`. */
  either?: boolean;
}

export function near(
  a: string,
  b: string,
  window: number,
  options: Omit<Near, 'a' | 'b' | 'window'> = {},
): Near {
  return { a, b, window, ...options };
}

function global(source: string): RegExp {
  const bounded = boundRuns(source);
  return new RegExp(bounded, `g${flagsFor(bounded)}`);
}

/** Whether some match of `first` is followed, within `window` and no barrier, by a match of `second`. */
function follows(text: string, first: RegExp, second: RegExp, window: number, barrier: string): boolean {
  const ends: number[] = [];
  first.lastIndex = 0;
  for (let m = first.exec(text); m; m = first.exec(text)) {
    ends.push(m.index + m[0].length);
    if (m[0].length === 0) first.lastIndex++;
  }
  if (ends.length === 0) return false;
  const starts: number[] = [];
  second.lastIndex = 0;
  for (let m = second.exec(text); m; m = second.exec(text)) {
    starts.push(m.index);
    if (m[0].length === 0) second.lastIndex++;
  }
  let j = 0;
  let wall = -1;
  for (const end of ends) {
    while (j < starts.length && starts[j]! < end) j++;
    if (j >= starts.length) return false;
    const start = starts[j]!;
    if (start - end > window) continue;
    if (barrier === '') return true;
    if (wall < end) {
      wall = end;
      while (wall < text.length && !barrier.includes(text[wall]!)) wall++;
    }
    if (wall >= start) return true;
  }
  return false;
}

/** A rule made of regex alternatives and proximity parts; it matches when any part does. */
export function compoundRule(id: string, scope: ScanScope, parts: ReadonlyArray<string | Near>): ThreatRule {
  const sources = parts.filter((p): p is string => typeof p === 'string').map(boundRuns);
  const pattern = sources.length > 0 ? new RegExp(sources.join('|'), flagsFor(sources.join('|'))) : null;
  const nears = parts
    .filter((p): p is Near => typeof p !== 'string')
    .map((p) => ({ ...p, ra: global(p.a), rb: global(p.b), stop: p.barrier ?? '\n' }));
  const display = [
    ...sources,
    ...nears.flatMap((n) => {
      const gap =
        n.stop === '' ? `[\\s\\S]{0,${n.window}}?` : `[^${n.stop.replace(/\n/g, '\\n')}]{0,${n.window}}?`;
      const ab = `(?:${n.a})${gap}(?:${n.b})`;
      return n.either ? [ab, `(?:${n.b})${gap}(?:${n.a})`] : [ab];
    }),
  ].join('|');
  return {
    id,
    scope,
    pattern: new RegExp(display, flagsFor(display)),
    test(text) {
      if (pattern?.test(text)) return true;
      for (const n of nears) {
        if (follows(text, n.ra, n.rb, n.window, n.stop)) return true;
        if (n.either && follows(text, n.rb, n.ra, n.window, n.stop)) return true;
      }
      return false;
    },
  };
}

/** `a|b|c` from a list, for readable alternations. */
export function oneOf(words: readonly string[]): string {
  return `(?:${words.join('|')})`;
}
