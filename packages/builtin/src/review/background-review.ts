import type { ChatMessage, LlmClient, Logger } from '@hermes-memory/core';
import { silentLogger } from '@hermes-memory/core';
import type { MemoryTarget } from '../memory/entries';
import { MEMORY_TOOL_SCHEMA } from '../memory/memory-tool';
import type { MemoryStore } from '../memory/memory-store';
import type { PendingAction } from '../memory/pending-store';
import type { WriteApprovalMode } from '../memory/write-approval';
import { type AppliedCall, applyMemoryToolCalls } from './apply-tool-calls';

export const MEMORY_REVIEW_PROMPT =
  'Review the conversation above and consider saving to memory if appropriate. Focus on durable facts: the ' +
  "user's preferences, corrections and personal details (target 'user'), and stable facts about their " +
  "environment and conventions (target 'memory'). Only add entries; do not repeat what memory already holds. " +
  "If nothing is worth saving, just say 'Nothing to save.' and stop.";

export interface ReviewProposal {
  /** Id of the record in the store's pending file (`store.applyPending(id)` commits it). */
  pendingId: string;
  target: MemoryTarget;
  action: PendingAction;
  args: Record<string, unknown>;
}

export interface BackgroundReviewOptions {
  llm: LlmClient;
  store: MemoryStore;
  /** Snapshot of the conversation (copied; the caller's array is never touched). */
  messages: readonly ChatMessage[];
  systemPrompt?: string;
  /** Cancel when a new user turn starts. */
  signal?: AbortSignal;
  /** Tool-loop iterations (default 8). */
  maxIterations?: number;
  logger?: Logger;
  sessionId?: string;
  /**
   * The host's write-approval gate. With `'stage'` even the review's adds are staged; with
   * `'block'` nothing is written. Replace/remove are staged in every mode.
   */
  writeApproval?: WriteApprovalMode;
}

export interface BackgroundReviewResult {
  cancelled: boolean;
  applied: AppliedCall[];
  /**
   * Writes staged instead of committed — replace / remove (and batches holding one), plus adds
   * when the gate stages — persisted in the store's pending file for the user to approve.
   */
  proposals: ReviewProposal[];
  /** The model's final text ("Nothing to save." when idle). */
  finalText: string;
  /** A one-line report for the user, e.g. "💾 Memory updated: ➕ user". */
  summary: string;
  error?: string;
}

/**
 * A forked review call after a turn: the conversation snapshot plus the memory-review prompt, with
 * only the memory tool. Writes are tagged `background_review` and may only add; replace/remove are
 * staged as proposals in the store's pending file (listed in `proposals`, applied with
 * `store.applyPending(id)`). Aborting the signal stops the loop before the next model call or write.
 */
export async function runBackgroundReview(options: BackgroundReviewOptions): Promise<BackgroundReviewResult> {
  const logger = options.logger ?? silentLogger;
  const applied: AppliedCall[] = [];
  const proposals: ReviewProposal[] = [];
  const result = (extra: Partial<BackgroundReviewResult>): BackgroundReviewResult => {
    const adds = applied.filter((a) => a.success && !a.staged);
    const marks = adds.map((a) => `➕ ${targetOf(a.arguments)}`);
    const summary = marks.length > 0 ? `💾 Memory updated: ${marks.join(' ')}` : '';
    return { cancelled: false, applied, proposals, finalText: '', summary, ...extra };
  };
  const convo: ChatMessage[] = [];
  if (options.systemPrompt) convo.push({ role: 'system', content: options.systemPrompt });
  for (const m of options.messages) if (m.role !== 'system') convo.push({ ...m });
  convo.push({ role: 'user', content: MEMORY_REVIEW_PROMPT });
  const maxIterations = Math.max(1, options.maxIterations ?? 8);
  try {
    for (let i = 0; i < maxIterations; i++) {
      if (options.signal?.aborted) return result({ cancelled: true });
      const res = await options.llm.chat({
        messages: convo,
        tools: [MEMORY_TOOL_SCHEMA],
        toolChoice: 'auto',
        signal: options.signal,
      });
      if (options.signal?.aborted) return result({ cancelled: true });
      if (res.toolCalls.length === 0) return result({ finalText: res.content });
      convo.push({ role: 'assistant', content: res.content || null, tool_calls: res.toolCalls });
      const calls = await applyMemoryToolCalls(options.store, res.toolCalls, {
        writeOrigin: 'background_review',
        metadata: options.sessionId ? { sessionId: options.sessionId } : undefined,
        writeApproval: options.writeApproval,
        onStaged: (p) => proposals.push(p),
      });
      applied.push(...calls);
      for (const c of calls) convo.push({ role: 'tool', tool_call_id: c.toolCallId, content: c.result });
    }
    return result({});
  } catch (error) {
    if (options.signal?.aborted) return result({ cancelled: true });
    const message = error instanceof Error ? error.message : String(error);
    logger.debug('background review failed', { error: message });
    return result({ error: message });
  }
}

function targetOf(args: string): string {
  try {
    const t = (JSON.parse(args) as { target?: unknown }).target;
    return typeof t === 'string' ? t : 'memory';
  } catch {
    return 'memory';
  }
}
