import {
  type ChatMessage,
  extractUserInstruction,
  type MemoryTarget,
  stripRecallBlocks,
} from '@hermes-memory/core';

/** Characters of each side of a turn sent to `brv curate` (the reference's cap). */
export const TURN_SIDE_CHARS = 2000;
/** Messages of the conversation's tail a pre-compression flush looks at, and characters of each. */
export const PRE_COMPRESS_MESSAGES = 10;
export const PRE_COMPRESS_CHARS = 500;
/** User text shorter than this (trimmed) is not worth curating or recalling. */
export const MIN_TEXT_CHARS = 10;

/**
 * A finished turn as brv curates it: `User: …\nAssistant: …`, each side capped. Recall the manager
 * injected into the user message is not part of what the user said, so it is removed first.
 */
export function turnText(userContent: string, assistantContent: string): string {
  const user = stripRecallBlocks(userContent).slice(0, TURN_SIDE_CHARS);
  const assistant = stripRecallBlocks(assistantContent).slice(0, TURN_SIDE_CHARS);
  return `User: ${user}\nAssistant: ${assistant}`;
}

/** A mirrored builtin memory write, labelled by its target as the reference does. */
export function mirrorText(target: MemoryTarget, content: string): string {
  return `${target === 'user' ? '[User profile]' : '[Agent memory]'} ${content}`;
}

/**
 * The lines a pre-compression flush curates: user and assistant messages with string content
 * among the last ten, each `role: <first 500 chars>`. A user message that is skill-invocation
 * scaffolding counts as the user's instruction only; a bare invocation drops its whole turn (the
 * assistant's reply to it too), decided over the whole conversation so a window that starts
 * mid-turn is judged right.
 */
export function preCompressLines(messages: readonly ChatMessage[]): string[] {
  const lines: string[] = [];
  let skipTurn = false;
  const first = messages.length - PRE_COMPRESS_MESSAGES;
  messages.forEach((message, index) => {
    const role = message.role;
    let content: unknown = message.content;
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string') return;
    if (role === 'user') {
      content = extractUserInstruction(content) ?? '';
      skipTurn = content === '';
    }
    const text = stripRecallBlocks(content as string);
    if (index >= first && !skipTurn && text.trim() !== '')
      lines.push(`${role}: ${text.slice(0, PRE_COMPRESS_CHARS)}`);
  });
  return lines;
}

/** The curate content of a flush, or '' when there is nothing to keep. */
export function preCompressText(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `[Pre-compression context]\n${lines.join('\n')}`;
}
