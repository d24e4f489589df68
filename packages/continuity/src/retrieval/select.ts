/**
 * From ranked candidates to the prompt block: gates, then the `max_records` / `max_chars` budget,
 * direct hits first and associated (graph) context after, every decision kept for the event log.
 */
import type { CandidateDecision } from '../events';
import { renderRecall } from '../render';
import { candidateGate, type GateContext, type GateId, specificityGate } from './gates';
import type { Candidate } from './rank';

export interface Selection {
  direct: Candidate[];
  associated: Candidate[];
  decisions: CandidateDecision[];
  /** Set when the whole message was rejected before ranking. */
  queryGate?: GateId;
}

export interface Budget {
  maxRecords: number;
  maxChars: number;
}

/** Candidates explained in the event log (the rest of a long tail is summarised by count). */
export const MAX_LOGGED_DECISIONS = 25;

function decision(
  c: Candidate,
  verdict: 'injected' | 'rejected',
  gate?: GateId,
  reason?: string,
): CandidateDecision {
  const d: CandidateDecision = {
    recordId: c.record.id,
    score: round(c.score),
    signals: {
      bm25: round(c.signals.bm25),
      coverage: round(c.signals.coverage),
      vector: round(c.signals.vector),
      cosine: round(c.signals.cosine),
      metadata: round(c.signals.metadata),
      graph: round(c.signals.graph),
      quality: round(c.signals.quality),
      reply: round(c.signals.reply ?? 0),
      temporal: round(c.signals.temporal ?? 0),
    },
    matched: c.matched,
    via: c.via,
    verdict,
  };
  if (c.inherited.length > 0) d.inherited = c.inherited;
  if (gate) d.gate = gate;
  if (reason) d.reason = reason;
  return d;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export function select(candidates: readonly Candidate[], ctx: GateContext, budget: Budget): Selection {
  const decisions: CandidateDecision[] = [];
  if (ctx.query.lowInformation) {
    for (const c of candidates.slice(0, MAX_LOGGED_DECISIONS))
      decisions.push(decision(c, 'rejected', 'low_information_query', 'no topic words in the message'));
    return { direct: [], associated: [], decisions, queryGate: 'low_information_query' };
  }
  const direct: Candidate[] = [];
  const associated: Candidate[] = [];
  const passing: Candidate[] = [];
  const verdicts = new Map<string, CandidateDecision>();
  const shared = new Map<string, { records: number; corpus: number }>();
  for (const c of candidates) {
    const g = candidateGate(c, ctx) ?? specificityGate(c, ctx, shared);
    if (g) verdicts.set(c.record.id, decision(c, 'rejected', g.gate, g.reason));
    else passing.push(c);
  }
  // The cut compares the records' own evidence: what a record borrowed from a neighbour orders
  // tool results (decision 0905) but does not make it an answer in its own right.
  const best = Math.max(0, ...passing.filter((c) => c.via === 'direct').map((c) => c.direct));
  /** Whether the whole block, header included, still fits with `c` added. */
  const fits = (c: Candidate): boolean => {
    if (direct.length + associated.length >= budget.maxRecords) return false;
    const d = c.via === 'direct' ? [...direct, c] : direct;
    const a = c.via === 'associated' ? [...associated, c] : associated;
    return (
      renderRecall(
        d.map((x) => x.record),
        a.map((x) => x.record),
      ).length <= budget.maxChars
    );
  };
  for (const c of passing.filter((p) => p.via === 'direct')) {
    if (c.direct < ctx.settings.relativeCutoff * best) {
      verdicts.set(
        c.record.id,
        decision(
          c,
          'rejected',
          'below_relative',
          `own score ${c.direct.toFixed(2)} < ${ctx.settings.relativeCutoff} × best ${best.toFixed(2)}`,
        ),
      );
    } else if (!fits(c)) verdicts.set(c.record.id, decision(c, 'rejected', 'budget'));
    else {
      direct.push(c);
      verdicts.set(c.record.id, decision(c, 'injected'));
    }
  }
  const injected = new Set(direct.map((c) => c.record.id));
  for (const c of passing.filter((p) => p.via === 'associated')) {
    if (!c.parent || !injected.has(c.parent)) {
      verdicts.set(
        c.record.id,
        decision(c, 'rejected', 'weak_graph_activation', 'its source record was not injected'),
      );
    } else if (associated.length >= ctx.settings.maxAssociated || !fits(c)) {
      verdicts.set(c.record.id, decision(c, 'rejected', 'budget'));
    } else {
      associated.push(c);
      verdicts.set(c.record.id, decision(c, 'injected'));
    }
  }
  // Log in rank order: what was injected and the strongest rejections.
  const ordered = candidates.map((c) => verdicts.get(c.record.id)!);
  const logged = ordered.filter((d) => d.verdict === 'injected');
  for (const d of ordered)
    if (d.verdict === 'rejected' && logged.length < MAX_LOGGED_DECISIONS) logged.push(d);
  decisions.push(...logged.sort((a, b) => b.score - a.score));
  return { direct, associated, decisions };
}
