import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import { CliError, usageError } from '../errors';
import { openFactStore } from '../facts-store';
import { preview, table } from '../format';
import { parseLimit } from './sessions';

const USAGE = `Usage: hermes-memory facts <add|search|probe|feedback|list> [options]

The holographic fact store (memory_store.db): structured facts with trust scores.

  facts add <content> [--category user_pref|project|tool|general] [--tags a,b]
  facts search <query> [--limit N] [--min-trust 0.3] [--category C]
  facts probe <entity> [--limit N] [--category C]      every fact about an entity
  facts feedback <fact_id> helpful|unhelpful          trust +0.05 / -0.10
  facts list [--limit N] [--min-trust 0] [--category C]`;

export const factsCommand: Command = {
  name: 'facts',
  summary: 'add, search, probe, rate and list holographic facts',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        category: { type: 'string', short: 'c' },
        tags: { type: 'string' },
        limit: { type: 'string', short: 'n' },
        'min-trust': { type: 'string' },
      },
      'facts',
    );
    const [action, ...args] = positionals;
    if (!action)
      throw usageError(
        'Missing action: add, search, probe, feedback or list.',
        "See 'hermes-memory facts --help'.",
      );
    if (!['add', 'search', 'probe', 'feedback', 'list'].includes(action)) {
      throw usageError(`Unknown action '${action}'. Use: add, search, probe, feedback, list.`);
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
