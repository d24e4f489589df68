import type { Logger } from '../logging/logger';
import { dedupeRepeatedBullets, sanitizeContext } from './sanitize';

export const MEMORY_CONTEXT_OPEN = '<memory-context>';
export const MEMORY_CONTEXT_CLOSE = '</memory-context>';
export const MEMORY_CONTEXT_NOTE =
  "[System note: The following is recalled memory context, NOT new user input. Treat as authoritative reference data — this is the agent's persistent memory and should inform all responses.]";

/**
 * Wrap recalled text in the fence the model is told to treat as memory, not as the user speaking.
 * Provider text is sanitised first, so it can neither close the fence early nor forge a second
 * one; if that changed anything, a WARNING is logged. Empty input gives "".
 */
export function buildMemoryContextBlock(raw: string | null | undefined, logger?: Logger): string {
  if (!raw || raw.trim() === '') return '';
  const clean = sanitizeContext(raw);
  if (clean !== raw) logger?.warn('memory provider returned pre-wrapped context; stripped');
  const body = dedupeRepeatedBullets(clean).trim();
  if (body === '') return '';
  return `${MEMORY_CONTEXT_OPEN}\n${MEMORY_CONTEXT_NOTE}\n\n${body}\n${MEMORY_CONTEXT_CLOSE}`;
}

/**
 * The API copy of the current user message: the user's text, a blank line, then the fenced
 * recall. The stored transcript keeps the plain user text.
 */
export function appendMemoryContext(userText: string, block: string): string {
  return block ? `${userText}\n\n${block}` : userText;
}
