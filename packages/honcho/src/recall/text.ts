/**
 * Honcho's own trivial-prompt test, stricter than core's `isTrivialPrompt`: no greetings, and the
 * whole trimmed message must be one of the acknowledgements (no trailing punctuation). Empty text
 * and slash commands are trivial too. A trivial turn starts no recall work.
 */
const TRIVIAL =
  /^(yes|no|ok|okay|sure|thanks|thank you|y|n|yep|nope|yeah|nah|continue|go ahead|do it|proceed|got it|cool|nice|great|done|next|lgtm|k)$/i;

export function isTrivialHonchoPrompt(text: string | null | undefined): boolean {
  const stripped = (text ?? '').trim();
  return stripped === '' || stripped.startsWith('/') || TRIVIAL.test(stripped);
}

/**
 * Cut `text` to `maxChars` at a word boundary, provided that boundary lies past 80 % of the budget,
 * and append " …" (the `contextTokens` budget: tokens × 4 characters).
 */
export function truncateToChars(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let cut = text.slice(0, maxChars);
  const lastSpace = cut.lastIndexOf(' ');
  if (lastSpace > maxChars * 0.8) cut = cut.slice(0, lastSpace);
  return `${cut} …`;
}

/** Cut at the last space within `maxChars` (the reference's `text[:n].rsplit(" ", 1)[0]`). */
export function cutAtWord(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = text.slice(0, maxChars);
  const lastSpace = head.lastIndexOf(' ');
  return lastSpace >= 0 ? head.slice(0, lastSpace) : head;
}
