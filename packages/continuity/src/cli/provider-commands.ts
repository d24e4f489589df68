/**
 * `hermes-memory continuity <command>`: argv parsing and printing over the functions of
 * `commands.ts`. `--json` prints each function's result as it is.
 */
import path from 'node:path';
import { formatTable, type ProviderCliContext, type ProviderCommand, preview } from '@hermes-memory/core';
import { formatExplanation } from '../explain';
import { RECORD_KINDS } from '../records';
import { titledSummary } from '../render';
import {
  deleteCommand,
  dreamCommand,
  explainCommand,
  importCommand,
  ingestCommand,
  lifecycleCommand,
  list,
  pruneCommand,
  reviewCommand,
  searchCommand,
} from './commands';
import { storeContext } from './db-path';

function print(ctx: ProviderCliContext, value: unknown, text: () => string): number {
  if (ctx.json) ctx.printJson(value);
  else ctx.out(text());
  return 0;
}

function summary(value: Record<string, unknown>): string {
  return Object.entries(value)
    .filter(([, v]) => typeof v !== 'object' || v === null)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join('\n');
}

function wholeNumber(ctx: ProviderCliContext, flag: string, value: string | undefined, min = 0) {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw ctx.usageError(`--${flag} must be a whole number${min > 0 ? ` of at least ${min}` : ''}.`);
  return Number(value);
}

export const ingestProviderCommand: ProviderCommand = {
  name: 'ingest',
  summary: 'propose candidate records from text files (nothing is stored yet)',
  usage: `Usage: hermes-memory continuity ingest <path…> [--out FILE]

Split Markdown and text files (or folders of them) into candidate records, written to --out
(default continuity-candidates.jsonl, 0600) for review. Source documents are kept in the store.`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { out: { type: 'string' } });
    const out = path.resolve(values.out ?? 'continuity-candidates.jsonl');
    const r = ingestCommand(storeContext(ctx), positionals, out);
    return print(ctx, r, () =>
      [
        `${r.candidates} candidate(s) from ${r.documents} document(s) → ${out}`,
        ...r.skipped.map((s) => `skipped ${s.path}: ${s.reason}`),
        `next: hermes-memory continuity review ${path.basename(out)} --approve-passing`,
      ].join('\n'),
    );
  },
};

export const reviewProviderCommand: ProviderCommand = {
  name: 'review',
  summary: 'check candidates; write the approved ones to a file for import',
  usage: `Usage: hermes-memory continuity review <FILE> [--approve-passing] [--approve ID,…] [--reject ID,…] [--out FILE]

Run the safety and quality checks on a candidates file, record the decisions in it, and write
the approved candidates to --out (default <FILE>.approved.jsonl).`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, {
      'approve-passing': { type: 'boolean' },
      approve: { type: 'string' },
      reject: { type: 'string' },
      out: { type: 'string' },
    });
    if (positionals.length !== 1) throw ctx.usageError("'review' takes one candidates <FILE>.");
    const r = reviewCommand(storeContext(ctx), path.resolve(positionals[0]!), {
      approvePassing: values['approve-passing'],
      approve: list(values.approve),
      reject: list(values.reject),
      out: values.out ? path.resolve(values.out) : undefined,
    });
    return print(ctx, r, () =>
      [
        `${r.total} candidate(s): ${r.approved} approved, ${r.rejected} rejected, ${r.pending} pending`,
        ...Object.entries(r.findings).map(([k, n]) => `  ${k}: ${n}`),
        `approved → ${r.approved_file}`,
      ].join('\n'),
    );
  },
};

export const importProviderCommand: ProviderCommand = {
  name: 'import',
  summary: 'store the approved candidates of a reviewed file',
  usage: `Usage: hermes-memory continuity import <FILE>

Store the approved candidates of a JSONL file written by 'review' (others are ignored).
Importing the same file twice adds nothing.`,
  async run(ctx, argv) {
    const { positionals } = ctx.parseArgs(argv, {});
    if (positionals.length !== 1) throw ctx.usageError("'import' takes one approved candidates <FILE>.");
    const r = importCommand(storeContext(ctx), path.resolve(positionals[0]!));
    return print(ctx, r, () => summary({ ...r }));
  },
};

const MAINTENANCE_ACTIONS = ['prune', 'dream', 'archive', 'retract', 'restore', 'delete'] as const;

