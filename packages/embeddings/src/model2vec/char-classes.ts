/**
 * Unicode character classes used by the BERT normaliser and pre-tokeniser, memoised per BMP code
 * unit so the hot loop pays for a regex test only the first time it meets a character.
 */

export const WORD = 0;
export const SPACE = 1;
export const PUNCT = 2;

const OTHER_RE = /^\p{C}$/u; // Cc, Cf, Cs, Co, Cn: "control" in the BERT sense
const SPACE_RE = /^\s$/u;
const PUNCT_RE = /^\p{P}$/u;

/** `char::is_ascii_punctuation` — includes symbols such as `$ + < = > ^ \` | ~`. */
function isAsciiPunct(cp: number): boolean {
  return (
    (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)
  );
}

/** CJK ideograph blocks that BERT surrounds with spaces so each becomes a word of its own. */
export function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

/** Whitespace in the BERT sense: tab, newline, carriage return and Unicode White_Space. */
export function isBertWhitespace(cp: number): boolean {
  if (cp === 9 || cp === 10 || cp === 13 || cp === 32) return true;
  if (cp < 128) return false;
  return SPACE_RE.test(String.fromCodePoint(cp));
}

/** A control character that `clean_text` deletes (tab, newline and CR count as whitespace instead). */
export function isBertControl(cp: number): boolean {
  if (cp === 9 || cp === 10 || cp === 13) return false;
  if (cp === 0 || cp === 0xfffd) return true;
  if (cp < 32 || cp === 127) return true;
  if (cp < 128) return false;
  return OTHER_RE.test(String.fromCodePoint(cp));
}

/** Punctuation in the BertPreTokenizer sense: ASCII punctuation or any Unicode P* category. */
export function isBertPunct(cp: number): boolean {
  if (cp < 128) return isAsciiPunct(cp);
  return PUNCT_RE.test(String.fromCodePoint(cp));
}

const UNKNOWN = 255;
const bmpClass = new Uint8Array(0x10000).fill(UNKNOWN);

/** Pre-tokeniser class (WORD, SPACE or PUNCT) of a code point, memoised for the BMP. */
export function splitClass(cp: number): number {
  if (cp < 0x10000) {
    const cached = bmpClass[cp]!;
    if (cached !== UNKNOWN) return cached;
    const cls = computeClass(cp);
    bmpClass[cp] = cls;
    return cls;
  }
  return computeClass(cp);
}

function computeClass(cp: number): number {
  if (isBertWhitespace(cp)) return SPACE;
  if (isBertPunct(cp)) return PUNCT;
  return WORD;
}
