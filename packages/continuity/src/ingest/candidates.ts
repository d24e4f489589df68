/**
 * Candidate records: what review-first ingestion proposes from each source segment, and the JSON
 * Lines format a reviewer reads, edits (status, title, summary, kind) and hands back to import
 * (decision 0904). Nothing here writes a record.
 */
import { createHash } from 'node:crypto';
import type { SourceDocument, SourceSegment } from '../documents';
import { classifyKind, titleFrom } from '../mirror';
import { LIMITS, type RecordInput, type RecordKind, oneLine } from '../records';
import { namedEntities } from '../retrieval/query';

export const CANDIDATE_TYPE = 'continuity-candidate';
export const CANDIDATE_VERSION = 1;

export type CandidateStatus = 'pending' | 'approved' | 'rejected';

export interface CandidateCheck {
  check: 'quality' | 'safety' | 'duplicate';
  severity: 'reject' | 'warn';
  message: string;
}

export interface CandidateSource {
  path: string;
  document_id: number;
  segment_id: number;
  ordinal: number;
  lines: string | null;
  heading: string | null;
  speaker: string | null;
}

export interface CandidateRecord {
  type: typeof CANDIDATE_TYPE;
  version: typeof CANDIDATE_VERSION;
  candidate_id: string;
  status: CandidateStatus;
  kind: RecordKind;
  title: string;
  summary: string;
  details: string | null;
  entities: string[];
  tags: string[];
  observed_at: string | null;
  source: CandidateSource;
  checks: CandidateCheck[];
}

/** Summaries longer than this keep their first sentences; the rest becomes details. */
const SUMMARY_CHARS = 400;

const NUMBERED_STEPS = /^(\s*(\d+[.)]|[-*])\s+\S.*\n?){3,}/m;

function corpusKind(text: string): RecordKind {
  if (NUMBERED_STEPS.test(text)) return 'corpus_procedure';
  const kind = classifyKind(text, 'memory');
  if (kind === 'decision' || kind === 'lesson_learned' || kind === 'project_convention') return kind;
  if ((text.match(/https?:\/\//g) ?? []).length >= 2 || text.includes('```')) return 'corpus_reference';
  return 'corpus_note';
}

function capitalise(w: string): string {
  return w.replace(/^./, (c) => c.toUpperCase());
}

function splitSummary(text: string): { summary: string; details: string | null } {
  const flat = oneLine(text);
  if (flat.length <= SUMMARY_CHARS) return { summary: flat, details: null };
  const sentences = flat.split(/(?<=[.!?])\s+/);
  let summary = '';
  for (const s of sentences) {
    if (summary && summary.length + 1 + s.length > SUMMARY_CHARS) break;
    summary = summary ? `${summary} ${s}` : s;
  }
  if (summary.length > SUMMARY_CHARS) summary = `${summary.slice(0, SUMMARY_CHARS - 1)}…`;
  const rest = flat.slice(summary.endsWith('…') ? summary.length - 1 : summary.length).trim();
  return { summary, details: rest ? rest.slice(0, LIMITS.details) : null };
}

export function candidateId(
  doc: Pick<SourceDocument, 'sha256'>,
  seg: Pick<SourceSegment, 'ordinal'>,
): string {
  return `cand_${createHash('sha256').update(`${doc.sha256}:${seg.ordinal}`).digest('hex').slice(0, 12)}`;
}

/** One candidate per segment. Transcript turns are attributed to their speaker. */
export function candidateFromSegment(doc: SourceDocument, seg: SourceSegment): CandidateRecord {
  const source: CandidateSource = {
    path: doc.path,
    document_id: doc.id,
    segment_id: seg.id,
    ordinal: seg.ordinal,
    lines: seg.startLine !== null ? `${seg.startLine}-${seg.endLine ?? seg.startLine}` : null,
    heading: seg.heading,
    speaker: seg.speaker,
  };
  const base = {
    type: CANDIDATE_TYPE as typeof CANDIDATE_TYPE,
    version: CANDIDATE_VERSION as typeof CANDIDATE_VERSION,
    candidate_id: candidateId(doc, seg),
    status: 'pending' as CandidateStatus,
    tags: [] as string[],
    observed_at: doc.observedAt,
    source,
    checks: [] as CandidateCheck[],
  };
  if (seg.speaker) {
    const summary = oneLine(seg.text).slice(0, LIMITS.summary);
    return {
      ...base,
      kind: 'corpus_note',
      title: seg.speaker.slice(0, LIMITS.title),
      summary,
      details: null,
      entities: [seg.speaker],
    };
  }
  const { summary, details } = splitSummary(seg.text);
  // The title is the paragraph's own: its heading is shared by every paragraph under it, so as a
  // title it made each of them match the heading's words as if about them. The heading path stays
  // searchable as context, in the FTS `sources` column (decision 0904).
  return {
    ...base,
    kind: corpusKind(seg.text),
    title: oneLine(titleFrom(summary)).slice(0, LIMITS.title),
    summary,
    details,
    entities: namedEntities(seg.text).slice(0, 8).map(capitalise),
  };
}

/**
 * The record a candidate becomes: reviewed corpus text is trusted `high` (a person approved it),
 * dated when its document was written, and linked to its segment (for `continuity_hydrate`).
 */
export function candidateInput(c: CandidateRecord): RecordInput {
  return {
    kind: c.kind,
    title: c.title,
    summary: c.summary,
    details: c.details,
    entities: c.entities,
    tags: c.tags,
    confidence: 0.7,
    importance: 0.5,
    trustLevel: 'high',
    observedAt: c.observed_at,
    sources: [{ type: 'corpus_segment', ref: c.source.path, segmentId: c.source.segment_id }],
  };
}

/** Parse a candidates file; every line is checked, and the first bad one is an error with its number. */
export function parseCandidates(text: string): CandidateRecord[] {
  const out: CandidateRecord[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`line ${i + 1}: not valid JSON`);
    }
    const c = value as Partial<CandidateRecord>;
    if (typeof c !== 'object' || c === null || c.type !== CANDIDATE_TYPE)
      throw new Error(`line ${i + 1}: not a continuity candidate (type '${CANDIDATE_TYPE}' expected)`);
    if (c.version !== CANDIDATE_VERSION)
      throw new Error(`line ${i + 1}: unsupported candidate version ${String(c.version)}`);
    if (c.status !== 'pending' && c.status !== 'approved' && c.status !== 'rejected')
      throw new Error(`line ${i + 1}: status must be pending, approved or rejected`);
    if (typeof c.candidate_id !== 'string' || typeof c.source !== 'object' || c.source === null)
      throw new Error(`line ${i + 1}: candidate_id and source are required`);
    if (!Number.isSafeInteger(c.source.segment_id))
      throw new Error(`line ${i + 1}: source.segment_id must be an integer`);
    out.push({ ...c, checks: Array.isArray(c.checks) ? c.checks : [] } as CandidateRecord);
  });
  return out;
}

export function formatCandidates(candidates: readonly CandidateRecord[]): string {
  return candidates.map((c) => JSON.stringify(c)).join('\n') + (candidates.length ? '\n' : '');
}
