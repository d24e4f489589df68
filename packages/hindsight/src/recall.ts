/** How recalled memories reach the prompt: the reference's header, then one `- text` line each. */
import { neutralizeMemoryText } from '@hermes-memory/core';
import type { RecallHit } from './client';

export const DEFAULT_PREAMBLE =
  '# Hindsight Memory (persistent cross-session context)\n' +
  'Use this to answer questions about the user and prior sessions. ' +
  'Do not call tools to look up information that is already present here.';

/** What one recall found: the body text and how many memories it holds (0 for a reflect synthesis). */
export interface Recalled {
  text: string;
  count: number;
}

export function recalledFromHits(hits: readonly RecallHit[]): Recalled {
  // Stored text goes into the prompt: nothing in it may open, close or imitate the recall fence.
  const lines = hits.map((h) => `- ${neutralizeMemoryText(h.text.trim())}`);
  return { text: lines.join('\n'), count: hits.length };
}

export function recalledFromReflect(answer: string): Recalled {
  return { text: neutralizeMemoryText(answer.trim()), count: 0 };
}

/** The block `prefetch` returns: header, blank line, body; '' when there is nothing. */
export function formatRecallBlock(body: string, preamble: string): string {
  if (body.trim() === '') return '';
  return `${preamble.trim() === '' ? DEFAULT_PREAMBLE : preamble}\n\n${body}`;
}
