import type { Embedder, ProviderCommand } from '@hermes-memory/core';
import { loadOptionalEmbedder } from '../optional-embedder';
import { openFactStore } from './open-store';

export const reindexCommand: ProviderCommand = {
  name: 'reindex',
  summary: 'rebuild the search side index, HRR vectors and category banks',
  usage: `Usage: hermes-memory holographic reindex

Rebuild what is derived from the \`facts\` rows: the side index (FTS + embedding bookkeeping) for
every changed row, then every HRR vector and category bank. Safe to rerun; nothing is lost. Draws
a progress bar on stderr when it is a terminal.`,
  async run(ctx, argv) {
    const { positionals } = ctx.parseArgs(argv, {});
    if (positionals.length > 0) throw ctx.usageError("'reindex' takes no arguments.");
    const store = openFactStore(ctx, { create: false });
    const result = { facts: 0, vectors: 0 };
    if (store) {
      try {
        result.facts = store.count();
        // Two phases; the store exposes no per-row callback, so the bar advances per phase.
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
  },
};

export const embedCommand: ProviderCommand = {
  name: 'embed',
  summary: 'embed facts that have no vector yet (bundled default model)',
  usage: `Usage: hermes-memory holographic embed [--batch N]

Embed every fact without a vector for the default embedder (@hermes-memory/embeddings), in
batches of N (default 64), with a progress bar on stderr when it is a terminal. Exits 1 when
facts are still pending afterwards.`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { batch: { type: 'string' } });
    if (positionals.length > 0) throw ctx.usageError("'embed' takes no arguments.");
    const batch = parseBatch(values.batch, ctx.usageError);
    const inner = await loadOptionalEmbedder(ctx.logger);
    if (!inner)
      throw ctx.fail(
        'No embedder: @hermes-memory/embeddings is not installed.',
        'Install it next to @hermes-memory/holographic (npm install @hermes-memory/embeddings).',
      );
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
    const store = openFactStore(ctx, { create: false, embedder: counting });
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
  },
};

function parseBatch(raw: string | undefined, usageError: (message: string) => Error): number {
  if (raw === undefined) return 64;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 4096)
    throw usageError(`Invalid --batch '${raw}': expected an integer from 1 to 4096.`);
  return n;
}
