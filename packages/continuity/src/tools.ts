/**
 * The continuity tools: schemas, argument checks and results. Every path returns a JSON string;
 * arguments are validated before any write, so a rejected call never changes the store; write
 * tools are refused in non-primary agent contexts.
 */
import {
  InvalidArgumentError,
  type LlmClient,
  type Logger,
  type ToolArgs,
  type ToolSchema,
  enumArg,
  guardToolCall,
  integerArg,
  optionalNumber,
  optionalString,
  parseToolArgs,
  requiredString,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import type { EventLog, ProviderState } from './events';
import { explainEvent } from './explain';
import { hydrate } from './hydrate';
import { dream } from './maintenance/dream';
import { pruneStale } from './maintenance/prune';
import {
  type ContextRecord,
  normalizeRecordInput,
  RECORD_KINDS,
  type RecordInput,
  type RecordKind,
  type Scopes,
} from './records';
import type { Candidate } from './retrieval/rank';
import type { Retriever } from './retrieval/retriever';
import { refuseMaskedSecret } from './safety';
import type { ContinuityStore } from './store';

const ID = { type: 'string', description: 'Record id (ctx_…).' };

export const SEARCH_SCHEMA: ToolSchema = {
  name: 'continuity_search',
  description:
    'Search durable memory records (preferences, decisions, lessons, environment facts, project state) by meaning and keywords. ' +
    'Returns ranked records with their ids; "associated" results were reached through related records.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look for.' },
      limit: { type: 'integer', description: 'Max results (default 10, max 50).' },
      kind: { type: 'string', enum: [...RECORD_KINDS], description: 'Only records of this kind.' },
      include_inactive: {
        type: 'boolean',
        description: 'Also archived, retracted, expired and superseded records.',
      },
    },
    required: ['query'],
  },
};

export const ADD_SCHEMA: ToolSchema = {
  name: 'continuity_add',
  description:
    'Store one small, durable record worth recalling in later sessions: a user preference, a decision and its reason, a lesson learned, ' +
    'an environment fact, a project convention or the current project state. Never store secrets. Keep it compact.',
  parameters: {
    type: 'object',
    properties: {
      kind: { type: 'string', enum: [...RECORD_KINDS] },
      title: { type: 'string', description: 'A short label (≤ 160 chars).' },
      summary: { type: 'string', description: 'The fact itself, self-contained (≤ 1000 chars).' },
      details: { type: 'string', description: 'Optional supporting detail (≤ 4000 chars).' },
      tags: { type: 'array', items: { type: 'string' } },
      entities: {
        type: 'array',
        items: { type: 'string' },
        description: 'People, projects, tools it is about.',
      },
      scopes: {
        type: 'object',
        properties: {
          project: { type: 'string' },
          user: { type: 'string' },
          repo: { type: 'string' },
          profile: { type: 'string' },
        },
        description: 'Limit where it applies.',
      },
      confidence: { type: 'number', description: '0–1, default 0.7.' },
      importance: { type: 'number', description: '0–1, default 0.5.' },
      trust_level: { type: 'string', enum: ['low', 'medium', 'high'], description: 'Default medium.' },
      expires_at: { type: 'string', description: 'ISO date after which it no longer holds.' },
      supersedes: { type: 'string', description: 'Id of a record this one replaces.' },
      related_ids: { type: 'array', items: { type: 'string' }, description: 'Ids of related records.' },
    },
    required: ['kind', 'title', 'summary'],
  },
};

export const HYDRATE_SCHEMA: ToolSchema = {
  name: 'continuity_hydrate',
  description:
    'Show a record with the source text it came from (builtin entry, session line, or document passage) to verify it.',
  parameters: {
    type: 'object',
    properties: {
      record_id: ID,
      window: {
        type: 'integer',
        description: 'Neighbouring source passages on each side (default 1, max 5).',
      },
    },
    required: ['record_id'],
  },
};

export const EXPLAIN_SCHEMA: ToolSchema = {
  name: 'continuity_explain',
  description:
    'Explain why records were or were not recalled: give a query to test it now, or an event_id (default: the last recall).',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string' },
      event_id: { type: 'integer' },
    },
  },
};

