import { type Embedder, type ProviderCommand, loadDefaultEmbedder } from '@hermes-memory/core';
import { importEmbeddings } from '../embeddings-peer';
import type { VectorFormat } from '../hrr';
import { resolveSettings } from '../settings';
import { openFactStore } from './open-store';

export const reindexCommand: ProviderCommand = {
  name: 'reindex',
  summary: 'rebuild the search side index, HRR vectors and category banks; convert the vector format',
  usage: `Usage: hermes-memory holographic reindex [--vector-format float32|float64]

Rebuild what is derived from the \`facts\` rows: the side index (FTS + embedding bookkeeping) for
every changed row, then every HRR vector and category bank. Safe to rerun; nothing is lost. Draws
a progress bar on stderr when it is a terminal.

Options:
  --vector-format F   rewrite every HRR vector and bank as F: float32 (HRR1, the newer plugin's
                      format) or float64 (the older plugin's raw blobs). Without it the store keeps
                      the format its rows already have. Converting an older float64 store to
                      float32 means the older Python plugin can no longer read it.`,
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, { 'vector-format': { type: 'string' } });
    if (positionals.length > 0) throw ctx.usageError("'reindex' takes no arguments.");
    const target = parseVectorFormat(values['vector-format'], ctx.usageError);
    const settings = resolveSettings(ctx.providerConfig, ctx.home);
    if (target && !settings.hrrEnabled)
      throw ctx.fail(
        'HRR vectors are off (hrr_enabled: false): there is no vector format to convert.',
        'Turn hrr_enabled back on first: hermes-memory setup holographic.',
      );
    // A conversion opens the store as it is ('auto'): a configured format that differs from the
    // stored one would only warn about the very conversion asked for.
    const store = openFactStore(ctx, {
      create: false,
      settings: target ? { ...settings, vectorFormat: 'auto' } : settings,
    });
    const result: ReindexResult = { facts: 0, vectors: 0 };
    if (store) {
      try {
        result.facts = store.count();
        const from = store.storedVectorFormat();
        // Two phases; the store exposes no per-row callback, so the bar advances per phase.
        const progress = ctx.progress('Reindexing facts', 2);
        store.syncSideIndex();
        progress.tick();
        result.vectors = store.rebuildAllVectors(target ? { vectorFormat: target } : undefined);
        progress.tick();
        progress.done();
        if (target) result.vectorFormat = { from, to: target };
      } finally {
        store.close();
      }
    }
    const pinned = target && settings.vectorFormat !== 'auto' && settings.vectorFormat !== target;
    if (ctx.json) ctx.printJson(result);
    else if (!store) ctx.out(ctx.style.gray('No fact store yet: nothing to reindex.'));
    else {
      const converted = result.vectorFormat
        ? result.vectorFormat.from === null || result.vectorFormat.from === result.vectorFormat.to
          ? `, written as ${result.vectorFormat.to}`
          : `, converted from ${result.vectorFormat.from} to ${result.vectorFormat.to}`
        : '';
      ctx.out(
        `${ctx.style.green('✓')} reindexed ${result.facts} facts (${result.vectors} HRR vectors${converted})`,
      );
      if (result.vectorFormat?.from === 'float64' && target === 'float32')
        ctx.out(ctx.style.yellow('  The older Python plugin (float64 only) can no longer read this store.'));
    }
    if (pinned)
      ctx.err(
        `hermes-memory: note: config sets vector_format: ${settings.vectorFormat}; set it to ${target} or auto, or the provider warns on every start.`,
      );
    return 0;
  },
};

interface ReindexResult {
  facts: number;
  vectors: number;
  /** Present with --vector-format: what the store held before (null: no vectors) and now. */
  vectorFormat?: { from: VectorFormat | null; to: VectorFormat };
}

function parseVectorFormat(
  raw: string | undefined,
  usageError: (message: string) => Error,
): VectorFormat | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'float32' || raw === 'float64') return raw;
  throw usageError(`Invalid --vector-format '${raw}': expected float32 or float64.`);
}

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
    const inner = await loadDefaultEmbedder(importEmbeddings, ctx.logger);
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
