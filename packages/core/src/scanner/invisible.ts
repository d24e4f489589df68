/**
 * Code points that render as nothing (or silently reorder text) and are used to hide
 * instructions from a human reviewer: zero-width characters, invisible operators, the BOM, bidi
 * embeddings/overrides/isolates, and the Unicode tag block (U+E0000–U+E007F, "ASCII smuggling").
 */
const SINGLE = new Set<number>([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x202a, 0x202b, 0x202c, 0x202d,
  0x202e, 0x2066, 0x2067, 0x2068, 0x2069,
]);

export function isInvisibleCodePoint(cp: number): boolean {
  return SINGLE.has(cp) || (cp >= 0xe0000 && cp <= 0xe007f);
}

/** The first invisible code point in `text`, or undefined. */
export function findInvisibleCodePoint(text: string): number | undefined {
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (isInvisibleCodePoint(cp)) return cp;
  }
  return undefined;
}

/** "U+200B" style label. */
export function formatCodePoint(cp: number): string {
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}
