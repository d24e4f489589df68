/**
 * `hermes-memory continuity …`: ingest, review, import, maintenance and explain, as functions over
 * a store (for the CLI's provider seam and for scripts), plus an argv dispatcher that prints
 * results. Every command opens the store itself and closes it when done.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { LlmClient } from '@hermes-memory/core';
import { EventLog, ProviderState } from '../events';
import { explainEvent, formatExplanation } from '../explain';
import { type CandidateRecord, formatCandidates, parseCandidates } from '../ingest/candidates';
import { importCandidates } from '../ingest/import';
import { ingestPaths } from '../ingest/ingest';
import { review } from '../ingest/review';
import { dream } from '../maintenance/dream';
import { pruneStale } from '../maintenance/prune';
import { Retriever } from '../retrieval/retriever';
import { type ContinuitySettings, resolveSettings } from '../settings';
import { ContinuityStore } from '../store';

export interface CliContext {
  hermesHome: string;
  /** Provider settings (`memory.continuity` in config.yaml). */
  settings?: ContinuitySettings;
  /** For `maintenance dream`: merge with a model; without one, keep the strongest record. */
  llm?: LlmClient;
  out(text: string): void;
  /** Print JSON instead of text. */
  json?: boolean;
}

/** A usage error: the CLI prints it with the usage line and exits 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliUsageError';
  }
}

export const USAGE = `Usage: hermes-memory continuity <command>
  ingest <path…> [--out FILE]                 propose candidate records from text files (nothing is stored as a record)
  review <FILE> [--approve-passing] [--approve ID,…] [--reject ID,…] [--out FILE]
                                              check candidates; write the approved ones to --out
  import <FILE>                               import approved candidates
  maintenance prune [--apply] [--older-than-days N]
  maintenance dream [--apply] [--proposals ID,…]
  maintenance archive|retract|restore <ID> [--reason TEXT]
  maintenance delete <ID> --confirm [--purge-sources]
  explain [QUERY…] [--event N]                why records were (not) recalled`;

export function openStore(
  ctx: Pick<CliContext, 'hermesHome' | 'settings'>,
  readonly = false,
): ContinuityStore {
  const { clock, ...settings } = ctx.settings ?? {};
  const resolved = resolveSettings(settings as Record<string, unknown>, ctx.hermesHome);
  if (readonly && !fs.existsSync(resolved.dbPath))
    throw new Error(`no continuity store at ${resolved.dbPath}`);
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
  if (!fs.existsSync(file)) throw new CliUsageError(`no such file: ${file}`);
  return parseCandidates(fs.readFileSync(file, 'utf8'));
}

const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

export function ingestCommand(ctx: CliContext, paths: readonly string[], out: string) {
  if (paths.length === 0) throw new CliUsageError('ingest needs at least one file or folder');
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
    const { clock: _c, ...settings } = ctx.settings ?? {};
    const gates = resolveSettings(settings as Record<string, unknown>, ctx.hermesHome).gates;
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
  if (!options.confirm) throw new CliUsageError('delete removes a record permanently: add --confirm');
  return withStore(ctx, (store) => {
    if (!store.delete(id, { purgeSources: options.purgeSources }))
      throw new Error(`no record with id '${id}'`);
    return { record_id: id, deleted: true };
  });
}

/** Explain a logged event (the last prefetch by default), or run a query now without logging it. */
export function explainCommand(ctx: CliContext, options: { query?: string; eventId?: number }) {
  return withStoreAsync(ctx, async (store) => {
    const { clock: _c, ...settings } = ctx.settings ?? {};
    const r = resolveSettings(settings as Record<string, unknown>, ctx.hermesHome);
    const events = new EventLog(store, Math.max(1, r.eventLogLimit));
    if (options.query) {
      const retriever = new Retriever(store, null, events, {
        gates: r.gates,
        weights: r.weights,
        graphDepth: r.graphDepth,
        scopes: r.scopes,
        budget: { maxRecords: r.maxRecords, maxChars: r.maxChars },
      });
      const run = await retriever.recall(options.query, { origin: 'explain' });
      return explainEvent(store, events.get(run.eventId!)!);
    }
    const event = options.eventId !== undefined ? events.get(options.eventId) : events.latest('prefetch');
    if (!event)
      throw new Error(
        options.eventId !== undefined
          ? `no retrieval event ${options.eventId}`
          : 'no recall has been logged yet',
      );
    return explainEvent(store, event);
  });
}

function print(ctx: CliContext, value: unknown, text: () => string): void {
  ctx.out(ctx.json ? JSON.stringify(value, null, 2) : text());
}

function summary(value: Record<string, unknown>): string {
  return Object.entries(value)
    .filter(([, v]) => typeof v !== 'object' || v === null)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\n');
}

