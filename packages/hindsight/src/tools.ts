/**
 * The three tools (`hindsight_retain`, `hindsight_recall`, `hindsight_reflect`; none in context
 * mode) and their handlers. Results are the reference's `{"result": …}`; errors are JSON too.
 */
import {
  describeError,
  neutralizeMemoryText,
  parseToolArgs,
  scanWrite,
  type ToolArgs,
  type ToolSchema,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import type { HindsightApi } from './client';
import type { HindsightConfig } from './config';
import { normalizeTags } from './config';
import { mergeTags } from './retain';

export const TOOL_NAMES = {
  retain: 'hindsight_retain',
  recall: 'hindsight_recall',
  reflect: 'hindsight_reflect',
} as const;
type ToolKind = keyof typeof TOOL_NAMES;

export const NO_MEMORIES = 'No relevant memories found.';

const SCHEMAS: readonly ToolSchema[] = [
  {
    name: TOOL_NAMES.retain,
    description:
      'Store information to long-term memory. Hindsight automatically extracts structured facts, resolves entities, and indexes for retrieval.',
    parameters: {
      type: 'object',
      properties: {
        content: { type: 'string', description: 'The information to store.' },
        context: { type: 'string', description: "Short label (e.g. 'user preference', 'project decision')." },
        tags: {
          type: 'array',
          items: { type: 'string' },
          description: 'Optional per-call tags to merge with configured default retain tags.',
        },
        occurred_at: {
          type: 'string',
          description:
            "When the remembered event actually happened, as an ISO-8601 date or datetime (e.g. '2026-08-20' or '2026-08-20T14:30:00+02:00'). Pass this whenever the memory references a specific event time ('yesterday', 'last Tuesday', 'on March 3rd') so Hindsight can anchor it on the timeline. Omit for timeless facts/preferences.",
        },
      },
      required: ['content'],
    },
  },
  {
    name: TOOL_NAMES.recall,
    description:
      'Search long-term memory. Returns memories ranked by relevance using semantic search, keyword matching, entity graph traversal, and reranking.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'What to search for.' } },
      required: ['query'],
    },
  },
  {
    name: TOOL_NAMES.reflect,
    description:
      'Synthesize a reasoned answer from long-term memories. Unlike recall, this reasons across all stored memories to produce a coherent response.',
    parameters: {
      type: 'object',
      properties: { query: { type: 'string', description: 'The question to reflect on.' } },
      required: ['query'],
    },
  },
];

/** Three tools, or none in context mode (memories are only injected there). */
export function toolSchemas(config: HindsightConfig): ToolSchema[] {
  return config.memoryMode === 'context' ? [] : SCHEMAS.map((s) => ({ ...s }));
}

export function toolKind(name: string): ToolKind | undefined {
  return (Object.keys(TOOL_NAMES) as ToolKind[]).find((k) => TOOL_NAMES[k] === name);
}

/** What a handler needs from the provider. */
export interface ToolContext {
  api: HindsightApi;
  config: HindsightConfig;
  bankId: string;
  /** False for cron, flush and subagent contexts: retain refuses. */
  writable: boolean;
  /** The item timestamp when `occurred_at` is not given (the event clock, with its offset). */
  eventTimestamp: () => string;
  /** Metadata of a tool retain (the turn's default metadata). */
  metadata: () => Record<string, string>;
  signal: AbortSignal;
}

/** Run one tool; never throws (bad arguments and failures are JSON errors). */
export async function runTool(kind: ToolKind, rawArgs: unknown, ctx: ToolContext): Promise<string> {
  let args: ToolArgs;
  try {
    args = parseToolArgs(rawArgs);
  } catch (error) {
    return toolError(describeError(error));
  }
  switch (kind) {
    case 'retain':
      return retain(args, ctx);
    case 'recall':
      return recall(args, ctx);
    case 'reflect':
      return reflect(args, ctx);
  }
}

/** A non-blank string argument, else undefined. */
function text(args: ToolArgs, key: string): string | undefined {
  const value = args[key];
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

async function retain(args: ToolArgs, ctx: ToolContext): Promise<string> {
  const content = text(args, 'content');
  if (content === undefined) return toolError('Missing required parameter: content');
  if (!ctx.writable)
    return toolError('Hindsight is read-only in this context (only the primary agent writes).');
  // Stored text comes back into later prompts: injection and exfiltration payloads are refused,
  // and fence markup is stored escaped.
  const scan = scanWrite(content);
  if (!scan.ok) return toolError(scan.message);
  const context = text(args, 'context');
  const occurredAt = text(args, 'occurred_at')?.trim();
  const tags = mergeTags(ctx.config.retainTags, Array.isArray(args.tags) ? normalizeTags(args.tags) : []);
  try {
    await ctx.api.retain(
      ctx.bankId,
      [
        {
          content: neutralizeMemoryText(content),
          timestamp: occurredAt ?? ctx.eventTimestamp(),
          metadata: ctx.metadata(),
          ...(context !== undefined ? { context } : {}),
          ...(tags.length > 0 ? { tags } : {}),
          ...(ctx.config.observationScopes ? { observation_scopes: ctx.config.observationScopes } : {}),
        },
      ],
      { async: false },
      ctx.signal,
    );
    return toolResult({ result: 'Memory stored successfully.' });
  } catch (error) {
    return toolError(`Failed to store memory: ${describeError(error)}`);
  }
}

async function recall(args: ToolArgs, ctx: ToolContext): Promise<string> {
  const query = text(args, 'query');
  if (query === undefined) return toolError('Missing required parameter: query');
  try {
    const hits = await ctx.api.recall(ctx.bankId, query, recallParams(ctx.config), ctx.signal);
    if (hits.length === 0) return toolResult({ result: NO_MEMORIES });
    return toolResult({ result: hits.map((h, i) => `${i + 1}. ${h.text}`).join('\n') });
  } catch (error) {
    return toolError(`Failed to search memory: ${describeError(error)}`);
  }
}

async function reflect(args: ToolArgs, ctx: ToolContext): Promise<string> {
  const query = text(args, 'query');
  if (query === undefined) return toolError('Missing required parameter: query');
  try {
    const answer = await ctx.api.reflect(ctx.bankId, query, ctx.config.recallBudget, ctx.signal);
    return toolResult({ result: answer.trim() === '' ? NO_MEMORIES : answer });
  } catch (error) {
    return toolError(`Failed to reflect: ${describeError(error)}`);
  }
}

/** Budget, max tokens, types, and tags with their match mode when configured. */
export function recallParams(config: HindsightConfig) {
  return {
    budget: config.recallBudget,
    maxTokens: config.recallMaxTokens,
    types: config.recallTypes,
    ...(config.recallTags.length > 0 ? { tags: config.recallTags, tagsMatch: config.recallTagsMatch } : {}),
  };
}
