/**
 * A last reading for words split or run together ("Ig nore previ ous instruc tions",
 * "ignore.previous.instructions", "IgnorePreviousInstructions"): the text reduced to its letters,
 * leet digits undone, and a few high-signal phrases looked for with no word breaks at all. Only
 * whole override / extraction phrases count, so ordinary words that happen to be adjacent
 * ("…show the instructions for…") never match.
 */
import { rule, type ThreatRule } from './rule-kit';
import { LEET as BASE_LEET } from './variants';

const LEET: Readonly<Record<string, string>> = { ...BASE_LEET, '!': 'i', '|': 'i' };

/**
 * Letters only, lower-cased, leet characters read as letters; a sentence end or line break stays
 * as "." so a phrase is never assembled across sentences.
 */
export function squash(text: string): string {
  return text
    .toLowerCase()
    .replace(/[.!?]+\s+|\n+/g, '\u0000')
    .replace(/[013457@$!|]/g, (c) => LEET[c] ?? c)
    .replace(/[^\p{L}\u0000]+/gu, '')
    .replace(/\u0000+/g, '.');
}

const DROP = '(?:ignore|ignor|bypass|disregard|forget|override|overrule|discard)';
const FILLER =
  '(?:all|any|every|the|your|my|of|these|those|previous|prior|above|earlier|preceding|former|original|initial|existing|system){1,4}';
const ORDERS = '(?:instructions|directives|prompts|systemprompt|guidelines|programming|guardrails)';

export const SQUASHED_RULES: readonly ThreatRule[] = [
  rule('prompt_injection', 'all', `${DROP}${FILLER}${ORDERS}`),
  rule(
    'prompt_extraction',
    'context',
    '(?:reveal|print|show|output|repeat|display|leak|dump|recite)(?:me)?(?:your|the)(?:full|entire|hidden|original|initial|secret)?(?:systemprompt|initialprompt|hiddenprompt|systeminstructions)',
  ),
  rule(
    'policy_evasion_mode',
    'strict',
    'doanythingnow|developermodeenabled|jailbreakmodeenabled|jailbrokenmode',
  ),
];