/** Run `hermes-memory continuity <argv…>`. Returns the exit code; usage errors throw `CliUsageError`. */
export async function runContinuityCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const [command, ...rest] = argv;
  const args = [...rest];
  switch (command) {
    case 'ingest': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { out: { type: 'string' } },
      });
      const out = path.resolve(values.out ?? 'continuity-candidates.jsonl');
      const result = ingestCommand(ctx, positionals, out);
      print(ctx, result, () =>
        [
          `${result.candidates} candidate(s) from ${result.documents} document(s) → ${out}`,
          ...result.skipped.map((s) => `skipped ${s.path}: ${s.reason}`),
          `next: hermes-memory continuity review ${path.basename(out)} --approve-passing`,
        ].join('\n'),
      );
      return 0;
    }
    case 'review': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: {
          'approve-passing': { type: 'boolean' },
          approve: { type: 'string' },
          reject: { type: 'string' },
          out: { type: 'string' },
        },
      });
      if (positionals.length !== 1) throw new CliUsageError('review needs one candidates file');
      const result = reviewCommand(ctx, path.resolve(positionals[0]!), {
        approvePassing: values['approve-passing'],
        approve: list(values.approve),
        reject: list(values.reject),
        out: values.out ? path.resolve(values.out) : undefined,
      });
      print(ctx, result, () =>
        [
          `${result.total} candidate(s): ${result.approved} approved, ${result.rejected} rejected, ${result.pending} pending`,
          ...Object.entries(result.findings).map(([k, n]) => `  ${k}: ${n}`),
          `approved → ${result.approved_file}`,
        ].join('\n'),
      );
      return 0;
    }
    case 'import': {
      const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
      if (positionals.length !== 1) throw new CliUsageError('import needs one approved candidates file');
      const result = importCommand(ctx, path.resolve(positionals[0]!));
      print(ctx, result, () => summary({ ...result }));
      return 0;
    }
    case 'maintenance': {
      const [sub, ...more] = args;
      const { values, positionals } = parseArgs({
        args: more,
        allowPositionals: true,
        options: {
          apply: { type: 'boolean' },
          'older-than-days': { type: 'string' },
          proposals: { type: 'string' },
          reason: { type: 'string' },
          confirm: { type: 'boolean' },
          'purge-sources': { type: 'boolean' },
        },
      });
      if (sub === 'prune') {
        const days = values['older-than-days'];
        if (days !== undefined && !/^\d+$/.test(days))
          throw new CliUsageError('--older-than-days must be a whole number');
        const r = pruneCommand(ctx, { apply: values.apply, olderThanDays: days ? Number(days) : undefined });
        print(ctx, r, () =>
          [
            `${r.expired.length} expired, ${r.stale.length} stale${r.applied ? ' (applied)' : ' (report only; --apply to change them)'}`,
            ...[...r.expired, ...r.stale].map((i) => `  ${i.record_id} ${i.title}: ${i.reason}`),
          ].join('\n'),
        );
        return 0;
      }
      if (sub === 'dream') {
        const r = await dreamCommand(ctx, { apply: values.apply, proposalIds: list(values.proposals) });
        print(ctx, r, () =>
          values.apply
            ? `applied ${r.applied.length} proposal(s), skipped ${r.skipped.length}`
            : [
                `${r.proposals.length} proposal(s) from ${r.examined} record(s); --apply to carry them out`,
                ...r.proposals.map(
                  (p) => `  ${p.proposal_id} ${p.action} ${p.record_ids.join(', ')}: ${p.reason}`,
                ),
              ].join('\n'),
        );
        return 0;
      }
      if (sub === 'archive' || sub === 'retract' || sub === 'restore' || sub === 'delete') {
        if (positionals.length !== 1) throw new CliUsageError(`maintenance ${sub} needs one record id`);
        const r =
          sub === 'delete'
            ? deleteCommand(ctx, positionals[0]!, {
                confirm: values.confirm,
                purgeSources: values['purge-sources'],
              })
            : lifecycleCommand(ctx, sub, positionals[0]!, values.reason);
        print(ctx, r, () => summary(r));
        return 0;
      }
      throw new CliUsageError(
        `unknown maintenance action '${sub ?? ''}' (prune, dream, archive, retract, restore, delete)`,
      );
    }
    case 'explain': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { event: { type: 'string' } },
      });
      if (values.event !== undefined && !/^\d+$/.test(values.event))
        throw new CliUsageError('--event must be a whole number');
      const e = await explainCommand(ctx, {
        query: positionals.join(' ').trim() || undefined,
        eventId: values.event !== undefined ? Number(values.event) : undefined,
      });
      print(ctx, e, () => formatExplanation(e));
      return 0;
    }
    default:
      throw new CliUsageError(command ? `unknown command '${command}'` : 'a command is required');
  }
}
