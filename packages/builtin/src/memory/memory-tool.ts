import { type ToolSchema, describeError, parseToolArgs } from '@hermes-memory/core';
import type { MemoryTarget } from './entries';
import type { MemoryResult, MemoryStore, WriteOptions } from './memory-store';
import type { PendingAction, PendingPayload } from './pending-store';
import { WRITE_BLOCKED_MESSAGE, type WriteApprovalMode } from './write-approval';

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
   * The write-approval gate (default `'off'`): `'stage'` persists every mutating call in the
   * pending store and answers `{success, staged, pending_id, message}`; `'block'` refuses it.
   * Independently, `writeOrigin: 'background_review'` may only add: its replace/remove (and any
   * batch holding one) are always staged.
   */
  writeApproval?: WriteApprovalMode;
  /** Told about every write that was staged instead of committed (background review collects proposals). */
  onStaged?: (staged: StagedWrite) => void;
}

export interface StagedWrite {
  pendingId: string;
  target: MemoryTarget;
  action: PendingAction;
  args: Record<string, unknown>;
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
  // The reference's dispatcher defaults `target` to "memory" (its schema requires it, its
  // signature does not), so `{"action": "frob"}` is answered "Unknown action", not "Invalid target ''".
  const targetRaw = args.target === undefined || args.target === null ? 'memory' : (str(args.target) ?? '');
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
  const mode = context.writeApproval ?? 'off';
  // The gate runs after validation (a malformed call is an error, not a pending record).
  const gate = (action: PendingAction, payload: PendingPayload, destructive: boolean) => {
    if (mode === 'block')
      return Promise.resolve<MemoryResult>({ success: false, error: WRITE_BLOCKED_MESSAGE });
    if (reviewOnly && destructive) return stage(store, context, target, action, payload, 'background_review');
    if (mode === 'stage') return stage(store, context, target, action, payload, 'write_approval');
    return null;
  };

  if (hasOps) {
    if (!Array.isArray(args.operations)) {
      return { success: false, error: "'operations' must be a list of {action, content?, old_text?}." };
    }
    if (args.operations.length === 0) {
      return {
        success: false,
        error: "'operations' must be a non-empty list of {action, content?, old_text?}.",
      };
    }
    const destructive = args.operations.some(
      (op) => typeof op !== 'object' || op === null || (op as Record<string, unknown>).action !== 'add',
    );
    return (
      (await gate('batch', { operations: args.operations }, destructive)) ??
      store.applyBatch(target, args.operations, options)
    );
  }

  const content = str(args.content) ?? str(args.new_text);
  const oldText = str(args.old_text);
  switch (action) {
    case 'add':
      if (content === undefined || content.trim() === '') {
        return { success: false, error: "Content is required for 'add' action." };
      }
      return (await gate('add', { content }, false)) ?? store.add(target, content, options);
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
      return (
        (await gate('replace', { old_text: oldText, content }, true)) ??
        store.replace(target, oldText, content, options)
      );
    case 'remove':
      if (oldText === undefined || oldText.trim() === '') {
        return { success: false, error: "old_text is required for 'remove' action." };
      }
      return (await gate('remove', { old_text: oldText }, true)) ?? store.remove(target, oldText, options);
    default:
      return { success: false, error: `Unknown action '${action}'. Use: add, replace, remove` };
  }
}

async function stage(
  store: MemoryStore,
  context: MemoryToolContext,
  target: MemoryTarget,
  action: PendingAction,
  payload: PendingPayload,
  reason: 'write_approval' | 'background_review',
): Promise<MemoryResult> {
  const result = await store.stageWrite(target, action, payload, {
    writeOrigin: context.writeOrigin,
    metadata: context.metadata,
    reason,
  });
  if (result.staged === true && typeof result.pending_id === 'string') {
    context.onStaged?.({ pendingId: result.pending_id, target, action, args: { ...payload } });
  }
  return result;
}
