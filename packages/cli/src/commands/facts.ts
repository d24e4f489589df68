import type { Embedder } from '@hermes-memory/core';
import type { Command } from '../command';
import { type CommandContext, parseCommandArgs } from '../context';
import { CliError, usageError } from '../errors';
import { openFactStore } from '../facts-store';
import { preview, table } from '../format';
import { parseLimit } from './sessions';

const USAGE = `Usage: hermes-memory facts <add|search|probe|feedback|list|reindex|embed> [options]

The holographic fact store (memory_store.db): structured facts with trust scores.

  facts add <content> [--category user_pref|project|tool|general] [--tags a,b]
  facts search <query> [--limit N] [--min-trust 0.3] [--category C]
  facts probe <entity> [--limit N] [--category C]      every fact about an entity
  facts feedback <fact_id> helpful|unhelpful          trust +0.05 / -0.10
  facts list [--limit N] [--min-trust 0] [--category C]
  facts reindex                  rebuild the search side index, HRR vectors and category banks
  facts embed [--batch N]        embed facts that have no vector yet (bundled default model)

reindex and embed draw a progress bar on stderr when it is a terminal.`;

const ACTIONS = ['add', 'search', 'probe', 'feedback', 'list', 'reindex', 'embed'];

export const factsCommand: Command = {
  name: 'facts',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        category: { type: 'string', short: 'c' },
        tags: { type: 'string' },
        limit: { type: 'string', short: 'n' },
        'min-trust': { type: 'string' },
        batch: { type: 'string' },
      },
      'facts',
    );
    const [action, ...args] = positionals;
    if (!action)
      throw usageError(
        'Missing action: add, search, probe, feedback, list, reindex or embed.',
        "See 'hermes-memory facts --help'.",
      );
    if (!ACTIONS.includes(action))
      throw usageError(`Unknown action '${action}'. Use: ${ACTIONS.join(', ')}.`);
    if (action === 'reindex' || action === 'embed') {
      if (args.length > 0) throw usageError(`'facts ${action}' takes no arguments.`);
      return action === 'reindex' ? reindex(ctx) : embed(ctx, parseBatch(values.batch));
    }
    const limit = parseLimit(values.limit, 10);
    const minTrust = parseTrust(values['min-trust']);
    const category = values.category;
    const store = openFactStore(ctx.home, { create: action === 'add' || action === 'feedback' });
    const s = ctx.style;
    try {
      switch (action) {
        case 'add': {
          if (args.length !== 1) throw usageError("'facts add' takes one <content> (quote it).");
          const content = args[0]!.trim();
          if (!content) throw new CliError('Content cannot be empty.');
          const existing = store!.findByContent(content);
          const factId =
            existing?.fact_id ??
            store!.add(content, {
              ...(category ? { category } : {}),
              ...(values.tags ? { tags: values.tags } : {}),
            });
          const result = { fact_id: factId, status: existing ? 'exists' : 'added' };
          if (ctx.json) ctx.printJson(result);
          else ctx.out(`${s.green('✓')} fact ${s.cyan(`#${factId}`)} ${result.status}`);
          return 0;
        }
        case 'feedback': {
          if (args.length !== 2) throw usageError("'facts feedback' takes <fact_id> helpful|unhelpful.");
          const id = Number(args[0]);
          if (!Number.isInteger(id) || id < 1)
            throw new CliError(`Invalid fact id '${args[0]}'.`, { exitCode: 2 });
          const verdict = args[1];
          if (verdict !== 'helpful' && verdict !== 'unhelpful')
            throw usageError(`Invalid feedback '${verdict}'. Use helpful or unhelpful.`);
          if (!store!.get(id)) throw new CliError(`Fact #${id} not found.`);
          const result = store!.feedback(id, verdict === 'helpful');
          if (ctx.json) ctx.printJson(result);
          else
            ctx.out(
              `${s.green('✓')} fact ${s.cyan(`#${id}`)} trust ${result.old_trust.toFixed(2)} → ${result.new_trust.toFixed(2)}`,
            );
          return 0;
        }
        default:
          break;
      }
      let rows: Array<{
        fact_id: number;
        content: string;
        category: string;
        trust_score: number;
        score?: number;
      }> = [];
      if (action === 'list') {
        if (args.length > 0) throw usageError("'facts list' takes no arguments.");
        rows = store ? store.list({ limit, minTrust: minTrust ?? 0, ...(category ? { category } : {}) }) : [];
      } else {
        if (args.length !== 1)
          throw usageError(
            `'facts ${action}' takes one ${action === 'probe' ? '<entity>' : '<query>'} (quote it).`,
          );
        if (action === 'search')
          rows = store
            ? store.search(args[0]!, {
                limit,
                ...(minTrust !== undefined ? { minTrust } : {}),
                ...(category ? { category } : {}),
              })
            : [];
        else rows = store ? store.probe(args[0]!, { limit, ...(category ? { category } : {}) }) : [];
      }
      if (ctx.json) {
        ctx.printJson(
          action === 'list' ? { facts: rows, count: rows.length } : { results: rows, count: rows.length },
        );
        return 0;
      }
      if (rows.length === 0) {
        ctx.out(s.gray(action === 'list' ? 'No facts stored yet.' : 'No matching facts.'));
        return 0;
      }
      ctx.out(
        table([
          [
            s.bold('ID'),
            s.bold('TRUST'),
            ...(action === 'list' ? [] : [s.bold('SCORE')]),
            s.bold('CATEGORY'),
            s.bold('FACT'),
          ],
          ...rows.map((r) => [
            s.cyan(`#${r.fact_id}`),
            r.trust_score.toFixed(2),
            ...(action === 'list' ? [] : [(r.score ?? 0).toFixed(3)]),
            r.category,
            preview(r.content, 90),
          ]),
        ]),
      );
      return 0;
    } finally {
      store?.close();
    }
  },
};

