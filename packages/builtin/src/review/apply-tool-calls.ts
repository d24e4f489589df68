import type { ChatToolCall } from '@hermes-memory/core';
import { MEMORY_TOOL_NAME, type MemoryToolContext, handleMemoryTool } from '../memory/memory-tool';
import type { MemoryStore } from '../memory/memory-store';

export interface AppliedCall {
  toolCallId: string;
  name: string;
  arguments: string;
  /** The JSON result the tool returned. */
  result: string;
  success: boolean;
  /** Staged for approval rather than committed (`success` is true, nothing was written yet). */
  staged: boolean;
}

/** Run the model's memory tool calls against the store (same scanner, limits and locks). */
export async function applyMemoryToolCalls(
  store: MemoryStore,
  calls: readonly ChatToolCall[],
  context: MemoryToolContext,
): Promise<AppliedCall[]> {
  const applied: AppliedCall[] = [];
  for (const call of calls) {
    const name = call.function?.name ?? '';
    const args = call.function?.arguments ?? '';
    const result =
      name === MEMORY_TOOL_NAME
        ? await handleMemoryTool(store, args, context)
        : JSON.stringify({
            success: false,
            error: `Tool '${name}' is not available here; only 'memory' is.`,
          });
    let success = false;
    let staged = false;
    try {
      const parsed = JSON.parse(result) as { success?: unknown; staged?: unknown };
      success = parsed.success === true;
      staged = parsed.staged === true;
    } catch {}
    applied.push({ toolCallId: call.id, name, arguments: args, result, success, staged });
  }
  return applied;
}
