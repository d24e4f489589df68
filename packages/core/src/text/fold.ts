/**
 * Text as a reader sees it, for security checks: characters that render as nothing dropped,
 * compatibility and accented forms reduced to their base letters, case folded, and look-alike
 * letters, brackets, slashes and dashes folded to ASCII. "＜/Ｍemory‐context＞" and
 * "</mem\u200Bory-context>" both read as "</memory-context>".
 */
import { foldConfusableChar } from '../scanner/confusables';

/** Default-ignorable and format (Cf) characters: soft hyphen, LRM, CGJ, ZWSP, variation selectors, tags … */
const IGNORABLE = /^[\p{Default_Ignorable_Code_Point}\p{Cf}]$/u;
const IGNORABLE_G = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;
/** Non-spacing and enclosing marks (accents, strike-through and "Zalgo" overlays). */
const MARK = /[\p{Mn}\p{Me}]/gu;

/** Punctuation look-alikes NFKC leaves alone. */
const PUNCTUATION: Readonly<Record<string, string>> = {
  '\u2039': '<', // ‹
  '\u2329': '<', // 〈
  '\u3008': '<', // 〈
  '\u27e8': '<', // ⟨
  '\u276e': '<', // ❮
  '\u02c2': '<', // ˂
  '\u1438': '<', // ᐸ
  '\u203a': '>', // ›
  '\u232a': '>', // 〉
  '\u3009': '>', // 〉
  '\u27e9': '>', // ⟩
  '\u276f': '>', // ❯
  '\u02c3': '>', // ˃
  '\u1433': '>', // ᐳ
  '\u2044': '/', // ⁄
  '\u2215': '/', // ∕
  '\u29f8': '/', // ⧸
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u3010': '[', // 【
  '\u27e6': '[', // ⟦
};

/** True for a character that renders as nothing (or only steers rendering). */
export function isIgnorableChar(ch: string): boolean {
  return IGNORABLE.test(ch);
}

/** `text` without default-ignorable and format characters. */
export function stripIgnorables(text: string): string {
  return text.replace(IGNORABLE_G, '');
}

const cache = new Map<string, string>();

/** The folded reading of one code point ("" when it renders as nothing). */
export function foldChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x80) return code >= 65 && code <= 90 ? String.fromCharCode(code + 32) : ch;
  const hit = cache.get(ch);
  if (hit !== undefined) return hit;
  let out: string;
  if (IGNORABLE.test(ch)) out = '';
  else if (PUNCTUATION[ch] !== undefined) out = PUNCTUATION[ch]!;
  else {
    out = '';
    for (const part of ch.normalize('NFKD').replace(MARK, '')) {
      const p = PUNCTUATION[part] ?? foldConfusableChar(part);
      out += p.toLowerCase();
    }
  }
  if (cache.size < 4096) cache.set(ch, out);
  return out;
}

/** A folded reading of a text, with where each of its UTF-16 units came from. */
export interface Skeleton {
  text: string;
  /**
   * `origin[i]`: index in the source of the code point that produced unit `i` of `text`; null
   * when the two line up one to one (ASCII text).
   */
  origin: Int32Array | null;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Where unit `i` of a skeleton came from in its source. */
export function originOf(sk: Skeleton, i: number): number {
  return sk.origin === null ? i : sk.origin[i]!;
}

/** Fold every code point (see {@link foldChar}); linear in the length of `text`. */
export function skeleton(text: string): Skeleton {
  if (ASCII.test(text)) return { text: text.toLowerCase(), origin: null };
  const parts: string[] = [];
  let origin = new Int32Array(text.length + 16);
  let size = 0;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const folded = foldChar(width === 1 ? text[i]! : text.slice(i, i + 2));
    if (size + folded.length > origin.length) {
      const grown = new Int32Array(origin.length * 2 + folded.length);
      grown.set(origin);
      origin = grown;
    }
    for (let k = 0; k < folded.length; k++) origin[size++] = i;
    parts.push(folded);
    i += width;
  }
  return { text: parts.join(''), origin: origin.subarray(0, size) };
}

/** Index just past the code point that starts at `index`. */
export function codePointEnd(text: string, index: number): number {
  const cp = text.codePointAt(index);
  return cp !== undefined && cp > 0xffff ? index + 2 : index + 1;
}
