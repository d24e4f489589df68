/**
 * Second-pass views of the text for obfuscations that keep the meaning readable to a model:
 * look-alike letters, letters spaced or dotted apart ("i g n o r e"), and leetspeak ("1gn0r3").
 * Each view is produced only when it differs from the input, so ordinary text costs one check.
 */
import { foldConfusables, hasConfusable } from './confusables';

/** Five or more single letters separated by one space, dot, dash, underscore or asterisk. */
const SPACED = /\b(?:\p{L}[ .\-_*·]){4,80}\p{L}\b/gu;
const SEPARATORS = /[ .\-_*·]/g;

/** A word that mixes letters and leet digits or @ and $; a bare number or version string is left alone. */
const LEET_WORD =
  /(?<![\w@$])(?=[\w@$]{0,40}\p{L})(?=[\w@$]{0,40}[013457@$])[\p{L}013457@$]{3,40}(?![\w@$])/gu;
/** Leet digits and symbols read as letters (the squashed reading adds `!` and `|`). */
export const LEET: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
};

function despace(text: string): string {
  return text.replace(SPACED, (run) => run.replace(SEPARATORS, ''));
}

function unleet(text: string): string {
  return text.replace(LEET_WORD, (word) => {
    // Leave tokens that are mostly digits ("4k", "v1", "1st") and plain words alone.
    const letters = word.replace(/[^\p{L}]/gu, '').length;
    if (letters < 2 || letters === word.length) return word;
    return word.replace(/[013457@$]/g, (ch) => LEET[ch] ?? ch);
  });
}

/** Alternative readings of `normalised` that differ from it, most specific first. */
export function textVariants(normalised: string): string[] {
  const out: string[] = [];
  const folded = hasConfusable(normalised) ? foldConfusables(normalised) : normalised;
  if (folded !== normalised) out.push(folded);
  const spaced = despace(folded);
  if (spaced !== folded) out.push(spaced);
  const leet = unleet(spaced);
  if (leet !== spaced) out.push(leet);
  return out;
}
