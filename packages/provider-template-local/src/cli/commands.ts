import { type ProviderCommand, preview } from '@hermes-memory/core';
import { searchEntries } from '../template-search';
import type { StoredEntry } from '../template-store';
import { openStore } from './store-file';

function shown(entry: StoredEntry, width = 100): string {
  return `${entry.id.slice(0, 8)}  ${entry.kind.padEnd(6)}  ${preview(entry.text, width)}`;
}

export const listCommand: ProviderCommand = {
  name: 'list',
  summary: 'the latest stored entries',
  usage: `Usage: hermes-memory template list [--limit N] [--json]

Print the latest entries of the memory file, newest first (default 20). Read-only: safe while an
agent is running on the same home.`,
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { limit: { type: 'string', default: '20' } });
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1)
      throw ctx.usageError(`--limit must be a positive integer, got '${values.limit}'`);
    const { store } = await openStore(ctx);
    const latest = store.all().slice(-limit).reverse();
    if (ctx.json) ctx.printJson({ total: store.size, entries: latest });
    else if (latest.length === 0) ctx.out(ctx.style.gray('No entries stored yet.'));
    else for (const entry of latest) ctx.out(shown(entry));
    return 0;
  },
};

export const searchCommand: ProviderCommand = {
  name: 'search',
  summary: 'search the stored entries as the agent does',
  usage: `Usage: hermes-memory template search <query> [--limit N] [--json]

Rank the stored entries against <query> with the provider's own keyword search (default 5
results) and print each with its score. Read-only.`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { limit: { type: 'string', default: '5' } });
    const query = positionals.join(' ').trim();
    if (query === '')
      throw ctx.usageError('search needs a query', "Example: hermes-memory template search 'dark mode'");
    const limit = Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1)
      throw ctx.usageError(`--limit must be a positive integer, got '${values.limit}'`);
    const { store } = await openStore(ctx);
    const hits = searchEntries(store.all(), query, limit);
    if (ctx.json) ctx.printJson({ query, results: hits.map((h) => ({ score: h.score, ...h.entry })) });
    else if (hits.length === 0) ctx.out(ctx.style.gray('No matching entries.'));
    else for (const hit of hits) ctx.out(`${hit.score.toFixed(2).padStart(6)}  ${shown(hit.entry)}`);
    return 0;
  },
};
