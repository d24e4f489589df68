/**
 * `continuity_hydrate`: a record with the text it came from — the builtin entry or marker line it
 * mirrors, or the source segment (with its neighbours) of a corpus-derived record — so the agent
 * can verify before relying on it. Source text is returned as data with fence tags stripped.
 */
import { sanitizeContext } from '@hermes-memory/core';
import { DocumentStore } from './documents';
import type { ContextRecord } from './records';
import type { ContinuityStore } from './store';

export interface HydratedSource {
  type: string;
  ref: string;
  excerpt?: string;
  document?: { path: string; title: string | null; observed_at: string | null };
  segment?: {
    id: number;
    heading: string | null;
    speaker: string | null;
    lines: string | null;
    text: string;
  };
  /** Neighbouring segments in document order (context for the passage). */
  context?: Array<{ id: number; speaker: string | null; text: string }>;
}

export interface Hydrated {
  record: ContextRecord;
  sources: HydratedSource[];
}

/** Longest source text returned per segment (the rest is cut with a marker). */
const MAX_SEGMENT_CHARS = 4_000;

function clip(text: string): string {
  const clean = sanitizeContext(text);
  return clean.length > MAX_SEGMENT_CHARS ? `${clean.slice(0, MAX_SEGMENT_CHARS)} …[truncated]` : clean;
}

export function hydrate(store: ContinuityStore, id: string, window = 1): Hydrated | undefined {
  const record = store.get(id);
  if (!record) return undefined;
  const docs = new DocumentStore(store);
  const sources = record.sources.map((s): HydratedSource => {
    const out: HydratedSource = { type: s.type, ref: s.ref };
    if (s.excerpt) out.excerpt = clip(s.excerpt);
    if (s.segmentId !== undefined) {
      const seg = docs.segment(s.segmentId);
      if (seg) {
        const doc = docs.document(seg.documentId);
        if (doc) out.document = { path: doc.path, title: doc.title, observed_at: doc.observedAt };
        out.segment = {
          id: seg.id,
          heading: seg.heading,
          speaker: seg.speaker,
          lines: seg.startLine !== null ? `${seg.startLine}-${seg.endLine ?? seg.startLine}` : null,
          text: clip(seg.text),
        };
        if (window > 0)
          out.context = docs
            .around(seg.id, window)
            .filter((n) => n.id !== seg.id)
            .map((n) => ({ id: n.id, speaker: n.speaker, text: clip(n.text) }));
      }
    }
    return out;
  });
  return { record, sources };
}
