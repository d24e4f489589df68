/**
 * Explanations from the retrieval event log: for one prefetch (or an explain run), which records
 * were injected and why, and which were rejected by which gate, with their signals.
 */
import type { RetrievalEvent } from './events';
import { GATE_DESCRIPTIONS } from './retrieval/gates';
import type { ContinuityStore } from './store';

export interface ExplainedCandidate {
  record_id: string;
  title: string;
  kind: string | null;
  verdict: 'injected' | 'rejected';
  via: 'direct' | 'associated';
  score: number;
  gate?: string;
  gate_meaning?: string;
  reason?: string;
  matched: string[];
  /** Words counted from the question the record answers. */
  inherited?: string[];
  signals: Record<string, number>;
}

export interface Explanation {
  event_id: number;
  at: string;
  origin: string;
  query: string;
  query_gate?: string;
  query_gate_meaning?: string;
  injected: number;
  chars: number;
  candidates: ExplainedCandidate[];
}

export function explainEvent(store: ContinuityStore, event: RetrievalEvent): Explanation {
  const records = new Map(store.byIds(event.decisions.map((d) => d.recordId)).map((r) => [r.id, r]));
  const out: Explanation = {
    event_id: event.id,
    at: event.at,
    origin: event.origin,
    query: event.query,
    injected: event.injected.length,
    chars: event.chars,
    candidates: event.decisions.map((d) => {
      const r = records.get(d.recordId);
      const c: ExplainedCandidate = {
        record_id: d.recordId,
        title: r ? r.title : '(deleted)',
        kind: r ? r.kind : null,
        verdict: d.verdict,
        via: d.via,
        score: d.score,
        matched: d.matched,
        signals: { ...d.signals },
      };
      if (d.inherited?.length) c.inherited = d.inherited;
      if (d.gate) {
        c.gate = d.gate;
        c.gate_meaning = GATE_DESCRIPTIONS[d.gate];
      }
      if (d.reason) c.reason = d.reason;
      return c;
    }),
  };
  if (event.queryGate) {
    out.query_gate = event.queryGate;
    out.query_gate_meaning = GATE_DESCRIPTIONS[event.queryGate];
  }
  return out;
}

/** Plain-text rendering for the CLI. */
export function formatExplanation(e: Explanation): string {
  const lines = [`event ${e.event_id} · ${e.origin} · ${e.at}`, `query: ${e.query}`];
  if (e.query_gate) lines.push(`rejected before ranking: ${e.query_gate} — ${e.query_gate_meaning}`);
  lines.push(`injected ${e.injected} record(s), ${e.chars} chars`);
  for (const c of e.candidates) {
    const s = c.signals;
    const mark = c.verdict === 'injected' ? '✓' : '✗';
    const why =
      c.verdict === 'injected' ? `injected (${c.via})` : `${c.gate}${c.reason ? `: ${c.reason}` : ''}`;
    lines.push(`${mark} ${c.record_id} ${c.title}`);
    lines.push(
      `    ${why} · score ${c.score} · bm25 ${s.bm25} coverage ${s.coverage}${s.reply ? ` (${s.reply} from the question it answers)` : ''} vector ${s.vector} metadata ${s.metadata}${s.temporal ? ` temporal ${s.temporal}` : ''} graph ${s.graph}` +
        (c.matched.length ? ` · matched ${c.matched.join(', ')}` : '') +
        (c.inherited?.length ? ` · from the question it answers ${c.inherited.join(', ')}` : ''),
    );
  }
  return lines.join('\n');
}