export const maintenanceProviderCommand: ProviderCommand = {
  name: 'maintenance',
  summary: 'prune stale records, merge duplicates (dream), archive, retract, restore, delete',
  usage: `Usage: hermes-memory continuity maintenance <action> [options]

  prune [--apply] [--older-than-days N]     report expired and stale records; --apply archives them
  dream [--apply] [--proposals ID,…]        propose merges of duplicates; --apply carries them out
  archive|retract|restore <ID> [--reason TEXT]
  delete <ID> --confirm [--purge-sources]   remove a record permanently`,
  async run(ctx, argv) {
    const [action, ...rest] = argv;
    const { values, positionals } = ctx.parseArgs(rest, {
      apply: { type: 'boolean' },
      'older-than-days': { type: 'string' },
      proposals: { type: 'string' },
      reason: { type: 'string' },
      confirm: { type: 'boolean' },
      'purge-sources': { type: 'boolean' },
    });
    const sctx = storeContext(ctx);
    if (action === 'prune') {
      const r = pruneCommand(sctx, {
        apply: values.apply,
        olderThanDays: wholeNumber(ctx, 'older-than-days', values['older-than-days']),
      });
      return print(ctx, r, () =>
        [
          `${r.expired.length} expired, ${r.stale.length} stale${r.applied ? ' (applied)' : ' (report only; --apply to change them)'}`,
          ...[...r.expired, ...r.stale].map((i) => `  ${i.record_id} ${i.title}: ${i.reason}`),
        ].join('\n'),
      );
    }
    if (action === 'dream') {
      const r = await dreamCommand(sctx, { apply: values.apply, proposalIds: list(values.proposals) });
      return print(ctx, r, () =>
        values.apply
          ? `applied ${r.applied.length} proposal(s), skipped ${r.skipped.length}`
          : [
              `${r.proposals.length} proposal(s) from ${r.examined} record(s); --apply to carry them out`,
              ...r.proposals.map(
                (p) => `  ${p.proposal_id} ${p.action} ${p.record_ids.join(', ')}: ${p.reason}`,
              ),
            ].join('\n'),
      );
    }
    if (action === 'archive' || action === 'retract' || action === 'restore' || action === 'delete') {
      if (positionals.length !== 1) throw ctx.usageError(`'maintenance ${action}' takes one record <ID>.`);
      const id = positionals[0]!;
      const r =
        action === 'delete'
          ? deleteCommand(sctx, id, { confirm: values.confirm, purgeSources: values['purge-sources'] })
          : lifecycleCommand(sctx, action, id, values.reason);
      return print(ctx, r, () => summary(r));
    }
    throw ctx.usageError(`Unknown maintenance action '${action ?? ''}' (${MAINTENANCE_ACTIONS.join(', ')}).`);
  },
};

export const explainProviderCommand: ProviderCommand = {
  name: 'explain',
  summary: 'why records were (or were not) recalled',
  usage: `Usage: hermes-memory continuity explain [QUERY…] [--event N]

Without arguments, explain the last prefetch; --event N explains a logged event; a QUERY is
ranked now (logged as an 'explain' event, never injected anywhere).`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { event: { type: 'string' } });
    const e = await explainCommand(storeContext(ctx), {
      query: positionals.join(' ').trim() || undefined,
      eventId: wholeNumber(ctx, 'event', values.event),
    });
    return print(ctx, e, () => formatExplanation(e));
  },
};

export const searchProviderCommand: ProviderCommand = {
  name: 'search',
  summary: 'search records (keyword, entity and graph ranking)',
  usage: `Usage: hermes-memory continuity search <query> [--limit N] [--kind KIND] [--include-inactive]

Rank records as the continuity_search tool does, without embeddings (the CLI loads no model).
Archived, retracted, expired and superseded records only with --include-inactive.`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, {
      limit: { type: 'string', short: 'n' },
      kind: { type: 'string' },
      'include-inactive': { type: 'boolean' },
    });
    const query = positionals.join(' ').trim();
    if (!query) throw ctx.usageError("'search' takes a <query>.");
    const kind = values.kind;
    if (kind !== undefined && !(RECORD_KINDS as readonly string[]).includes(kind))
      throw ctx.usageError(`--kind must be one of: ${RECORD_KINDS.join(', ')}.`);
    const limit = wholeNumber(ctx, 'limit', values.limit, 1) ?? 10;
    if (limit > 50) throw ctx.usageError('--limit must be at most 50.');
    const r = await searchCommand(storeContext(ctx), query, {
      limit,
      includeInactive: values['include-inactive'],
      ...(kind ? { kinds: [kind] } : {}),
    });
    return print(ctx, r, () =>
      r.count === 0
        ? 'No records match.'
        : formatTable([
            ['ID', 'SCORE', 'KIND', 'STATUS', 'RECORD'],
            ...r.results.map((x) => [
              String(x.id),
              Number(x.score).toFixed(3),
              String(x.kind),
              String(x.status),
              preview(titledSummary(String(x.title), String(x.summary), ': '), 70),
            ]),
          ]),
    );
  },
};

export const CONTINUITY_COMMANDS: readonly ProviderCommand[] = [
  ingestProviderCommand,
  reviewProviderCommand,
  importProviderCommand,
  maintenanceProviderCommand,
  explainProviderCommand,
  searchProviderCommand,
];
