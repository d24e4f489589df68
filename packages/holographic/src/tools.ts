/**
 * The reference's two tools, `fact_store` (nine actions) and `fact_feedback`: schemas, argument
 * checks and results. Every path returns a JSON string; arguments are fully validated before any
 * write, so a rejected call never changes the store.
 */
import {
  type ToolArgs,
  type ToolSchema,
  describeError,
  parseToolArgs,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import { guardFact, MAX_FACT_CHARS } from './guard';
import type { FactStore } from './store';
import { FACT_CATEGORIES } from './types';

export const FACT_STORE_ACTIONS = [
  'add',
  'search',
  'probe',
  'related',
  'reason',
  'contradict',
  'update',
  'remove',
  'list',
] as const;
export type FactStoreAction = (typeof FACT_STORE_ACTIONS)[number];

export const FACT_STORE_SCHEMA: ToolSchema = {
  name: 'fact_store',
  description:
    'Deep structured memory with algebraic reasoning. Use alongside the memory tool — memory for always-on context, ' +
    'fact_store for deep recall and compositional queries.\n\n' +
    'ACTIONS (simple → powerful):\n' +
    '• add — Store a fact the user would expect you to remember.\n' +
    "• search — Keyword lookup ('editor config', 'deploy process').\n" +
    '• probe — Entity recall: ALL facts about a person/thing.\n' +
    '• related — What connects to an entity? Structural adjacency.\n' +
    '• reason — Compositional: facts connected to MULTIPLE entities simultaneously.\n' +
    '• contradict — Memory hygiene: find facts making conflicting claims.\n' +
    '• update/remove/list — CRUD operations.\n\n' +
    'IMPORTANT: Before answering questions about the user, ALWAYS probe or reason first.',
  parameters: {
    type: 'object',
    properties: {
      action: { type: 'string', enum: [...FACT_STORE_ACTIONS] },
      content: {
        type: 'string',
        description: `Fact content (required for 'add'), at most ${MAX_FACT_CHARS.toLocaleString('en-US')} characters.`,
      },
      query: { type: 'string', description: "Search query (required for 'search')." },
      entity: { type: 'string', description: "Entity name for 'probe'/'related'." },
      entities: { type: 'array', items: { type: 'string' }, description: "Entity names for 'reason'." },
      fact_id: { type: 'integer', description: "Fact ID for 'update'/'remove'." },
      category: { type: 'string', enum: [...FACT_CATEGORIES] },
      tags: { type: 'string', description: 'Comma-separated tags.' },
      trust_delta: { type: 'number', description: "Trust adjustment for 'update'." },
      min_trust: { type: 'number', description: 'Minimum trust filter (default: 0.3).' },
      limit: { type: 'integer', description: 'Max results (default: 10).' },
    },
    required: ['action'],
  },
};

export const FACT_FEEDBACK_SCHEMA: ToolSchema = {
  name: 'fact_feedback',
  description:
    "Rate a fact after using it. Mark 'helpful' if accurate, 'unhelpful' if outdated. This trains the memory — good facts rise, bad facts sink.",
  parameters: {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['helpful', 'unhelpful'] },
      fact_id: { type: 'integer', description: 'The fact ID to rate.' },
    },
    required: ['action', 'fact_id'],
  },
};

/** A rejected argument; its message is the tool's error text. */
class ArgError extends Error {}

function missing(key: string): never {
  throw new ArgError(`Missing required argument: '${key}'`);
}

function str(args: ToolArgs, key: string, required = false): string | undefined {
  const v = args[key];
  if (v === undefined || v === null) return required ? missing(key) : undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw new ArgError(`'${key}' must be a string`);
}

function int(args: ToolArgs, key: string, fallback?: number): number {
  const v = args[key];
  if (v === undefined || v === null) {
    if (fallback === undefined) missing(key);
    return fallback;
  }
  const n =
    typeof v === 'number' ? v : typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isFinite(n))
    throw new ArgError(`'${key}' must be an integer, got ${JSON.stringify(v) ?? String(v)}`);
  const t = Math.trunc(n);
  if (!Number.isSafeInteger(t)) throw new ArgError(`'${key}' is out of range`);
  return t;
}

function float(args: ToolArgs, key: string, fallback?: number): number | undefined {
  const v = args[key];
  if (v === undefined || v === null) return fallback;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n))
    throw new ArgError(`'${key}' must be a number, got ${JSON.stringify(v) ?? String(v)}`);
  return n;
}

function limitArg(args: ToolArgs): number {
  const n = int(args, 'limit', 10);
  if (n < 1) throw new ArgError("'limit' must be at least 1");
  return Math.min(n, 1000);
}

