/**
 * Review checks for candidates: quality (too short, only a question), safety (the write scanner and
 * secrets, the same rules as every write path) and duplicates (of a stored record or of an earlier
 * candidate). `review` attaches the findings; approving is the reviewer's decision, or
 * `approvePassing` for candidates with no rejecting finding.
 */
import { contentKey, normalizeRecordInput } from '../records';
import { UnsafeRecordError, checkRecordSafety } from '../safety';
import type { ContinuityStore } from '../store';
import { type CandidateCheck, type CandidateRecord, candidateInput } from './candidates';

const MIN_CHARS = 12;
const MIN_WORDS = 3;

function qualityChecks(c: CandidateRecord): CandidateCheck[] {
  const out: CandidateCheck[] = [];
  const words = c.summary.split(/\s+/).filter(Boolean).length;
  if (c.summary.length < MIN_CHARS || words < MIN_WORDS)
    out.push({
      check: 'quality',
      severity: 'reject',
      message: `too short to stand on its own (${words} words)`,
    });
  else if (/\?\s*$/.test(c.summary) && !/[.!]\s/.test(c.summary))
    out.push({ check: 'quality', severity: 'warn', message: 'only a question: it states no fact' });
  return out;
}

function safetyChecks(c: CandidateRecord): CandidateCheck[] {
  try {
    checkRecordSafety(normalizeRecordInput(candidateInput(c)), 'reject');
    return [];
  } catch (error) {
    const reason = error instanceof UnsafeRecordError ? error.reason : 'invalid';
    return [
      {
        check: 'safety',
        severity: 'reject',
        message: `${reason}: ${error instanceof Error ? error.message : String(error)}`,
      },
    ];
  }
}

export interface ReviewOptions {
  /** Set `approved` on candidates with no rejecting finding and `rejected` on the others. */
  approvePassing?: boolean;
  /** Candidate ids to approve / reject explicitly (applied after `approvePassing`). */
  approve?: readonly string[];
  reject?: readonly string[];
}

export interface ReviewSummary {
  total: number;
  approved: number;
  rejected: number;
  pending: number;
  /** Findings by check and severity, e.g. `quality:reject` → 12. */
  findings: Record<string, number>;
}

/** Recompute every candidate's findings against the store as it is now, then apply decisions. */
export function review(
  store: ContinuityStore,
  candidates: readonly CandidateRecord[],
  options: ReviewOptions = {},
): { candidates: CandidateRecord[]; summary: ReviewSummary } {
  const keys = new Map<string, string>();
  const existing = store.stmt(
    "SELECT id FROM records WHERE content_key = ? AND status = 'active' LIMIT 1",
  );
  const out = candidates.map((c) => {
    const checks: CandidateCheck[] = [...qualityChecks(c), ...safetyChecks(c)];
    const key = contentKey(c.title, c.summary);
    const stored = existing.get(key) as { id: string } | undefined;
    if (stored)
      checks.push({ check: 'duplicate', severity: 'reject', message: `already stored as ${stored.id}` });
    else if (keys.has(key))
      checks.push({ check: 'duplicate', severity: 'reject', message: `same as ${keys.get(key)}` });
    else keys.set(key, c.candidate_id);
    let status = c.status;
    if (options.approvePassing)
      status = checks.some((k) => k.severity === 'reject') ? 'rejected' : 'approved';
    if (options.approve?.includes(c.candidate_id)) status = 'approved';
    if (options.reject?.includes(c.candidate_id)) status = 'rejected';
    return { ...c, status, checks };
  });
  const findings: Record<string, number> = {};
  for (const c of out)
    for (const k of c.checks)
      findings[`${k.check}:${k.severity}`] = (findings[`${k.check}:${k.severity}`] ?? 0) + 1;
  const count = (s: string) => out.filter((c) => c.status === s).length;
  return {
    candidates: out,
    summary: {
      total: out.length,
      approved: count('approved'),
      rejected: count('rejected'),
      pending: count('pending'),
      findings,
    },
  };
}
