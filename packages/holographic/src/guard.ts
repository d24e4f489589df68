/**
 * What every fact passes before it is stored, whichever way it comes in (the `fact_store` tool,
 * the builtin mirror, auto-extraction, import): a size limit, neutralised fence markup, and core's
 * write scanner judging it with the latest facts of its category — facts are recalled into the
 * prompt, so a blocked payload must never become one, whole or split across several facts.
 */
import { neutralizeMemoryText, scanWriteInContext } from '@hermes-memory/core';
import type { FactStore } from './store';

/** The longest fact accepted (characters). A longer text should be summarised or split into facts. */
export const MAX_FACT_CHARS = 16_384;

/** How many of the latest facts of the same category a new fact is judged with. */
const CONTEXT_FACTS = 8;

export type GuardedFact = { ok: true; content: string } | { ok: false; error: string };

/**
 * The text to store for `content` in `category`, or why it is refused. `replacing` names a fact
 * being updated, which is left out of the context it is judged with.
 */
export function guardFact(
  store: FactStore,
  content: string,
  category: string,
  replacing?: number,
): GuardedFact {
  return guardFactText(content, store.recentContents(category, CONTEXT_FACTS, replacing));
}

/**
 * `guardFact` without a store: `content` judged with the facts it joins (`others`), for writers
 * that reach the database another way (the CLI's `import`).
 */
export function guardFactText(content: string, others: readonly string[]): GuardedFact {
  const text = content.trim();
  if (text.length > MAX_FACT_CHARS) {
    return {
      ok: false,
      error: `Fact is ${text.length.toLocaleString('en-US')} characters; the limit is ${MAX_FACT_CHARS.toLocaleString('en-US')}. Store a short summary, or split it into separate facts.`,
    };
  }
  const clean = neutralizeMemoryText(text);
  const scan = scanWriteInContext(clean, others);
  return scan.ok ? { ok: true, content: clean } : { ok: false, error: scan.message };
}
