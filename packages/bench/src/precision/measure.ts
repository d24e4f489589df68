/**
 * One backend's precision result: every probe at its default configuration, then, when it has a
 * knob (`Retriever.sweep`), one run per value for the precision–recall curve.
 */
import type { Retriever } from '../locomo/types';
import { round, summarize } from '../stats';
import { type InjectionMetrics, type PrecisionSummary, summarisePrecision } from './metrics';
import { runPrecision } from './protocol';
import type { ProbeStore } from './types';

export interface CurvePoint {
  value: number;
  summary: PrecisionSummary;
}

export interface PrecisionResult {
  retriever: string;
  description: string;
  /** At the backend's default configuration, over every probe. */
  summary: PrecisionSummary;
  /** The same, on each side of the tuning split (when the probes carry one; decision 0404). */
  splits?: { dev: PrecisionSummary; heldOut: PrecisionSummary };
  prefetchMs: { p50: number; p95: number };
  /** The knob moved for the curve, and what each value gave (on the curve's probe set). */
  curve?: { label: string; default: number; points: CurvePoint[] };
}

export interface MeasureOptions {
  /** Probe set of the curve (default: the same stores); the curve is the costly part. */
  curveStores?: readonly ProbeStore[];
  /** Values to sweep (default: the retriever's own list). */
  values?: readonly number[];
  log?: (message: string) => void;
}

export async function measurePrecision(
  retriever: Retriever,
  stores: readonly ProbeStore[],
  options: MeasureOptions = {},
): Promise<PrecisionResult> {
  const run = await runPrecision(retriever, stores, { onProgress: options.log });
  const ms = summarize(run.prefetchMs);
  const result: PrecisionResult = {
    retriever: retriever.name,
    description: retriever.description ?? '',
    summary: roundSummary(summarisePrecision(run.outcomes)),
    prefetchMs: { p50: round(ms.p50, 4), p95: round(ms.p95, 4) },
  };
  const dev = run.outcomes.filter((o) => o.split === 'dev');
  const heldOut = run.outcomes.filter((o) => o.split === 'held-out');
  if (dev.some((o) => o.kind === 'answerable') && heldOut.some((o) => o.kind === 'answerable'))
    result.splits = {
      dev: roundSummary(summarisePrecision(dev)),
      heldOut: roundSummary(summarisePrecision(heldOut)),
    };
  const sweep = retriever.sweep;
  if (sweep) {
    const points: CurvePoint[] = [];
    for (const value of options.values ?? sweep.values) {
      const r = await runPrecision(retriever, options.curveStores ?? stores, { setting: value });
      points.push({ value, summary: roundSummary(summarisePrecision(r.outcomes)) });
      options.log?.(`${retriever.name}: ${sweep.label} ${value} done`);
    }
    result.curve = { label: sweep.label, default: sweep.default, points };
  }
  return result;
}

function roundMetrics(m: InjectionMetrics): InjectionMetrics {
  const out = { ...m };
  for (const key of Object.keys(out) as Array<keyof InjectionMetrics>)
    if (key !== 'n') out[key] = round(out[key], key === 'chars' ? 1 : 4);
  return out;
}

function roundSummary(s: PrecisionSummary): PrecisionSummary {
  return {
    answerable: roundMetrics(s.answerable),
    single: roundMetrics(s.single),
    cross: roundMetrics(s.cross),
    offTopic: roundMetrics(s.offTopic),
  };
}
