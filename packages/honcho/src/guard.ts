/**
 * What every text passes before it is sent to Honcho, whichever way it comes in (a turn, the
 * `honcho_conclude` and `honcho_profile` tools, the builtin mirror, the memory-file migration):
 * core's write scanner, judging it alone and with what it joins, and fence markup escaped. Honcho
 * turns everything it holds into representations, cards and dialectic answers that come back
 * into the prompt, so a payload the scanner blocks must never reach it (issue #12, decision 0151).
 */
import { neutralizeMemoryText, scanWriteInContext } from '@hermes-memory/core';

export type GuardedText = { ok: true; text: string } | { ok: false; error: string };

/** `text` neutralised for storage, or the scanner's reason for refusing it (`others`: what it joins). */
export function guardWrite(text: string, others: readonly string[] = []): GuardedText {
  const scan = scanWriteInContext(text, others);
  return scan.ok ? { ok: true, text: neutralizeMemoryText(text) } : { ok: false, error: scan.message };
}
