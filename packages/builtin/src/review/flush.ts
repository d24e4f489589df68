import type { ChatMessage, LlmClient, Logger } from '@hermes-memory/core';
import { silentLogger } from '@hermes-memory/core';
import { MEMORY_TOOL_SCHEMA } from '../memory/memory-tool';
import type { MemoryStore } from '../memory/memory-store';
import type { WriteApprovalMode } from '../memory/write-approval';
import { type AppliedCall, applyMemoryToolCalls } from './apply-tool-calls';

export const FLUSH_PROMPT =
  '[System: The session is being compressed. Save anything worth remembering — prioritize user preferences, ' +
  'corrections, and recurring patterns over task-specific details.]';

export interface FlushOptions {
  llm: LlmClient;
  store: MemoryStore;
  /** The conversation so far (OpenAI shape). Not modified. */
  messages: readonly ChatMessage[];
  /** The cached system prompt, sent first when given. */
  systemPrompt?: string;
  /** `memory.flush_min_turns` (default 6); 0 disables flushing unless `minTurns` is passed. */
  flushMinTurns?: number;
  /**
   * Explicit minimum of user turns for this call. 0 = always (compression, /new, exit): any
   * conversation with a user message is flushed, without the reference's 3-message floor.
   */
  minTurns?: number;
  signal?: AbortSignal;
  logger?: Logger;
  /** Extra metadata for the write mirror. */
  sessionId?: string;
  /** The host's write-approval gate: `'stage'` stages the flush's writes, `'block'` refuses them. */
  writeApproval?: WriteApprovalMode;
}

export interface FlushResult {
  ran: boolean;
  /** Why the flush was skipped or failed. */
  reason?: string;
  applied: AppliedCall[];
}

/**
 * The baseline "flush before compression": one model call offering only the memory tool, its tool
 * calls applied through the same store (scanner, limits, locks). The caller's transcript is never
 * changed — the flush instruction lives only in the request copy.
 */
export async function flushMemories(options: FlushOptions): Promise<FlushResult> {
  const logger = options.logger ?? silentLogger;
  const configured = options.flushMinTurns ?? 6;
  if (options.minTurns === undefined && configured <= 0)
    return { ran: false, reason: 'disabled', applied: [] };
  const minimum = options.minTurns ?? configured;
  const userTurns = options.messages.filter((m) => m.role === 'user').length;
  if (userTurns < minimum) return { ran: false, reason: 'too_few_turns', applied: [] };
  const always = options.minTurns === 0;
  if (always ? userTurns === 0 : options.messages.filter((m) => m.role !== 'system').length < 3)
    return { ran: false, reason: 'too_few_messages', applied: [] };
  const request: ChatMessage[] = [];
  if (options.systemPrompt) request.push({ role: 'system', content: options.systemPrompt });
  for (const m of options.messages) if (m.role !== 'system') request.push(m);
  request.push({ role: 'user', content: FLUSH_PROMPT });
  try {
    const res = await options.llm.chat({
      messages: request,
      tools: [MEMORY_TOOL_SCHEMA],
      toolChoice: 'auto',
      temperature: 0.3,
      maxTokens: 5120,
      signal: options.signal,
    });
    const applied = await applyMemoryToolCalls(options.store, res.toolCalls, {
      writeOrigin: 'flush',
      metadata: options.sessionId ? { sessionId: options.sessionId } : undefined,
      writeApproval: options.writeApproval,
    });
    return { ran: true, applied };
  } catch (error) {
    logger.debug('memory flush failed', { error: error instanceof Error ? error.message : String(error) });
    return { ran: false, reason: 'error', applied: [] };
  }
}
