/**
 * The four tools, each under its snake_case name and a kebab-case alias (eight schemas), and
 * their handlers. Results are the reference's JSON shapes; errors are JSON too.
 */
import {
  integerArg,
  neutralizeMemoryText,
  optionalString,
  parseToolArgs,
  scanWrite,
  type ToolSchema,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import type { SupermemoryClient } from './client';
import type { SupermemoryConfig } from './config';
import { detectCategory, hermesMetadata, preview } from './text';

export const TOOL_NAMES = {
  store: 'supermemory_store',
  search: 'supermemory_search',
  forget: 'supermemory_forget',
  profile: 'supermemory_profile',
} as const;
type ToolKind = keyof typeof TOOL_NAMES;

/** Kebab-case aliases the reference also registers; they run the same handlers. */
export const TOOL_ALIASES: Readonly<Record<string, ToolKind>> = {
  'supermemory-save': 'store',
  'supermemory-search': 'search',
  'supermemory-forget': 'forget',
  'supermemory-profile': 'profile',
};

export function toolKind(name: string): ToolKind | undefined {
  for (const [kind, snake] of Object.entries(TOOL_NAMES)) if (snake === name) return kind as ToolKind;
  return TOOL_ALIASES[name];
}

/** What a handler needs from the provider. */
export interface ToolContext {
  client: SupermemoryClient;
  config: SupermemoryConfig;
  /** The primary tag (automatic paths) and the tags tools may name, primary first. */
  primaryTag: string;
  allowedTags: readonly string[];
  /** False for cron, flush and subagent contexts: store and forget refuse (decision 0930). */
  writable: boolean;
  signal: AbortSignal;
}

const READ_ONLY = 'Supermemory is read-only in this context (only the primary agent writes).';

const DESCRIPTIONS: Record<ToolKind, string> = {
  store:
    'Save an explicit memory to Supermemory long-term memory: a durable fact, preference or decision about the user.',
  search: 'Search Supermemory long-term memory for facts and past context relevant to a query.',
  forget: 'Forget a memory in Supermemory, by its id or by the best match for a query.',
  profile:
    "Get the user's Supermemory profile: persistent facts and recent context, optionally focused by a query.",
};

function baseParameters(kind: ToolKind): ToolSchema['parameters'] {
  switch (kind) {
    case 'store':
      return {
        type: 'object',
        properties: {
          content: { type: 'string', description: 'The memory to save, one self-contained statement.' },
          metadata: {
            type: 'object',
            description: 'Optional metadata; `type` defaults to a guessed category.',
          },
        },
        required: ['content'],
      };
    case 'search':
      return {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'What to look for.' },
          limit: {
            type: 'integer',
            description: 'Maximum results (1-20, default 5).',
            minimum: 1,
            maximum: 20,
          },
        },
        required: ['query'],
      };
    case 'forget':
      return {
        type: 'object',
        properties: {
          id: { type: 'string', description: 'The id of the memory to forget.' },
          query: { type: 'string', description: 'Forget the best match for this query instead.' },
        },
      };
    case 'profile':
      return {
        type: 'object',
        properties: { query: { type: 'string', description: 'Optional focus for the profile.' } },
      };
  }
}

/** Eight schemas; with custom container tags on, each takes an optional `container_tag`. */
export function toolSchemas(customTags: readonly string[] | null): ToolSchema[] {
  const out: ToolSchema[] = [];
  const aliasOf = Object.fromEntries(Object.entries(TOOL_ALIASES).map(([alias, kind]) => [kind, alias]));
  for (const kind of Object.keys(TOOL_NAMES) as ToolKind[]) {
    const parameters = baseParameters(kind);
    if (customTags) {
      const properties = { ...(parameters.properties as Record<string, unknown>) };
      properties.container_tag = {
        type: 'string',
        description: `Container to use. Allowed: ${customTags.join(', ')}. Default: ${customTags[0]}.`,
      };
      parameters.properties = properties;
    }
    out.push({ name: TOOL_NAMES[kind], description: DESCRIPTIONS[kind], parameters });
    out.push({ name: aliasOf[kind] as string, description: DESCRIPTIONS[kind], parameters });
  }
  return out;
}

