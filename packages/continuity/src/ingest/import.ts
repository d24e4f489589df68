/**
 * Explicit import of reviewed candidates: only `approved` lines become records, each linked to its
 * source segment (for `continuity_hydrate`), and records from neighbouring segments of one document
 * are joined by `next_segment` edges (the association graph). All lines are validated before
 * anything is written, and the whole import is one transaction.
 */
import type { BusyRetryOptions } from '@hermes-memory/core';
import { DocumentStore } from '../documents';
import { contentKey } from '../records';
import type { CheckedInput, ContinuityStore } from '../store';
import { type CandidateRecord, candidateInput } from './candidates';

export interface ImportReport {
  imported: number;
  /** Approved candidates whose content is already stored (nothing written for them). */
  duplicates: number;
  /** Candidates not approved (pending or rejected), left out. */
  skipped: number;
  edges: number;
  /** Which record each imported candidate became. */
  records: Array<{ candidate_id: string; record_id: string }>;
}

/** Segments further apart than this are not linked. */
const MAX_GAP = 2;
/** Edge weight per extra segment between two records (a rejected turn in between). */
const GAP_DECAY = 0.7;

export function importCandidates(
  store: ContinuityStore,
  candidates: readonly CandidateRecord[],
  /** Busy-retry options for the wait on another writer's lock (tests). */
  lock: BusyRetryOptions = {},
): ImportReport {
  const docs = new DocumentStore(store);
  const approved = candidates.filter((c) => c.status === 'approved');
  // Validate everything first: a bad line means nothing is written.
  const inputs = approved.map((c, i) => {
    const seg = docs.segment(c.source.segment_id);
    if (!seg || seg.documentId !== c.source.document_id)
      throw new Error(
        `candidate ${c.candidate_id}: its source segment ${c.source.segment_id} is not in this store (ingest first)`,
      );
    const input = candidateInput(c);
    let checked: CheckedInput;
    try {
      checked = store.check(input, 'reject');
    } catch (error) {
      throw new Error(
        `candidate ${c.candidate_id} (line ${i + 1} of the approved ones): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    return { candidate: c, input, checked, ordinal: seg.ordinal, documentId: seg.documentId };
  });
  // One transaction that waits out an agent's writes (core's importTransaction).
  return store.importTransaction(() => {
    const report: ImportReport = {
      imported: 0,
      duplicates: 0,
      skipped: candidates.length - approved.length,
      edges: 0,
      records: [],
    };
    const placed: Array<{ id: string; documentId: number; ordinal: number }> = [];
    const exists = store.stmt(
      "SELECT 1 FROM records WHERE content_key = ? AND status = 'active' LIMIT 1",
    );
    for (const item of inputs) {
      if (exists.get(contentKey(item.input.title, item.input.summary))) {
        report.duplicates++;
        continue;
      }
      // Checked above, once: stored as it was checked.
      const { id } = store.insertChecked(item.checked, { dedupe: false });
      report.imported++;
      report.records.push({ candidate_id: item.candidate.candidate_id, record_id: id });
      placed.push({ id, documentId: item.documentId, ordinal: item.ordinal });
    }
    // Records of the same documents imported earlier join the chain too.
    const fresh = new Set(placed.map((p) => p.id));
    const earlier = store.stmt(
      `SELECT rs.record_id AS id, s.document_id AS documentId, s.ordinal AS ordinal
         FROM record_sources rs JOIN source_segments s ON s.id = rs.segment_id WHERE s.document_id = ?`,
    );
    for (const documentId of new Set(placed.map((p) => p.documentId)))
      for (const row of earlier.all(documentId) as Array<{ id: string; documentId: number; ordinal: number }>)
        if (!fresh.has(row.id)) placed.push(row);
    placed.sort((a, b) => a.documentId - b.documentId || a.ordinal - b.ordinal);
    for (let i = 1; i < placed.length; i++) {
      const a = placed[i - 1]!;
      const b = placed[i]!;
      const gap = b.ordinal - a.ordinal;
      if (a.documentId !== b.documentId || gap < 1 || gap > MAX_GAP || (!fresh.has(a.id) && !fresh.has(b.id)))
        continue;
      store.linkUnchecked(a.id, b.id, 'next_segment', GAP_DECAY ** (gap - 1));
      report.edges++;
    }
    return report;
  }, lock);
}
