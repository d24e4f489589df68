/** Shared building blocks for the threat rules (kept apart so every rule file can import them). */
export type ScanScope = 'all' | 'context' | 'strict';

export interface ThreatRule {
  id: string;
  scope: ScanScope;
  pattern: RegExp;
}

/** Up to eight words between two key words ("ignore all of the prior instructions"). */
export const GAP = String.raw`(?:[\w'’-]+[\s,;:]+){0,8}?`;

/** Up to three words: for phrases whose parts must stay close to mean the same thing. */
export const NEAR = String.raw`(?:[\w'’-]+[\s,;:]+){0,3}?`;

/** The rest of one sentence (bounded, no line break, no sentence stop). */
export const SENTENCE = String.raw`[^\n.!?]{0,160}?`;

/** Compile once, case-insensitive and Unicode-aware. Every quantifier in a rule is bounded. */
export function rule(id: string, scope: ScanScope, source: string, flags = 'iu'): ThreatRule {
  return { id, scope, pattern: new RegExp(source, flags) };
}

/** `a|b|c` from a list, for readable alternations. */
export function oneOf(words: readonly string[]): string {
  return `(?:${words.join('|')})`;
}