const lifecycleSchema = (name: string, description: string): ToolSchema => ({
  name,
  description,
  parameters: {
    type: 'object',
    properties: { record_id: ID, reason: { type: 'string', description: 'Why (kept with the record).' } },
    required: ['record_id'],
  },
});

export const ARCHIVE_SCHEMA = lifecycleSchema(
  'continuity_archive',
  'Archive a record that is no longer relevant: it stops being recalled but is kept and can be restored.',
);
export const RETRACT_SCHEMA = lifecycleSchema(
  'continuity_retract',
  'Retract a record that turned out to be wrong: it stops being recalled but is kept for the record.',
);
export const RESTORE_SCHEMA = lifecycleSchema(
  'continuity_restore',
  'Restore an archived, retracted, expired or superseded record to active.',
);

export const DELETE_SCHEMA: ToolSchema = {
  name: 'continuity_delete',
  description:
    'Permanently delete a record that is clearly wrong or sensitive (prefer archive or retract otherwise). Requires confirm: true.',
  parameters: {
    type: 'object',
    properties: {
      record_id: ID,
      confirm: { type: 'boolean' },
      purge_sources: { type: 'boolean', description: 'Also delete source passages no other record uses.' },
    },
    required: ['record_id', 'confirm'],
  },
};

export const PRUNE_SCHEMA: ToolSchema = {
  name: 'continuity_prune_stale',
  description:
    'Report expired records and stale project state; with apply: true, mark them expired / archive them (nothing is deleted).',
  parameters: {
    type: 'object',
    properties: {
      apply: { type: 'boolean', description: 'Default false: report only.' },
      older_than_days: { type: 'integer', description: 'Override the staleness window.' },
    },
  },
};

export const DREAM_SCHEMA: ToolSchema = {
  name: 'continuity_dream',
  description:
    'Consolidate memory: first call proposes merges of near-duplicate records; call again with apply: true (optionally proposal_ids) ' +
    'to supersede the originals by the merged records. Nothing is deleted.',
  parameters: {
    type: 'object',
    properties: {
      apply: { type: 'boolean' },
      proposal_ids: { type: 'array', items: { type: 'string' } },
      limit: { type: 'integer', description: 'Records examined, newest first (default 300).' },
    },
  },
};

export const TOOL_SCHEMAS: readonly ToolSchema[] = [
  SEARCH_SCHEMA,
  ADD_SCHEMA,
  HYDRATE_SCHEMA,
  EXPLAIN_SCHEMA,
  ARCHIVE_SCHEMA,
  RETRACT_SCHEMA,
  RESTORE_SCHEMA,
  DELETE_SCHEMA,
  PRUNE_SCHEMA,
  DREAM_SCHEMA,
];

export const TOOL_NAMES: readonly string[] = TOOL_SCHEMAS.map((s) => s.name);

const WRITE_TOOLS = new Set([
  'continuity_add',
  'continuity_archive',
  'continuity_retract',
  'continuity_restore',
  'continuity_delete',
]);

export interface ToolContext {
  store: ContinuityStore | null;
  retriever: Retriever | null;
  events: EventLog | null;
  state: ProviderState | null;
  canWrite: boolean;
  sessionId: string | null;
  staleAfterDays: Partial<Record<RecordKind, number>>;
  llm?: LlmClient;
  logger: Logger;
  signal?: AbortSignal;
}

function bool(args: ToolArgs, key: string): boolean {
  const v = args[key];
  if (v === undefined || v === null || v === '') return false;
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 1 || v === '1') return true;
  if (v === 'false' || v === 0 || v === '0') return false;
  throw new InvalidArgumentError(key, `'${key}' must be true or false.`);
}

function stringList(args: ToolArgs, key: string): string[] | undefined {
  const v = args[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'string')
    return v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new InvalidArgumentError(key, `'${key}' must be a list of strings.`);
}

function scopesArg(args: ToolArgs): Scopes | undefined {
  const v = args.scopes;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v))
    throw new InvalidArgumentError('scopes', "'scopes' must be an object.");
  return v as Scopes;
}

