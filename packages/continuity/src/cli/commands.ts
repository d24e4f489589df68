/**
 * What `hermes-memory continuity …` does, as functions over a store: ingest, review, import,
 * maintenance, explain and search. The provider seam's commands (`provider-commands.ts`) parse
 * argv and print; scripts can call these directly. Every function opens the store itself and
 * closes it when done.
 */
import fs from 'node:fs';
import { CliError, cliUsageError, type LlmClient } from '@hermes-memory/core';
import { EventLog, ProviderState } from '../events';
import { explainEvent } from '../explain';
import { type CandidateRecord, formatCandidates, parseCandidates } from '../ingest/candidates';
import { importCandidates } from '../ingest/import';
import { ingestPaths } from '../ingest/ingest';
import { review } from '../ingest/review';
import { dream } from '../maintenance/dream';
import { pruneStale } from '../maintenance/prune';
import { Retriever, type RetrieverConfig } from '../retrieval/retriever';
import { type ContinuitySettings, type ResolvedSettings, resolveSettings } from '../settings';
import { ContinuityStore } from '../store';
import { resultView } from '../tools';

export interface CliContext {
  hermesHome: string;
  /** Provider settings (`memory.continuity` in config.yaml). */
  settings?: ContinuitySettings;
  /** For `maintenance dream`: merge with a model; without one, keep the strongest record. */
  llm?: LlmClient;
}

export function openStore(
  ctx: Pick<CliContext, 'hermesHome' | 'settings'>,
  readonly = false,
): ContinuityStore {
  const { clock, ...settings } = ctx.settings ?? {};
  const resolved = resolveSettings(settings as Record<string, unknown>, ctx.hermesHome);
  if (readonly && !fs.existsSync(resolved.dbPath))
    throw new CliError(`no continuity store at ${resolved.dbPath}`);
  return new ContinuityStore({ dbPath: resolved.dbPath, readonly, now: clock });
}

function withStore<T>(ctx: CliContext, fn: (store: ContinuityStore) => T, readonly = false): T {
  const store = openStore(ctx, readonly);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

async function withStoreAsync<T>(ctx: CliContext, fn: (store: ContinuityStore) => Promise<T>): Promise<T> {
  const store = openStore(ctx);
  try {
    return await fn(store);
  } finally {
    store.close();
  }
}

/** Write a file the way memory files are written: 0600, complete or not at all. */
function writePrivate(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function readCandidates(file: string): CandidateRecord[] {
  if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
  return parseCandidates(fs.readFileSync(file, 'utf8'));
}

export const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

export function ingestCommand(ctx: CliContext, paths: readonly string[], out: string) {
  if (paths.length === 0) throw cliUsageError('ingest needs at least one file or folder');
  const result = withStore(ctx, (store) => ingestPaths(store, paths));
  writePrivate(out, formatCandidates(result.candidates));
  return { ...result.report, candidates: result.candidates.length, out };
}

export function reviewCommand(
  ctx: CliContext,
  file: string,
  options: { approvePassing?: boolean; approve?: string[]; reject?: string[]; out?: string },
) {
  const candidates = readCandidates(file);
  const result = withStore(ctx, (store) => review(store, candidates, options));
  writePrivate(file, formatCandidates(result.candidates));
  const out = options.out ?? file.replace(/(\.jsonl)?$/, '.approved.jsonl');
  writePrivate(out, formatCandidates(result.candidates.filter((c) => c.status === 'approved')));
  return { ...result.summary, file, approved_file: out };
}

export function importCommand(ctx: CliContext, file: string) {
  const candidates = readCandidates(file);
  return withStore(ctx, (store) => importCandidates(store, candidates));
}

export function pruneCommand(ctx: CliContext, options: { apply?: boolean; olderThanDays?: number }) {
  return withStore(ctx, (store) => {
    const gates = resolved(ctx).gates;
    return pruneStale(store, new ProviderState(store), { ...options, staleAfterDays: gates.staleAfterDays });
  });
}

export function dreamCommand(ctx: CliContext, options: { apply?: boolean; proposalIds?: string[] }) {
  return withStoreAsync(ctx, (store) => dream(store, new ProviderState(store), { ...options, llm: ctx.llm }));
}

export function lifecycleCommand(
  ctx: CliContext,
  action: 'archive' | 'retract' | 'restore',
  id: string,
  reason?: string,
) {
  return withStore(ctx, (store) => {
    const r = store.transition(id, action, { reason });
    return { record_id: r.id, status: r.status };
  });
}

export function deleteCommand(
  ctx: CliContext,
  id: string,
  options: { confirm?: boolean; purgeSources?: boolean },
) {
  if (!options.confirm) throw cliUsageError('delete removes a record permanently: add --confirm');
  return withStore(ctx, (store) => {
    if (!store.delete(id, { purgeSources: options.purgeSources }))
      throw new CliError(`no record with id '${id}'`);
    return { record_id: id, deleted: true };
  });
}

/** The agent's retrieval settings; the CLI ranks without vectors (it never loads an embedder). */
function retrieverConfig(r: ResolvedSettings): RetrieverConfig {
  return {
    gates: r.gates,
    weights: r.weights,
    graphDepth: r.graphDepth,
    scopes: r.scopes,
    budget: { maxRecords: r.maxRecords, maxChars: r.maxChars },
  };
}

function resolved(ctx: CliContext): ResolvedSettings {
  const { clock: _c, ...settings } = ctx.settings ?? {};
  return resolveSettings(settings as Record<string, unknown>, ctx.hermesHome);
}

/**
 * Rank records for a query as `continuity_search` does (keyword, entity and graph signals), without
 * logging a retrieval event. A home without a store has no results, and none is created.
 */
export async function searchCommand(
  ctx: CliContext,
  query: string,
  options: { limit: number; includeInactive?: boolean; kinds?: string[] },
) {
  if (!fs.existsSync(resolved(ctx).dbPath)) return { results: [], count: 0 };
  const store = openStore(ctx, true);
  try {
    const retriever = new Retriever(store, null, null, retrieverConfig(resolved(ctx)));
    const results = (await retriever.search(query, options)).map(resultView);
    return { results, count: results.length };
  } finally {
    store.close();
  }
}

/** Explain a logged event (the last prefetch by default), or run a query now without logging it. */
export function explainCommand(ctx: CliContext, options: { query?: string; eventId?: number }) {
  return withStoreAsync(ctx, async (store) => {
    const r = resolved(ctx);
    const events = new EventLog(store, Math.max(1, r.eventLogLimit));
    if (options.query) {
      const retriever = new Retriever(store, null, events, retrieverConfig(r));
      const run = await retriever.recall(options.query, { origin: 'explain' });
      return explainEvent(store, events.get(run.eventId!)!);
    }
    const event = options.eventId !== undefined ? events.get(options.eventId) : events.latest('prefetch');
    if (!event)
      throw new CliError(
        options.eventId !== undefined
          ? `no retrieval event ${options.eventId}`
          : 'no recall has been logged yet',
      );
    return explainEvent(store, event);
  });
}
