import type { InitContextInput, MemoryProvider } from '@hermes-memory/core';
import { loadPackage } from '../packages';

/** The slice of core's MemoryManager the latency suite drives (loaded at run time). */
export interface MemoryManagerLike {
  addProvider(provider: MemoryProvider): boolean;
  initializeAll(sessionId: string, input?: InitContextInput): Promise<void>;
  buildSystemPrompt(): string;
  prefetchAll(query: string, options?: { sessionId?: string }): Promise<string>;
  queuePrefetchAll(query: string, options?: { sessionId?: string }): void;
  syncAll(user: string, assistant: string, options?: { sessionId?: string }): void;
  flushPending(timeoutMs?: number): Promise<boolean>;
  handleToolCall(name: string, args: unknown, options?: { sessionId?: string }): Promise<string>;
  getAllToolNames(): string[];
  shutdownAll(): Promise<unknown>;
}

export async function loadMemoryManagerClass(): Promise<
  new (
    options?: Record<string, unknown>,
  ) => MemoryManagerLike
> {
  const core = await loadPackage('@hermes-memory/core');
  const ctor = core['MemoryManager'];
  if (typeof ctor !== 'function') throw new Error('@hermes-memory/core does not export MemoryManager yet');
  return ctor as new (
    options?: Record<string, unknown>,
  ) => MemoryManagerLike;
}
