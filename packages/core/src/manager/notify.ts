import type { MemoryTarget, MemoryWriteAction } from '../provider/types';

export interface MirrorOperation {
  action: MemoryWriteAction;
  target: MemoryTarget;
  content: string;
  oldText?: string;
  previousContent?: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

const ACTIONS = new Set<string>(['add', 'replace', 'remove']);
const TARGETS = new Set<string>(['memory', 'user']);

function previousFrom(source: unknown, action: MemoryWriteAction): string | undefined {
  if (!isRecord(source)) return undefined;
  if (action === 'replace') return str(source.replaced_entry);
  if (action === 'remove') return str(source.removed_entry);
  return undefined;
}

/** The store's per-operation report for batch op `index`, whichever shape the store used. */
function batchReport(result: Record<string, unknown>, index: number): unknown {
  for (const key of ['operations', 'results']) {
    const list = result[key];
    if (Array.isArray(list)) return list[index];
  }
  return undefined;
}

function toOperation(
  op: Record<string, unknown>,
  defaultTarget: unknown,
  report: unknown,
): MirrorOperation | undefined {
  const action = str(op.action);
  const target = str(op.target) ?? str(defaultTarget);
  if (!action || !ACTIONS.has(action) || !target || !TARGETS.has(target)) return undefined;
  const a = action as MemoryWriteAction;
  const oldText = str(op.old_text);
  const previousContent = previousFrom(report, a);
  const content =
    a === 'remove'
      ? (previousContent ?? oldText ?? '')
      : (str(op.content) ?? str(op.new_text) ?? str(op.new_content) ?? '');
  if (a !== 'remove' && content.trim() === '') return undefined;
  const out: MirrorOperation = { action: a, target: target as MemoryTarget, content };
  if (a !== 'add' && oldText !== undefined) out.oldText = oldText;
  if (previousContent !== undefined) out.previousContent = previousContent;
  return out;
}

/**
 * The writes a `memory` tool call committed, from its result and arguments. A result that is not
 * JSON, not `success: true`, or `staged` (waiting for approval) commits nothing.
 */
export function mirrorOperations(toolResult: string, toolArgs: unknown): MirrorOperation[] {
  let result: unknown;
  let args: unknown = toolArgs;
  try {
    result = JSON.parse(toolResult);
    if (typeof args === 'string') args = JSON.parse(args);
  } catch {
    return [];
  }
  if (!isRecord(result) || result.success !== true || result.staged) return [];
  if (!isRecord(args)) return [];
  if (Array.isArray(args.operations)) {
    const ops: MirrorOperation[] = [];
    args.operations.forEach((op, i) => {
      if (!isRecord(op)) return;
      const mirrored = toOperation(op, args.target, batchReport(result, i));
      if (mirrored) ops.push(mirrored);
    });
    return ops;
  }
  const single = toOperation(args, undefined, result);
  return single ? [single] : [];
}
