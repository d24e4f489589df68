/**
 * What prefetch put in front of the model, summarised per kind of question. For answerable
 * questions: how often anything is injected, how much of it is relevant, and how often the answer
 * is among it; for questions with no answer in the store, activation is the false-activation rate.
 */
import type { ProbeOutcome } from './types';

export interface InjectionMetrics {
  n: number;
  /** Share of questions where anything was injected (no-answer kinds: the false-activation rate). */
  activation: number;
  /** Mean, over questions that injected something, of relevant records / injected records (NaN: none did). */
  precision: number;
  /** Σ relevant records / Σ injected records (NaN: nothing injected). */
  microPrecision: number;
  /** Share of questions with at least one gold item injected. */
  recallAny: number;
  /** Mean share of each question's gold items injected. */
  recallFrac: number;
  /** Mean records injected per question (all questions). */
  records: number;
  /** Mean characters injected per question (all questions, "" counting 0). */
  chars: number;
}

export interface PrecisionSummary {
  /** Questions with gold items in the store (LoCoMo: categories 1–4). */
  answerable: InjectionMetrics;
  /** Answerable questions with exactly one gold item. */
  single: InjectionMetrics;
  /** Questions of another store's people. */
  cross: InjectionMetrics;
  /** General questions no memory answers. */
  offTopic: InjectionMetrics;
}

export function injectionMetrics(outcomes: readonly ProbeOutcome[]): InjectionMetrics {
  const n = outcomes.length;
  const mean = (xs: number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
  const active = outcomes.filter((o) => o.chars > 0);
  const injected = outcomes.reduce((a, o) => a + o.records, 0);
  const relevant = outcomes.reduce((a, o) => a + o.relevant, 0);
  const withGold = outcomes.filter((o) => o.gold > 0);
  return {
    n,
    activation: n === 0 ? Number.NaN : active.length / n,
    precision: mean(active.map((o) => (o.records > 0 ? o.relevant / o.records : 0))),
    microPrecision: injected === 0 ? Number.NaN : relevant / injected,
    recallAny: mean(withGold.map((o) => (o.found > 0 ? 1 : 0))),
    recallFrac: mean(withGold.map((o) => o.found / o.gold)),
    records: mean(outcomes.map((o) => o.records)),
    chars: mean(outcomes.map((o) => o.chars)),
  };
}

export function summarisePrecision(outcomes: readonly ProbeOutcome[]): PrecisionSummary {
  const answerable = outcomes.filter((o) => o.kind === 'answerable');
  return {
    answerable: injectionMetrics(answerable),
    single: injectionMetrics(answerable.filter((o) => o.gold === 1)),
    cross: injectionMetrics(outcomes.filter((o) => o.kind === 'cross')),
    offTopic: injectionMetrics(outcomes.filter((o) => o.kind === 'off-topic')),
  };
}
