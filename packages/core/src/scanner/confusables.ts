/**
 * Look-alike letters that NFKC leaves alone (Cyrillic, Greek, IPA and dotless forms that render
 * like Latin ones). Folding them lets the rules see "Ιgnore" (Greek capital iota) as "Ignore".
 * A small hand-picked map in the spirit of Unicode's confusables.txt, limited to letters that
 * are visually identical to a Latin letter in common fonts. Greek small iota is left out: NFKC
 * turns the combining ypogegrammeni of "Zalgo" text into it.
 */
const PAIRS: ReadonlyArray<readonly [string, string]> = [
  // Cyrillic lower / upper
  ['а', 'a'],
  ['е', 'e'],
  ['о', 'o'],
  ['р', 'p'],
  ['с', 'c'],
  ['у', 'y'],
  ['х', 'x'],
  ['і', 'i'],
  ['ј', 'j'],
  ['ѕ', 's'],
  ['ԁ', 'd'],
  ['ԛ', 'q'],
  ['ԝ', 'w'],
  ['һ', 'h'],
  ['ӏ', 'l'],
  ['ɡ', 'g'],
  ['А', 'A'],
  ['В', 'B'],
  ['Е', 'E'],
  ['К', 'K'],
  ['М', 'M'],
  ['Н', 'H'],
  ['О', 'O'],
  ['Р', 'P'],
  ['С', 'C'],
  ['Т', 'T'],
  ['Х', 'X'],
  ['У', 'Y'],
  ['І', 'I'],
  ['Ј', 'J'],
  ['Ѕ', 'S'],
  ['Ԁ', 'D'],
  // Greek
  ['Α', 'A'],
  ['Β', 'B'],
  ['Ε', 'E'],
  ['Ζ', 'Z'],
  ['Η', 'H'],
  ['Ι', 'I'],
  ['Κ', 'K'],
  ['Μ', 'M'],
  ['Ν', 'N'],
  ['Ο', 'O'],
  ['Ρ', 'P'],
  ['Τ', 'T'],
  ['Υ', 'Y'],
  ['Χ', 'X'],
  ['ο', 'o'],
  ['ν', 'v'],
  ['κ', 'k'],
  ['ρ', 'p'],
  ['τ', 't'],
  ['υ', 'u'],
  ['ϲ', 'c'],
  ['ϳ', 'j'],
  // Latin extensions / IPA that pass for ASCII
  ['ɑ', 'a'],
  ['ı', 'i'],
  ['ȷ', 'j'],
  ['ɩ', 'i'],
  ['ʟ', 'l'],
  ['ɪ', 'i'],
  ['ᴏ', 'o'],
  ['ᴄ', 'c'],
  ['ᴠ', 'v'],
  ['ᴡ', 'w'],
  ['ᴢ', 'z'],
  ['ꞵ', 'b'],
  ['ǀ', 'l'],
  ['ℓ', 'l'],
];

const MAP = new Map<string, string>(PAIRS);
const CONFUSABLE = new RegExp(`[${PAIRS.map(([from]) => from).join('')}]`, 'u');
const CONFUSABLE_G = new RegExp(CONFUSABLE.source, 'gu');

/** True when the text holds at least one look-alike letter. */
export function hasConfusable(text: string): boolean {
  return CONFUSABLE.test(text);
}

/** The Latin letter a look-alike imitates, or the character itself. */
export function foldConfusableChar(ch: string): string {
  return MAP.get(ch) ?? ch;
}

/** Replace every look-alike letter with the Latin letter it imitates. */
export function foldConfusables(text: string): string {
  return text.replace(CONFUSABLE_G, (ch) => MAP.get(ch) ?? ch);
}

/**
 * A single word that mixes Latin letters with a look-alike from another script ("pаssword" with
 * a Cyrillic а). Real words in Russian or Greek are all one script, and loan symbols such as "μs"
 * or "kΩ" are not in the map, so they pass.
 */
export const CONFUSABLE_MIXED_WORD = String.raw`(?:\p{Script=Latin}[\p{L}\p{M}]{0,30}?${CONFUSABLE.source}|${CONFUSABLE.source}[\p{L}\p{M}]{0,30}?\p{Script=Latin})`;