/** Run one tool. Throws only for bad arguments (the provider turns that into a JSON error). */
export async function runTool(kind: ToolKind, rawArgs: unknown, ctx: ToolContext): Promise<string> {
  const args = parseToolArgs(rawArgs);
  const custom = ctx.config.enableCustomContainerTags;
  let tag = ctx.primaryTag;
  if (custom) {
    const asked = optionalString(args, 'container_tag')?.trim();
    if (asked) {
      if (!ctx.allowedTags.includes(asked)) {
        return toolError(`Container tag '${asked}' is not allowed. Allowed: ${ctx.allowedTags.join(', ')}`);
      }
      tag = asked;
    }
  }
  const echo = custom ? { container_tag: tag } : {};
  if (!ctx.writable && (kind === 'store' || kind === 'forget')) return toolError(READ_ONLY);
  switch (kind) {
    case 'store':
      return store(args, tag, echo, ctx);
    case 'search':
      return search(args, tag, echo, ctx);
    case 'forget':
      return forget(args, tag, ctx);
    case 'profile':
      return profile(args, tag, echo, ctx);
  }
}

type Args = Record<string, unknown>;

async function store(args: Args, tag: string, echo: object, ctx: ToolContext): Promise<string> {
  const content = typeof args.content === 'string' ? args.content.trim() : '';
  if (content === '') return toolError("'content' is required and must be a non-empty string.");
  // Stored text comes back into later prompts: injection and exfiltration payloads are refused,
  // and fence markup is stored escaped.
  const scan = scanWrite(content);
  if (!scan.ok) return toolError(scan.message);
  const given =
    typeof args.metadata === 'object' && args.metadata !== null && !Array.isArray(args.metadata)
      ? (args.metadata as Record<string, unknown>)
      : {};
  const metadata = hermesMetadata(given);
  if (!('type' in metadata)) metadata.type = detectCategory(content);
  try {
    const { id } = await ctx.client.addDocument(
      {
        content: neutralizeMemoryText(content),
        containerTag: tag,
        metadata,
        entityContext: ctx.config.entityContext,
      },
      ctx.signal,
    );
    return toolResult({ saved: true, id, preview: preview(content, 80), ...echo });
  } catch (error) {
    return toolError(`Failed to store memory: ${message(error)}`);
  }
}

async function search(args: Args, tag: string, echo: object, ctx: ToolContext): Promise<string> {
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (query === '') return toolError("'query' is required and must be a non-empty string.");
  const limit = integerArg(args, 'limit', { fallback: 5, min: 1, max: 20 });
  try {
    const hits = await ctx.client.searchMemories(
      { q: query, containerTag: tag, limit, searchMode: ctx.config.searchMode },
      ctx.signal,
    );
    const results = hits.map((hit) => ({
      id: hit.id,
      content: hit.memory,
      ...(hit.similarity !== undefined ? { similarity: Math.round(hit.similarity * 100) } : {}),
    }));
    return toolResult({ results, count: results.length, ...echo });
  } catch (error) {
    return toolError(`Search failed: ${message(error)}`);
  }
}

async function forget(args: Args, tag: string, ctx: ToolContext): Promise<string> {
  const id = typeof args.id === 'string' ? args.id.trim() : '';
  const query = typeof args.query === 'string' ? args.query.trim() : '';
  if (id === '' && query === '') return toolError('Provide either id or query');
  try {
    if (id !== '') {
      await ctx.client.forget({ containerTag: tag, id }, ctx.signal);
      return toolResult({ forgotten: true, id });
    }
    const hits = await ctx.client.searchMemories(
      { q: query, containerTag: tag, limit: 5, searchMode: ctx.config.searchMode },
      ctx.signal,
    );
    const best = hits[0];
    if (!best) return toolResult({ success: false, message: 'No matching memory found to forget.' });
    if (best.id === '') return toolResult({ success: false, message: 'Best matching memory has no id.' });
    await ctx.client.forget({ containerTag: tag, id: best.id }, ctx.signal);
    return toolResult({ success: true, message: `Forgot: "${best.memory.slice(0, 100)}"`, id: best.id });
  } catch (error) {
    return toolError(`Forget failed: ${message(error)}`);
  }
}

async function profile(args: Args, tag: string, echo: object, ctx: ToolContext): Promise<string> {
  const query = typeof args.query === 'string' && args.query.trim() !== '' ? args.query.trim() : undefined;
  try {
    const found = await ctx.client.profile({ containerTag: tag, ...(query ? { q: query } : {}) }, ctx.signal);
    const sections: string[] = [];
    if (found.static.length > 0) {
      sections.push(`## User Profile (Persistent)\n${found.static.map((s) => `- ${s}`).join('\n')}`);
    }
    if (found.dynamic.length > 0) {
      sections.push(`## Recent Context\n${found.dynamic.map((s) => `- ${s}`).join('\n')}`);
    }
    return toolResult({
      profile: sections.join('\n\n'),
      static_count: found.static.length,
      dynamic_count: found.dynamic.length,
      ...echo,
    });
  } catch (error) {
    return toolError(`Profile failed: ${message(error)}`);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
