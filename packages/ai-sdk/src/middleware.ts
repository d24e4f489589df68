import { appendMemoryContext, isTrivialPrompt } from '@hermes-memory/core';
import type { LanguageModelMiddleware } from 'ai';
import { createContextScrubStream, scrubContent } from './scrub';
import type { CallOptions, Prompt, PromptMessage, UserPromptMessage } from './spec-types';
import type { AiSdkMemoryManager } from './types';

export interface MemoryMiddlewareOptions {
  /** Add `manager.buildSystemPrompt()` (frozen snapshot + provider guidance) to the system prompt. Default true. */
  systemPrompt?: boolean;
  /** Append the fenced recall (`manager.prefetchAll`) to the API copy of the last user message. Default true. */
  recall?: boolean;
  /** Call `manager.onTurnStart(n, text)` once per new user turn, before recall. Default true. */
  turnStart?: boolean;
  /** Remove `<memory-context>` spans the model echoes from its text and reasoning. Default true. */
  scrubOutput?: boolean;
  /** Session id for recall. Default: the manager's current session. */
  sessionId?: string;
  /** Observe each turn's recall (for a UI or logs). Called once per user turn, not per step. */
  onRecall?: (event: RecallEvent) => void;
}

export interface RecallEvent {
  /** The text of the user message the recall was made for. */
  userText: string;
  /** The fenced `<memory-context>` block, or "" when nothing was recalled (or the prompt was trivial). */
  block: string;
  /** 1-based user turn number (as passed to `onTurnStart`). */
  turn: number;
}

interface TurnEntry {
  key: string;
  turn: number;
  recall: Promise<string>;
}

/**
 * A `LanguageModelMiddleware` that gives any AI SDK model Hermes memory:
 *
 * - `transformParams` adds the memory system prompt once (frozen per session, so the prompt prefix
 *   stays cacheable) and appends the fenced recall to the API copy of the LAST user message. The
 *   AI SDK hands middleware its own converted prompt; this builds a new prompt on top of it and
 *   never touches the caller's messages or the stored transcript.
 * - Recall is made once per user turn. A turn starts when the prompt ENDS with a user message;
 *   the later steps of a tool loop (the same user message followed by assistant/tool messages)
 *   reuse that turn's recall instead of prefetching again.
 * - `wrapStream` / `wrapGenerate` scrub `<memory-context>` spans the model echoes, with core's
 *   `StreamingContextScrubber` (fences split across deltas included).
 *
 * Use with `wrapLanguageModel({ model, middleware: memoryMiddleware(manager) })`.
 */
export function memoryMiddleware(
  manager: AiSdkMemoryManager,
  options: MemoryMiddlewareOptions = {},
): LanguageModelMiddleware {
  const withSystemPrompt = options.systemPrompt ?? true;
  const withRecall = options.recall ?? true;
  const withTurnStart = options.turnStart ?? true;
  const scrub = options.scrubOutput ?? true;

  let systemPrompt: { sessionId: string; text: string } | undefined;
  let current: TurnEntry | undefined;
  let turns = 0;

  const memorySystemPrompt = (): string => {
    const sessionId = manager.sessionId;
    // Frozen per session, like the reference: rebuilt only when the manager switches sessions.
    if (!systemPrompt || systemPrompt.sessionId !== sessionId) {
      systemPrompt = { sessionId, text: manager.buildSystemPrompt().trim() };
    }
    return systemPrompt.text;
  };

  const recallFor = (prompt: Prompt): Promise<string> | undefined => {
    const index = lastUserIndex(prompt);
    if (index < 0) return undefined;
    const userText = userMessageText(prompt[index] as UserPromptMessage);
    const sessionId = options.sessionId ?? manager.sessionId;
    const key = `${sessionId}\u0000${index}\u0000${userText}`;
    const newTurn = index === prompt.length - 1;
    if (!newTurn && current?.key === key) return current.recall;

    // A new user turn (or a tool loop we have not seen, e.g. resumed after a restart).
    const turn = newTurn ? ++turns : Math.max(turns, 1);
    const recall = (async () => {
      if (newTurn && withTurnStart) await manager.onTurnStart(turn, userText);
      const block =
        userText.trim() === '' || isTrivialPrompt(userText)
          ? ''
          : await manager.prefetchAll(userText, sessionId ? { sessionId } : {});
      try {
        options.onRecall?.({ userText, block, turn });
      } catch {
        // An observer must not break the model call.
      }
      return block;
    })();
    const entry: TurnEntry = { key, turn, recall };
    current = entry;
    // A failed recall is not cached: the next step tries again.
    recall.catch(() => {
      if (current === entry) current = undefined;
    });
    return recall;
  };

  return {
    specificationVersion: 'v3',

    async transformParams({ params }): Promise<CallOptions> {
      let prompt: Prompt = params.prompt;
      if (withRecall) {
        const pending = recallFor(prompt);
        const block = pending ? await pending : '';
        if (block) prompt = withRecallBlock(prompt, block);
      }
      if (withSystemPrompt) {
        const block = memorySystemPrompt();
        if (block) prompt = withSystemBlock(prompt, block);
      }
      return prompt === params.prompt ? params : { ...params, prompt };
    },

    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      return scrub ? { ...result, content: scrubContent(result.content) } : result;
    },

    async wrapStream({ doStream }) {
      const result = await doStream();
      return scrub ? { ...result, stream: result.stream.pipeThrough(createContextScrubStream()) } : result;
    },
  };
}

function lastUserIndex(prompt: Prompt): number {
  for (let i = prompt.length - 1; i >= 0; i--) if (prompt[i]?.role === 'user') return i;
  return -1;
}

function userMessageText(message: UserPromptMessage): string {
  return message.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim();
}

/** A new prompt whose last user message carries the recall; every other message is shared as is. */
function withRecallBlock(prompt: Prompt, block: string): Prompt {
  const index = lastUserIndex(prompt);
  const message = prompt[index] as UserPromptMessage;
  const content = [...message.content];
  const last = content[content.length - 1];
  if (last?.type === 'text')
    content[content.length - 1] = { ...last, text: appendMemoryContext(last.text, block) };
  else content.push({ type: 'text', text: block });
  const copy = [...prompt];
  copy[index] = { ...message, content };
  return copy;
}

/** Add the memory block to the leading system messages, unless it is already there. */
function withSystemBlock(prompt: Prompt, block: string): Prompt {
  let leading = 0;
  while (prompt[leading]?.role === 'system') leading++;
  for (let i = 0; i < prompt.length; i++) {
    const message = prompt[i];
    if (message?.role === 'system' && message.content.includes(block)) return prompt;
  }
  if (leading === 0) return [{ role: 'system', content: block }, ...prompt];
  const copy = [...prompt];
  const last = copy[leading - 1] as Extract<PromptMessage, { role: 'system' }>;
  copy[leading - 1] = { ...last, content: last.content ? `${last.content}\n\n${block}` : block };
  return copy;
}
