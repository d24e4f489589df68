/** Markdown tables, curves and headline lines for what prefetch injects. */
import { ms, num, table } from '../report/markdown';
import { type XySeries, xyChart } from '../report/svg';
import type { CurvePoint, PrecisionResult } from './measure';
import type { PrecisionSummary } from './metrics';

/** Recall@10 of the same backend's search, shown beside what its prefetch injects. */
export interface RecallAt10 {
  any: number;
  all: number;
  multiHopAll: number;
}

const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)} %` : '–');

function injectionCells(s: PrecisionSummary): Array<string | number> {
  return [
    s.answerable.precision,
    s.single.precision,
    s.answerable.recallAny,
    s.answerable.records,
    Math.round(s.answerable.chars),
    pct(s.cross.activation),
    pct(s.offTopic.activation),
  ];
}

const INJECTION_HEAD = [
  'injected precision',
  'precision, 1 gold',
  'answer injected',
  'records / turn',
  'chars / turn',
  'false act. cross',
  'false act. off-topic',
];

/** One row per backend: its recall@10 (when measured) beside what its prefetch injects. */
export function precisionTable(
  rows: ReadonlyArray<{ result: PrecisionResult; recall?: RecallAt10 }>,
): string {
  const withRecall = rows.some((r) => r.recall);
  return table(
    [
      'backend',
      ...(withRecall ? ['any@10', 'all@10', 'multi-hop all@10'] : []),
      ...INJECTION_HEAD,
      'prefetch p50',
    ],
    rows.map(({ result, recall }) => [
      result.retriever,
      ...(withRecall ? [recall?.any ?? '–', recall?.all ?? '–', recall?.multiHopAll ?? '–'] : []),
      ...injectionCells(result.summary),
      ms(result.prefetchMs.p50),
    ]),
  );
}

/** Each backend on each side of the tuning split (dev = what tuning looked at; held-out confirms). */
export function splitTable(results: readonly PrecisionResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results) {
    if (!r.splits) continue;
    rows.push([r.retriever, 'dev', ...injectionCells(r.splits.dev)]);
    rows.push([r.retriever, 'held-out', ...injectionCells(r.splits.heldOut)]);
  }
  return table(['backend', 'split', ...INJECTION_HEAD], rows);
}

/** Every swept value of every backend with a knob. */
export function curveTable(results: readonly PrecisionResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results) {
    if (!r.curve) continue;
    for (const p of r.curve.points)
      rows.push([
        r.retriever,
        `${p.value}${p.value === r.curve.default ? ' (default)' : ''}`,
        pct(p.summary.answerable.activation),
        ...injectionCells(p.summary),
      ]);
  }
  return table(['backend', 'bar', 'answerable: anything injected', ...INJECTION_HEAD], rows);
}

const label = (p: CurvePoint) => String(p.value);

/** Precision–recall and false-activation–recall curves of the swept backends. */
export function curveSvgs(
  results: readonly PrecisionResult[],
  prefix: string,
  title: string,
): Record<string, string> {
  const swept = results.filter((r) => r.curve && r.curve.points.length > 0);
  if (swept.length === 0) return {};
  const series = (y: (p: CurvePoint) => number): XySeries[] =>
    swept.map((r) => ({
      name: r.retriever,
      points: r.curve!.points.map((p) => ({ x: p.summary.answerable.recallAny, y: y(p), label: label(p) })),
    }));
  return {
    [`${prefix}-precision-recall.svg`]: xyChart(
      series((p) => p.summary.answerable.precision),
      {
        title: `${title}: injected precision vs answer injected (labels: relevance bar)`,
        xLabel: 'answer injected (share of answerable questions)',
        yLabel: 'injected precision',
        xMin: 0,
        xMax: 1,
        yMin: 0,
        yMax: 1,
      },
    ),
    [`${prefix}-false-activation.svg`]: xyChart(
      series((p) => Math.max(p.summary.cross.activation, p.summary.offTopic.activation)),
      {
        title: `${title}: false activation vs answer injected (labels: relevance bar)`,
        xLabel: 'answer injected (share of answerable questions)',
        yLabel: 'false activation (worse of cross / off-topic)',
        xMin: 0,
        xMax: 1,
        yMin: 0,
        yMax: 1,
      },
    ),
  };
}

/**
 * "name precision P (one gold item P1), answer injected R, false activation C / O, N chars/turn",
 * then the held-out side's one-gold precision and false activation when the probes were split.
 */
export function precisionHeadline(r: PrecisionResult): string {
  const s = r.summary;
  const h = r.splits?.heldOut;
  return (
    `${r.retriever} precision ${num(s.answerable.precision)} (one gold item ${num(s.single.precision)}), ` +
    `answer injected ${num(s.answerable.recallAny)}, false activation ${pct(s.cross.activation)} cross-conversation / ` +
    `${pct(s.offTopic.activation)} off-topic, ${Math.round(s.answerable.chars)} chars/turn` +
    (h
      ? ` (held out from tuning: one gold item ${num(h.single.precision)}, false activation ${pct(h.cross.activation)} / ${pct(h.offTopic.activation)})`
      : '')
  );
}