function parseTrust(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new CliError(`Invalid --min-trust '${raw}': expected a number from 0 to 1.`, { exitCode: 2 });
  return n;
}

function parseBatch(raw: string | undefined): number {
  if (raw === undefined) return 64;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 4096)
    throw new CliError(`Invalid --batch '${raw}': expected an integer from 1 to 4096.`, { exitCode: 2 });
  return n;
}

/**
 * Rebuild what is derived from the `facts` rows: the side index (FTS + embedding bookkeeping) for
 * every changed row, then every HRR vector and category bank. Safe to rerun; nothing is lost.
 */
async function reindex(ctx: CommandContext): Promise<number> {
  const store = openFactStore(ctx.home, { create: false });
  const result = { facts: 0, vectors: 0 };
  if (store) {
    try {
      result.facts = store.count();
      // Two phases; holographic exposes no per-row callback, so the bar advances per phase.
      const progress = ctx.progress('Reindexing facts', 2);
      store.syncSideIndex();
      progress.tick();
      result.vectors = store.rebuildAllVectors();
      progress.tick();
      progress.done();
    } finally {
      store.close();
    }
  }
  if (ctx.json) ctx.printJson(result);
  else if (!store) ctx.out(ctx.style.gray('No fact store yet: nothing to reindex.'));
  else ctx.out(`${ctx.style.green('✓')} reindexed ${result.facts} facts (${result.vectors} HRR vectors)`);
  return 0;
}

/** Embed every fact without a vector for the default embedder, in batches, with a progress bar. */
async function embed(ctx: CommandContext, batch: number): Promise<number> {
  const { createDefaultEmbedder } = await import('@hermes-memory/embeddings');
  const inner = createDefaultEmbedder();
  let tick: (n: number) => void = () => {};
  // Same id and dimensions as the real embedder, so stored vectors are the agent's own.
  const counting: Embedder = {
    id: inner.id,
    dimensions: inner.dimensions,
    async embed(texts) {
      const vectors = await inner.embed(texts);
      tick(texts.length);
      return vectors;
    },
  };
  const store = openFactStore(ctx.home, { create: false, embedder: counting });
  const result = { model: inner.id, embedded: 0, pending: 0 };
  if (store) {
    try {
      const progress = ctx.progress('Embedding facts', store.pendingCount());
      tick = (n) => progress.tick(n);
      result.embedded = await store.embedPending(batch);
      progress.done();
      result.pending = store.pendingCount();
    } finally {
      store.close();
    }
  }
  if (ctx.json) ctx.printJson(result);
  else if (!store) ctx.out(ctx.style.gray('No fact store yet: nothing to embed.'));
  else
    ctx.out(
      `${ctx.style.green('✓')} embedded ${result.embedded} facts with ${result.model}${result.pending ? ` (${result.pending} still pending)` : ''}`,
    );
  return result.pending > 0 ? 1 : 0;
}