/** A record as tools show it (snake_case, no internal fields). */
export function recordView(r: ContextRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: r.id,
    kind: r.kind,
    title: r.title,
    summary: r.summary,
    status: r.status,
    observed_at: r.observedAt,
    updated_at: r.updatedAt,
    trust_level: r.trustLevel,
    confidence: r.confidence,
    importance: r.importance,
  };
  if (r.details) out.details = r.details;
  if (Object.keys(r.scopes).length > 0) out.scopes = r.scopes;
  if (r.tags.length > 0) out.tags = r.tags;
  if (r.entities.length > 0) out.entities = r.entities;
  if (r.expiresAt) out.expires_at = r.expiresAt;
  if (r.statusReason) out.status_reason = r.statusReason;
  if (r.supersededBy) out.superseded_by = r.supersededBy;
  if (r.skillLinks.length > 0) out.skill_links = r.skillLinks;
  return out;
}

export function resultView(c: Candidate): Record<string, unknown> {
  return {
    ...recordView(c.record),
    score: Math.round(c.score * 1000) / 1000,
    match: c.via,
    matched: c.matched,
  };
}

function parseAddInput(args: ToolArgs): RecordInput {
  const kind = enumArg(args, 'kind', RECORD_KINDS);
  if (!kind)
    throw new InvalidArgumentError('kind', `'kind' is required. Use one of: ${RECORD_KINDS.join(', ')}.`);
  const trust = enumArg(args, 'trust_level', ['low', 'medium', 'high'] as const);
  return {
    kind,
    title: requiredString(args, 'title'),
    summary: requiredString(args, 'summary'),
    details: optionalString(args, 'details') ?? null,
    tags: stringList(args, 'tags'),
    entities: stringList(args, 'entities'),
    scopes: scopesArg(args),
    confidence: optionalNumber(args, 'confidence'),
    importance: optionalNumber(args, 'importance'),
    trustLevel: trust,
    expiresAt: optionalString(args, 'expires_at') ?? null,
  };
}