function category(args: ToolArgs): string | undefined {
  const c = str(args, 'category');
  return c === '' ? undefined : c;
}

export interface ToolContext {
  store: FactStore | null;
  minTrust: number;
  /** False for non-primary agent contexts: write actions are refused. */
  canWrite: boolean;
  /** Search used by the tool (embedding-aware when configured). */
  search: (query: string, opts: { category?: string; minTrust: number; limit: number }) => Promise<unknown[]>;
}

const WRITE_ACTIONS = new Set<string>(['add', 'update', 'remove']);

export async function handleFactStore(rawArgs: unknown, ctx: ToolContext): Promise<string> {
  try {
    const args = parseToolArgs(rawArgs);
    const action = str(args, 'action', true)!;
    if (!(FACT_STORE_ACTIONS as readonly string[]).includes(action))
      return toolError(`Unknown action: ${action}`);
    const store = ctx.store;
    if (!store || store.closed) return toolError('Holographic memory is not initialized.');
    if (WRITE_ACTIONS.has(action) && !ctx.canWrite)
      return toolError('fact_store writes are disabled in this agent context (read-only).');
    switch (action as FactStoreAction) {
      case 'add': {
        const content = str(args, 'content', true)!;
        if (!content.trim()) throw new ArgError('content must not be empty');
        const cat = category(args) ?? 'general';
        const guarded = guardFact(store, content, cat);
        if (!guarded.ok) return toolError(guarded.error);
        const factId = store.add(guarded.content, { category: cat, tags: str(args, 'tags') ?? '' });
        return toolResult({ fact_id: factId, status: 'added' });
      }
      case 'search': {
        const query = str(args, 'query', true)!;
        const minTrust = float(args, 'min_trust', ctx.minTrust)!;
        const results = await ctx.search(query, {
          category: category(args),
          minTrust,
          limit: limitArg(args),
        });
        return toolResult({ results, count: results.length });
      }
      case 'probe':
      case 'related': {
        const entity = str(args, 'entity', true)!;
        const opts = { category: category(args), limit: limitArg(args) };
        const results = action === 'probe' ? store.probe(entity, opts) : store.related(entity, opts);
        return toolResult({ results, count: results.length });
      }
      case 'reason': {
        const raw = args.entities;
        const entities = Array.isArray(raw)
          ? raw.filter((e): e is string => typeof e === 'string' && e.trim() !== '')
          : [];
        if (raw !== undefined && raw !== null && !Array.isArray(raw))
          throw new ArgError("reason requires 'entities' list");
        if (entities.length === 0) return toolError("reason requires 'entities' list");
        const results = store.reason(entities, { category: category(args), limit: limitArg(args) });
        return toolResult({ results, count: results.length });
      }
      case 'contradict': {
        const results = store.contradict({ category: category(args), limit: limitArg(args) });
        return toolResult({ results, count: results.length });
      }
      case 'update': {
        const factId = int(args, 'fact_id');
        let content = str(args, 'content');
        if (content !== undefined && !content.trim()) throw new ArgError('content must not be empty');
        if (content !== undefined) {
          const cat = category(args) ?? store.get(factId)?.category ?? 'general';
          const guarded = guardFact(store, content, cat, factId);
          if (!guarded.ok) return toolError(guarded.error);
          content = guarded.content;
        }
        const updated = store.update(factId, {
          content,
          trustDelta: float(args, 'trust_delta'),
          tags: str(args, 'tags'),
          category: category(args),
        });
        return toolResult({ updated });
      }
      case 'remove':
        return toolResult({ removed: store.remove(int(args, 'fact_id')) });
      case 'list': {
        const facts = store.list({
          category: category(args),
          minTrust: float(args, 'min_trust', 0),
          limit: limitArg(args),
        });
        return toolResult({ facts, count: facts.length });
      }
    }
  } catch (error) {
    return toolError(describeError(error));
  }
}

export function handleFactFeedback(rawArgs: unknown, ctx: ToolContext): string {
  try {
    const args = parseToolArgs(rawArgs);
    const action = str(args, 'action', true)!;
    const factId = int(args, 'fact_id');
    if (action !== 'helpful' && action !== 'unhelpful') return toolError(`Unknown action: ${action}`);
    const store = ctx.store;
    if (!store || store.closed) return toolError('Holographic memory is not initialized.');
    if (!ctx.canWrite) return toolError('fact_feedback is disabled in this agent context (read-only).');
    return toolResult({ ...store.feedback(factId, action === 'helpful') });
  } catch (error) {
    return toolError(describeError(error));
  }
}
