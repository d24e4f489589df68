/**
 * @hermes-memory/ai-sdk — Hermes memory for the Vercel AI SDK (`ai` v6):
 *
 * - `memoryTools(manager)`: the providers' tools as a `ToolSet` for generateText / streamText;
 * - `memoryMiddleware(manager)`: memory system prompt, per-turn fenced recall on the last user
 *   message, and scrubbing of echoed `<memory-context>` spans (for `wrapLanguageModel`);
 * - `createMemoryHooks` / `recordTurn`: sync the finished turn and warm the next recall.
 */

export {
  createMemoryHooks,
  type FinishedTurn,
  type MemoryHooks,
  type MemoryHooksOptions,
  type RecordTurnOptions,
  recordTurn,
} from './hooks';
export { toChatMessages } from './messages';
export { type MemoryMiddlewareOptions, memoryMiddleware, type RecallEvent } from './middleware';
export { createContextScrubStream, scrubText } from './scrub';
export { type MemoryToolsOptions, memoryTools, parseToolResult } from './tools';
export type { AiSdkMemoryManager } from './types';
