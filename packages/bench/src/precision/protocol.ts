import type { Retriever } from '../locomo/types';
import { nowMs } from '../stats';
import { lineAttribution } from './attribution';
import type { ProbeOutcome, ProbeStore } from './types';

export interface PrecisionRun {
  retriever: string;
  /** The swept setting's value (undefined = the backend's default configuration). */
  setting: number | undefined;
  outcomes: ProbeOutcome[];
  /** Milliseconds per prefetch call. */
  prefetchMs: number[];
}

/** The backend puts nothing in front of the model unasked: there is nothing to measure. */
export class NoPrefetchError extends Error {}

/**
 * For each store: a fresh instance of the backend, every item stored in order, then every question
 * through its `prefetch`, recording what was injected and how much of it is relevant. Backends
 * without a prefetch are not measured (an error, so the suite reports them).
 */
export async function runPrecision(
  retriever: Retriever,
  stores: readonly ProbeStore[],
  options: { setting?: number; onProgress?: (message: string) => void } = {},
): Promise<PrecisionRun> {
  const run: PrecisionRun = {
    retriever: retriever.name,
    setting: options.setting,
    outcomes: [],
    prefetchMs: [],
  };
  for (const store of stores) {
    const session = await retriever.open(store.id, options.setting);
    try {
      if (!session.prefetch) throw new NoPrefetchError(`${retriever.name} has no prefetch`);
      await session.ingest(store.turns);
      const attribute = session.attribute?.bind(session) ?? lineAttribution(store.turns);
      for (const probe of store.probes) {
        const t0 = nowMs();
        const injected = await session.prefetch(probe.query);
        run.prefetchMs.push(nowMs() - t0);
        const records = injected.trim() ? attribute(injected) : [];
        const gold = new Set(probe.gold);
        const found = new Set(records.flat().filter((id) => gold.has(id)));
        run.outcomes.push({
          kind: probe.kind,
          category: probe.category,
          split: probe.split,
          gold: gold.size,
          records: records.length,
          relevant: records.filter((r) => r.some((id) => gold.has(id))).length,
          found: found.size,
          chars: injected.trim() ? injected.length : 0,
        });
      }
      options.onProgress?.(
        `${retriever.name}${options.setting === undefined ? '' : ` @${options.setting}`}: ${store.id} done`,
      );
    } finally {
      await session.close();
    }
  }
  return run;
}
