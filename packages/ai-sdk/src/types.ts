import type { MemoryManager } from '@hermes-memory/core';

/**
 * The part of `MemoryManager` the adapter drives. `MemoryManager` from `@hermes-memory/core`
 * satisfies it; a narrower object (a wrapper, a test double of your own host) can too.
 */
export type AiSdkMemoryManager = Pick<
  MemoryManager,
  | 'getAllToolSchemas'
  | 'handleToolCall'
  | 'buildSystemPrompt'
  | 'prefetchAll'
  | 'onTurnStart'
  | 'syncAll'
  | 'queuePrefetchAll'
  | 'sessionId'
>;
