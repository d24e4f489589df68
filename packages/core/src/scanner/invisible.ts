/**
 * Code points that render as nothing (or silently reorder text) and are used to hide
 * instructions from a human reviewer: zero-width characters, invisible operators, the BOM, bidi
 * embeddings/overrides/isolates, and the Unicode tag block (U+E0000–U+E007F, "ASCII smuggling").
 *
 * Two legitimate uses are let through because blocking them would reject ordinary emoji:
 * a zero-width joiner inside an emoji ZWJ sequence (👨‍👩‍👧), and a tag sequence that spells a
 * subdivision flag (🏴 + lowercase tag letters/digits + CANCEL TAG, e.g. the flag of England).
 * A byte-order mark as the very first character is a file artefact, not a payload.
 */
const SINGLE = new Set<number>([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x202a, 0x202b, 0x202c, 0x202d,
  0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);

const ZWJ = 0x200d;
const BOM = 0xfeff;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
const EMOJI = /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u{FE0F}|\u{20E3})$/u;

export function isInvisibleCodePoint(cp: number): boolean {
  return SINGLE.has(cp) || (cp >= 0xe0000 && cp <= 0xe007f);
}

function isEmojiPart(ch: string | undefined): boolean {
  return ch !== undefined && EMOJI.test(ch);
}

/** Tag letters a–z / digits 0–9, the only ones a flag tag sequence uses. */
function isFlagTag(cp: number): boolean {
  return (cp >= 0xe0030 && cp <= 0xe0039) || (cp >= 0xe0061 && cp <= 0xe007a);
}

const MVS = 0x180e;
const HANGUL_FILLERS = new Set([0x3164, 0xffa0]);
const JAMO_FILLERS = new Set([0x115f, 0x1160]);
const MONGOLIAN = /^\p{Script=Mongolian}$/u;
const HAN = /^\p{Script=Han}$/u;
/** What a standard variation selector may follow: emoji, symbols (incl. math and arrows), Han. */
const VS_BASE =
  /^(?:\p{Emoji}|\p{Extended_Pictographic}|\p{S}|\p{Script=Han}|\p{Script=Myanmar}|\p{Script=Phags_Pa}|\p{Script=Mongolian})$/u;

function isJamo(ch: string | undefined): boolean {
  const cp = ch?.codePointAt(0);
  return (
    cp !== undefined &&
    ((cp >= 0x1100 && cp <= 0x11ff) || (cp >= 0xa960 && cp <= 0xa97f) || (cp >= 0xd7b0 && cp <= 0xd7ff))
  );
}

function isVariationSelector(cp: number | undefined): boolean {
  return cp !== undefined && ((cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef));
}

/**
 * Characters that are legitimate only next to certain neighbours and otherwise smuggle data or
 * split words unseen: the Mongolian vowel separator outside Mongolian, Hangul fillers outside a
 * jamo sequence, and variation selectors that follow no base they can vary (a letter, another
 * selector, nothing) — the "emoji smuggling" trick hides bytes in runs of them.
 */
function isSmuggler(cp: number, prev: string | undefined, next: string | undefined): boolean {
  if (cp === MVS) return !(prev && MONGOLIAN.test(prev) && next && MONGOLIAN.test(next));
  if (HANGUL_FILLERS.has(cp)) return true;
  if (JAMO_FILLERS.has(cp)) return !(isJamo(prev) || isJamo(next));
  if (cp >= 0xfe00 && cp <= 0xfe0f)
    return prev === undefined || !VS_BASE.test(prev) || isVariationSelector(next?.codePointAt(0));
  if (cp >= 0xe0100 && cp <= 0xe01ef)
    return prev === undefined || !HAN.test(prev) || isVariationSelector(next?.codePointAt(0));
  return false;
}

/** Any character the loop below could flag (tags and supplementary selectors start with U+DB40). */
const CANDIDATE =
  /[\u115f\u1160\u180e\u200b-\u200d\u202a-\u202e\u2060-\u2064\u2066-\u2069\u3164\ufeff\uffa0\udb40]|[\ufe00-\ufe0f]/;

/** The first invisible code point in `text`, or undefined. */
export function findInvisibleCodePoint(text: string): number | undefined {
  if (!CANDIDATE.test(text)) return undefined;
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const cp = chars[i]!.codePointAt(0)!;
    if (!isInvisibleCodePoint(cp)) {
      if (cp >= 0x180e && isSmuggler(cp, chars[i - 1], chars[i + 1])) return cp;
      continue;
    }
    if (cp === BOM && i === 0) continue;
    if (cp === ZWJ && isEmojiPart(chars[i - 1]) && isEmojiPart(chars[i + 1])) continue;
    if (isFlagTag(cp) && chars[i - 1]?.codePointAt(0) === BLACK_FLAG) {
      // Skip a whole well-formed subdivision flag: up to 6 tag letters, then CANCEL TAG.
      let j = i;
      while (j < chars.length && j - i < 6 && isFlagTag(chars[j]!.codePointAt(0)!)) j++;
      if (chars[j]?.codePointAt(0) === CANCEL_TAG) {
        i = j;
        continue;
      }
    }
    return cp;
  }
  return undefined;
}

/** "U+200B" style label. */
export function formatCodePoint(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
