import { type ToolSchema, describeError, parseToolArgs } from '@hermes-memory/core';
import type { MemoryTarget } from './entries';
import type { MemoryResult, MemoryStore, WriteOptions } from './memory-store';

export const MEMORY_TOOL_NAME = 'memory';

/** The `memory` tool schema: the reference's parameters plus the (L) `operations` batch. */
export const MEMORY_TOOL_SCHEMA: ToolSchema = {
  name: MEMORY_TOOL_NAME,
  description:
    'Save durable information to persistent memory that survives across sessions. Memory is injected into ' +
    'your system prompt at the start of every session, so there is no read action — you already see it.\n\n' +
    'WHEN TO SAVE (proactively, without being asked): user preferences and corrections, personal details ' +
    '(name, role, timezone), stable facts about their environment, project conventions, tool quirks and ' +
    'workarounds you discovered. Priority: user preferences & corrections > environment facts > procedures.\n\n' +
    'SKIP: trivial or obvious information, facts easy to re-discover, raw data dumps, task progress, ' +
    'completed-work logs and TODO state (use session_search to recall past work). Reusable procedures ' +
    'belong in skills, not memory.\n\n' +
    "TARGETS: 'user' = who the user is (preferences, communication style, personal details); " +
    "'memory' = your own notes (environment facts, conventions, lessons learned).\n\n" +
    'ACTIONS: add (new entry), replace (old_text = a short unique substring of the entry to overwrite; ' +
    'content = the full new entry), remove (old_text identifies the entry). Prefer `operations` to apply ' +
    'several changes atomically, e.g. consolidating when memory is full: the budget is checked on the final ' +
    'state only. When a write fails because memory is full, merge or remove entries and retry in the same turn.',
  parameters: {
    type: 'object',
    properties: {
      action: {
        type: 'string',
        enum: ['add', 'replace', 'remove'],
        description: 'The change to make (single-operation form).',
      },
      target: {
        type: 'string',
        enum: ['memory', 'user'],
        description: "Which store: 'memory' for your notes, 'user' for the user profile.",
      },
      content: {
        type: 'string',
        description: "The entry text. Required for 'add' and 'replace' (the full replacement entry).",
      },
      old_text: {
        type: 'string',
        description:
          "A short substring that uniquely identifies the entry. Required for 'replace' and 'remove'.",
      },
      operations: {
        type: 'array',
        description: 'Batch form (preferred for several changes): applied all-or-nothing, in order.',
        items: {
          type: 'object',
          properties: {
            action: { type: 'string', enum: ['add', 'replace', 'remove'] },
            content: { type: 'string' },
            old_text: { type: 'string' },
          },
          required: ['action'],
        },
      },
    },
    required: ['target'],
  },
};

export interface MemoryToolContext extends WriteOptions {
  /** False for subagent / cron / flush contexts: every mutation is refused. */
  canWrite?: boolean;
  /**
   * Background review may only add. A replace/remove (or a batch holding one) is handed here and
   * answered as staged; without a stager it is refused.
   */
  stageProposal?: (proposal: {
    target: MemoryTarget;
    action: string;
    args: Record<string, unknown>;
  }) => string;
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

function json(result: MemoryResult): string {
  return JSON.stringify(result);
}

/**
 * Validate and dispatch one `memory` tool call. Always resolves to a JSON string: malformed or
 * hostile arguments become `{"success": false, "error": ...}` and never change the store.
 */
export async function handleMemoryTool(
  store: MemoryStore | null | undefined,
  rawArgs: unknown,
  context: MemoryToolContext = {},
): Promise<string> {
  try {
    return json(await dispatch(store, rawArgs, context));
  } catch (error) {
    return json({ success: false, error: describeError(error) });
  }
}

async function dispatch(
  store: MemoryStore | null | undefined,
  rawArgs: unknown,
  context: MemoryToolContext,
): Promise<MemoryResult> {
  if (!store)
    return {
      success: false,
      error: 'Memory is not available. It may be disabled in config or this environment.',
    };
  const args = parseToolArgs(rawArgs);
  const action = str(args.action)?.trim() ?? '';
  const hasOps = args.operations !== undefined && args.operations !== null;
  if (!action && !hasOps) {
    return {
      success: false,
      error:
        "Missing required parameter: provide 'action' (add, replace, remove) or 'operations' (a list of {action, content?, old_text?}).",
    };
  }
  const targetRaw = str(args.target) ?? '';
  if (targetRaw !== 'memory' && targetRaw !== 'user') {
    return { success: false, error: `Invalid target '${targetRaw}'. Use 'memory' or 'user'.` };
  }
  const target: MemoryTarget = targetRaw;
  if (context.canWrite === false) {
    return {
      success: false,
      error: 'Memory is read-only in this context (only the primary agent may write).',
    };
  }
  const options: WriteOptions = { writeOrigin: context.writeOrigin, metadata: context.metadata };
  const reviewOnly = context.writeOrigin === 'background_review';

  if (hasOps) {
    if (!Array.isArray(args.operations)) {
      return { success: false, error: "'operations' must be a list of {action, content?, old_text?}." };
    }
    const destructive = args.operations.some(
      (op) => typeof op === 'object' && op !== null && (op as Record<string, unknown>).action !== 'add',
    );
    if (reviewOnly && destructive) return stage(context, target, 'batch', { operations: args.operations });
    return store.applyBatch(target, args.operations, options);
  }

  const content = str(args.content) ?? str(args.new_text);
  const oldText = str(args.old_text);
  switch (action) {
    case 'add':
      if (content === undefined || content.trim() === '') {
        return { success: false, error: "Content is required for 'add' action." };
      }
      return store.add(target, content, options);
    case 'replace':
      if (oldText === undefined || oldText.trim() === '') {
        return {
          success: false,
          error:
            "old_text is required for 'replace' action. Pass a short unique substring of the entry to overwrite, then retry.",
          current_entries: store.safeView(target, store.entries(target)),
        };
      }
      if (content === undefined || content.trim() === '') {
        return {
          success: false,
          error: "content is required for 'replace' action. Use 'remove' to delete entries.",
        };
      }
      if (reviewOnly) return stage(context, target, 'replace', { old_text: oldText, content });
      return store.replace(target, oldText, content, options);
    case 'remove':
      if (oldText === undefined || oldText.trim() === '') {
        return { success: false, error: "old_text is required for 'remove' action." };
      }
      if (reviewOnly) return stage(context, target, 'remove', { old_text: oldText });
      return store.remove(target, oldText, options);
    default:
      return { success: false, error: `Unknown action '${action}'. Use: add, replace, remove` };
  }
}

function stage(
  context: MemoryToolContext,
  target: MemoryTarget,
  action: string,
  args: Record<string, unknown>,
): MemoryResult {
  if (!context.stageProposal) {
    return {
      success: false,
      error: 'Background review may only add memories; replace and remove are not allowed here.',
    };
  }
  const pendingId = context.stageProposal({ target, action, args });
  return {
    success: true,
    staged: true,
    pending_id: pendingId,
    message:
      'Background review may only add; this change was staged for the user to approve and was not applied.',
  };
}
