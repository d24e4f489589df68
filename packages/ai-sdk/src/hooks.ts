import type { ChatMessage } from '@hermes-memory/core';
import type { ModelMessage } from 'ai';
import { toChatMessages } from './messages';
import { scrubText } from './scrub';
import type { AiSdkMemoryManager } from './types';

/**
 * What a finished turn must provide: the final text and the messages the model produced. Both
 * `generateText`'s result / `onFinish` event and `streamText`'s `onFinish` event fit.
 */
export interface FinishedTurn {
  readonly text: string;
  readonly response: { readonly messages: readonly ModelMessage[] };
}

export interface RecordTurnOptions {
  /** Session id for sync and prefetch. Default: the manager's current session. */
  sessionId?: string;
  /** Warm recall for the next turn (`queuePrefetchAll`). Default true. */
  prefetchNext?: boolean;
}

/**
 * Record one finished user turn: `syncAll(user, assistant, { messages })` with the turn's
 * transcript (the clean user message, then every assistant/tool message the model produced,
 * tool calls included), then `queuePrefetchAll(user)`. Both return at once; the providers' work
 * runs on their background queues (`manager.flushPending()` waits for it).
 */
export function recordTurn(
  manager: AiSdkMemoryManager,
  userText: string,
  finished: FinishedTurn,
  options: RecordTurnOptions = {},
): void {
  const sessionId = options.sessionId;
  const messages: ChatMessage[] = [
    { role: 'user', content: userText },
    ...toChatMessages(finished.response.messages),
  ];
  manager.syncAll(userText, scrubText(finished.text), { ...(sessionId ? { sessionId } : {}), messages });
  if (options.prefetchNext ?? true) manager.queuePrefetchAll(userText, sessionId ? { sessionId } : {});
}

export interface MemoryHooksOptions extends RecordTurnOptions {
  /** The user's message for this turn, as they typed it (without any recall). */
  userText: string;
}

export interface MemoryHooks {
  /** Pass as `onFinish` to `generateText` / `streamText`: records the turn once it is complete. */
  onFinish: (event: FinishedTurn) => void;
}

/**
 * Per-turn callbacks for `generateText` / `streamText`. The AI SDK's finish event does not carry
 * the prompt, so the hooks are made for one user turn:
 *
 * ```ts
 * await generateText({ model, tools, messages, ...createMemoryHooks(manager, { userText: input }) });
 * ```
 */
export function createMemoryHooks(manager: AiSdkMemoryManager, options: MemoryHooksOptions): MemoryHooks {
  const { userText, ...rest } = options;
  let recorded = false;
  return {
    onFinish: (event) => {
      if (recorded) return; // one turn is recorded once, even if the hooks are reused by mistake
      recorded = true;
      recordTurn(manager, userText, event, rest);
    },
  };
}
