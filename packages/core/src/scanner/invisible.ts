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

/** The first invisible code point in `text`, or undefined. */
export function findInvisibleCodePoint(text: string): number | undefined {
  const chars = Array.from(text);
  for (let i = 0; i < chars.length; i++) {
    const cp = chars[i]!.codePointAt(0)!;
    if (!isInvisibleCodePoint(cp)) continue;
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
