import {
  type CliStyle,
  type ProviderCliContext,
  type ProviderCommand,
  formatTable,
  preview,
} from '@hermes-memory/core';
import { guardFact } from '../guard';
import type { FactStore } from '../store';
import { openFactSnapshot, openFactStore } from './open-store';

/** The options every listing shares. */
const LISTING = {
  limit: { type: 'string', short: 'n' },
  category: { type: 'string', short: 'c' },
} as const;

interface Row {
  fact_id: number;
  content: string;
  category: string;
  trust_score: number;
  score?: number;
}

export const addCommand: ProviderCommand = {
  name: 'add',
  summary: 'store one fact',
  usage: `Usage: hermes-memory holographic add <content> [--category user_pref|project|tool|general] [--tags a,b]

Store one fact (an existing identical fact is reported, not duplicated).`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, {
      category: { type: 'string', short: 'c' },
      tags: { type: 'string' },
    });
    if (positionals.length !== 1) throw ctx.usageError("'add' takes one <content> (quote it).");
    if (!positionals[0]!.trim()) throw ctx.fail('Content cannot be empty.');
    const store = openFactStore(ctx, { create: true })!;
    try {
      // The same guard as the fact_store tool: size limit, fence markup escaped, write scanner.
      const guarded = guardFact(store, positionals[0]!, values.category ?? 'general');
      if (!guarded.ok) throw ctx.fail(guarded.error);
      const content = guarded.content;
      const existing = store.findByContent(content);
      const factId =
        existing?.fact_id ??
        store.add(content, {
          ...(values.category ? { category: values.category } : {}),
          ...(values.tags ? { tags: values.tags } : {}),
        });
      const result = { fact_id: factId, status: existing ? 'exists' : 'added' };
      if (ctx.json) ctx.printJson(result);
      else ctx.out(`${ctx.style.green('✓')} fact ${ctx.style.cyan(`#${factId}`)} ${result.status}`);
      return 0;
    } finally {
      store.close();
    }
  },
};

export const searchCommand: ProviderCommand = {
  name: 'search',
  summary: 'search facts (hybrid keyword + HRR ranking)',
  usage: `Usage: hermes-memory holographic search <query> [--limit N] [--min-trust 0.3] [--category C]`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { ...LISTING, 'min-trust': { type: 'string' } });
    if (positionals.length !== 1) throw ctx.usageError("'search' takes one <query> (quote it).");
    const limit = parseLimit(ctx, values.limit);
    const minTrust = parseTrust(ctx, values['min-trust']);
    return listing(ctx, 'results', openFactSnapshot(ctx), (store) =>
      store.search(positionals[0]!, {
        limit,
        ...(minTrust !== undefined ? { minTrust } : {}),
        ...(values.category ? { category: values.category } : {}),
      }),
    );
  },
};

export const probeCommand: ProviderCommand = {
  name: 'probe',
  summary: 'every fact about an entity (HRR unbinding)',
  usage: `Usage: hermes-memory holographic probe <entity> [--limit N] [--category C]`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, LISTING);
    if (positionals.length !== 1) throw ctx.usageError("'probe' takes one <entity> (quote it).");
    const limit = parseLimit(ctx, values.limit);
    return listing(ctx, 'results', openFactSnapshot(ctx), (store) =>
      store.probe(positionals[0]!, { limit, ...(values.category ? { category: values.category } : {}) }),
    );
  },
};

export const listCommand: ProviderCommand = {
  name: 'list',
  summary: 'list facts by trust',
  usage: `Usage: hermes-memory holographic list [--limit N] [--min-trust 0] [--category C]`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { ...LISTING, 'min-trust': { type: 'string' } });
    if (positionals.length > 0) throw ctx.usageError("'list' takes no arguments.");
    const limit = parseLimit(ctx, values.limit);
    const minTrust = parseTrust(ctx, values['min-trust']) ?? 0;
    return listing(ctx, 'facts', openFactSnapshot(ctx), (store) =>
      store.list({ limit, minTrust, ...(values.category ? { category: values.category } : {}) }),
    );
  },
};

export const feedbackCommand: ProviderCommand = {
  name: 'feedback',
  summary: 'rate a fact: helpful (trust +0.05) or unhelpful (-0.10)',
  usage: `Usage: hermes-memory holographic feedback <fact_id> helpful|unhelpful`,
  async run(ctx, argv) {
    const { positionals } = ctx.parseArgs(argv, {});
    if (positionals.length !== 2) throw ctx.usageError("'feedback' takes <fact_id> helpful|unhelpful.");
    const id = Number(positionals[0]);
    if (!Number.isInteger(id) || id < 1) throw ctx.usageError(`Invalid fact id '${positionals[0]}'.`);
    const verdict = positionals[1];
    if (verdict !== 'helpful' && verdict !== 'unhelpful')
      throw ctx.usageError(`Invalid feedback '${verdict}'. Use helpful or unhelpful.`);
    const store = openFactStore(ctx, { create: false });
    try {
      if (!store?.get(id)) throw ctx.fail(`Fact #${id} not found.`);
      const result = store.feedback(id, verdict === 'helpful');
      if (ctx.json) ctx.printJson(result);
      else
        ctx.out(
          `${ctx.style.green('✓')} fact ${ctx.style.cyan(`#${id}`)} trust ${result.old_trust.toFixed(2)} → ${result.new_trust.toFixed(2)}`,
        );
      return 0;
    } finally {
      store?.close();
    }
  },
};

/** Print rows as JSON (`{<key>: rows, count}`) or a table; an absent store lists nothing. */
function listing(
  ctx: ProviderCliContext,
  key: 'facts' | 'results',
  store: FactStore | undefined,
  query: (store: FactStore) => Row[],
): number {
  let rows: Row[];
  try {
    rows = store ? query(store) : [];
  } finally {
    store?.close();
  }
  if (ctx.json) {
    ctx.printJson({ [key]: rows, count: rows.length });
    return 0;
  }
  if (rows.length === 0) {
    ctx.out(ctx.style.gray(key === 'facts' ? 'No facts stored yet.' : 'No matching facts.'));
    return 0;
  }
  ctx.out(factTable(rows, key === 'results', ctx.style));
  return 0;
}

function factTable(rows: readonly Row[], scored: boolean, s: CliStyle): string {
  return formatTable([
    [s.bold('ID'), s.bold('TRUST'), ...(scored ? [s.bold('SCORE')] : []), s.bold('CATEGORY'), s.bold('FACT')],
    ...rows.map((r) => [
      s.cyan(`#${r.fact_id}`),
      r.trust_score.toFixed(2),
      ...(scored ? [(r.score ?? 0).toFixed(3)] : []),
      r.category,
      preview(r.content, 90),
    ]),
  ]);
}

function parseLimit(ctx: ProviderCliContext, raw: string | undefined): number {
  if (raw === undefined) return 10;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw ctx.usageError(`Invalid --limit '${raw}': expected a positive integer.`);
  return n;
}

function parseTrust(ctx: ProviderCliContext, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw ctx.usageError(`Invalid --min-trust '${raw}': expected a number from 0 to 1.`);
  return n;
}
