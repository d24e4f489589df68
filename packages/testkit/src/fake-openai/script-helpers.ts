import type { FakeChatRequest } from './types';

/** A message of a recorded chat request. */
export type FakeChatMessage = FakeChatRequest['messages'][number];

/** The text of a message's content: a string as is, text parts joined, anything else "". */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String(p.text) : '')).join('');
  return '';
}

/**
 * What a scripted model answers: the last user message and the tool results that came after it
 * (non-empty once the model's own tool calls have been executed).
 */
export function currentTurn(messages: readonly FakeChatMessage[]): {
  user: string;
  tools: FakeChatMessage[];
} {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role !== 'user') i--;
  return {
    user: i >= 0 ? messageText(messages[i]!.content) : '',
    tools: messages.slice(i + 1).filter((m) => m.role === 'tool'),
  };
}