export async function handleTool(name: string, rawArgs: unknown, ctx: ToolContext): Promise<string> {
  if (!TOOL_NAMES.includes(name)) return toolError(`Unknown tool: ${name}`);
  return guardToolCall(async () => {
    const args = parseToolArgs(rawArgs);
    const { store, retriever } = ctx;
    if (!store || store.closed || !retriever) return toolError('Continuity memory is not initialized.');
    if (WRITE_TOOLS.has(name) && !ctx.canWrite)
      return toolError(`${name} is disabled in this agent context (read-only).`);
    switch (name) {
      case 'continuity_search': {
        const query = requiredString(args, 'query');
        const kind = enumArg(args, 'kind', RECORD_KINDS);
        const results = await retriever.search(query, {
          limit: integerArg(args, 'limit', { fallback: 10, min: 1, max: 50 }),
          includeInactive: bool(args, 'include_inactive'),
          kinds: kind ? [kind] : undefined,
          signal: ctx.signal,
        });
        return toolResult({ results: results.map(resultView), count: results.length });
      }
      case 'continuity_add': {
        const input = parseAddInput(args);
        refuseMaskedSecret(normalizeRecordInput(input));
        const supersedes = optionalString(args, 'supersedes');
        const related = stringList(args, 'related_ids') ?? [];
        for (const id of [...(supersedes ? [supersedes] : []), ...related])
          if (!store.get(id)) throw new InvalidArgumentError('record_id', `No record with id '${id}'.`);
        if (supersedes && store.get(supersedes)!.status !== 'active')
          throw new InvalidArgumentError(
            'supersedes',
            `Record '${supersedes}' is not active; only active records can be superseded.`,
          );
        // One transaction: a failure after the insert (a bad link) leaves nothing behind.
        const { record, created } = store.transaction(() => {
          const added = store.add(
            {
              ...input,
              sources: [
                {
                  type: 'tool',
                  ref: 'continuity_add',
                  ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),
                },
              ],
            },
            { secrets: 'reject' },
          );
          if (supersedes && supersedes !== added.record.id)
            store.transition(supersedes, 'supersede', {
              supersededBy: added.record.id,
              reason: 'superseded via continuity_add',
            });
          for (const id of related)
            if (id !== added.record.id) store.link(added.record.id, id, 'related_to', 1);
          return added;
        });
        return toolResult({
          success: true,
          record_id: record.id,
          status: created ? 'added' : 'duplicate',
          ...(supersedes ? { superseded: supersedes } : {}),
        });
      }
      case 'continuity_hydrate': {
        const id = requiredString(args, 'record_id');
        const result = hydrate(store, id, integerArg(args, 'window', { fallback: 1, min: 0, max: 5 }));
        if (!result) return toolError(`No record with id '${id}'.`);
        return toolResult({ record: recordView(result.record), sources: result.sources });
      }
      case 'continuity_explain': {
        const query = optionalString(args, 'query');
        if (query !== undefined && query.trim() !== '') {
          // Run the recall path now; log it only where this agent may write.
          const run = await retriever.recall(query, {
            sessionId: ctx.sessionId,
            origin: 'explain',
            log: ctx.canWrite && ctx.events !== null,
            signal: ctx.signal,
          });
          if (run.eventId !== null && ctx.events) {
            const event = ctx.events.get(run.eventId);
            if (event) return toolResult({ ...explainEvent(store, event) });
          }
          return toolResult({
            query,
            injected: run.selection.direct.length + run.selection.associated.length,
            query_gate: run.selection.queryGate,
            candidates: run.selection.decisions,
          });
        }
        if (!ctx.events) return toolError('The retrieval event log is turned off (event_log_limit: 0).');
        const eventId =
          args.event_id === undefined || args.event_id === null
            ? undefined
            : integerArg(args, 'event_id', { fallback: 0 });
        const event = eventId !== undefined ? ctx.events.get(eventId) : ctx.events.latest('prefetch');
        if (!event)
          return toolError(
            eventId !== undefined ? `No retrieval event ${eventId}.` : 'No recall has been logged yet.',
          );
        return toolResult({ ...explainEvent(store, event) });
      }
      case 'continuity_archive':
      case 'continuity_retract':
      case 'continuity_restore': {
        const id = requiredString(args, 'record_id');
        const reason = optionalString(args, 'reason');
        const action =
          name === 'continuity_archive' ? 'archive' : name === 'continuity_retract' ? 'retract' : 'restore';
        const record = store.transition(id, action, { reason });
        return toolResult({ success: true, record_id: id, status: record.status });
      }
      case 'continuity_delete': {
        const id = requiredString(args, 'record_id');
        if (args.confirm !== true && args.confirm !== 'true')
          return toolError(
            'continuity_delete permanently removes a record: pass confirm: true (or archive / retract it instead).',
          );
        const deleted = store.delete(id, { purgeSources: bool(args, 'purge_sources') });
        if (!deleted) return toolError(`No record with id '${id}'.`);
        return toolResult({ success: true, record_id: id, deleted: true });
      }
      case 'continuity_prune_stale': {
        const apply = bool(args, 'apply');
        if (apply && !ctx.canWrite)
          return toolError('continuity_prune_stale apply is disabled in this agent context (read-only).');
        const olderThan =
          args.older_than_days === undefined || args.older_than_days === null
            ? undefined
            : integerArg(args, 'older_than_days', { fallback: 30, min: 1, max: 36_500 });
        const report = pruneStale(store, ctx.state!, {
          apply,
          olderThanDays: olderThan,
          staleAfterDays: ctx.staleAfterDays,
        });
        return toolResult({ ...report });
      }
      case 'continuity_dream': {
        const apply = bool(args, 'apply');
        if (!ctx.canWrite)
          return toolError('continuity_dream is disabled in this agent context (read-only).');
        const report = await dream(store, ctx.state!, {
          apply,
          proposalIds: stringList(args, 'proposal_ids'),
          limit: integerArg(args, 'limit', { fallback: 300, min: 2, max: 5_000 }),
          llm: ctx.llm,
          logger: ctx.logger,
          signal: ctx.signal,
        });
        return toolResult({ ...report });
      }
    }
    return toolError(`Unknown tool: ${name}`);
  });
}
