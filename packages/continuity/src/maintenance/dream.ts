/**
 * `continuity_dream`: consolidation, conservatively (decision 0908). A first run only proposes:
 * clusters of near-duplicate active records (same kind and scope), each with a merged record
 * written by the agent's `LlmClient` when one is available, or else "keep the strongest record".
 * Proposals are stored; a second run with `apply` carries out the reviewed ones by superseding the
 * originals (restorable, never deleted).
 */
import { createHash } from 'node:crypto';
import type { LlmClient, Logger } from '@hermes-memory/core';
import type { ProviderState } from '../events';
import { mergeSources, similarityOf } from './cluster';
import { type ContextRecord, LIMITS, TRUST_WEIGHT, normalizeRecordInput } from '../records';
import { checkRecordSafety } from '../safety';
import type { ContinuityStore } from '../store';

export interface MergedText {
  title: string;
  summary: string;
  details: string | null;
}

export interface DreamProposal {
  proposal_id: string;
  kind: string;
  record_ids: string[];
  /** `merge`: a new record replaces all of them; `keep`: `keep_id` supersedes the others. */
  action: 'merge' | 'keep';
  keep_id?: string;
  merged?: MergedText;
  reason: string;
}

export interface DreamReport {
  proposals: DreamProposal[];
  applied: Array<{ proposal_id: string; new_record_id: string; superseded: string[] }>;
  skipped: Array<{ proposal_id: string; reason: string }>;
  /** Records examined (the most recently updated `limit` active ones). */
  examined: number;
  used_llm: boolean;
}

export interface DreamOptions {
  apply?: boolean;
  /** Apply only these stored proposals (default: all stored). */
  proposalIds?: readonly string[];
  /** Records examined, most recently updated first (default 300). */
  limit?: number;
  /** Word-overlap similarity that makes two records near-duplicates (default 0.6). */
  threshold?: number;
  llm?: LlmClient;
  logger?: Logger;
  signal?: AbortSignal;
}

export const PENDING_KEY = 'dream.pending';

/** The strongest record of a cluster: trust, then confidence, importance, recency. */
function strongest(records: readonly ContextRecord[]): ContextRecord {
  return [...records].sort(
    (a, b) =>
      TRUST_WEIGHT[b.trustLevel] - TRUST_WEIGHT[a.trustLevel] ||
      b.confidence - a.confidence ||
      b.importance - a.importance ||
      b.updatedAt.localeCompare(a.updatedAt),
  )[0]!;
}

/** Near-duplicate clusters (union-find over pairs above the threshold), same kind and scope. */
export function clusters(records: readonly ContextRecord[], threshold: number): ContextRecord[][] {
  const parent = records.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i]!;
    return i;
  };
  const groups = new Map<string, number[]>();
  records.forEach((r, i) => {
    const key = `${r.kind}|${JSON.stringify(r.scopes)}`;
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  });
  for (const idx of groups.values()) {
    for (let a = 0; a < idx.length; a++)
      for (let b = a + 1; b < idx.length; b++)
        if (similarityOf(records[idx[a]!]!, records[idx[b]!]!) >= threshold)
          parent[find(idx[a]!)] = find(idx[b]!);
  }
  const out = new Map<number, ContextRecord[]>();
  records.forEach((r, i) => {
    const root = find(i);
    const c = out.get(root);
    if (c) c.push(r);
    else out.set(root, [r]);
  });
  return [...out.values()].filter((c) => c.length > 1);
}

const SYSTEM_PROMPT =
  "You consolidate an agent's long-term memory. You receive records that look like near-duplicates. " +
  'If they state the same thing, write ONE record that keeps every distinct fact, with no new claims. ' +
  'If they differ in substance, do not merge. Answer with JSON only: ' +
  '{"merge": true|false, "title": "...", "summary": "...", "details": "..." or null, "reason": "..."}. ' +
  `Title at most ${LIMITS.title} characters, summary at most ${LIMITS.summary}.`;

async function llmMerge(
  llm: LlmClient,
  cluster: readonly ContextRecord[],
  signal: AbortSignal | undefined,
): Promise<{ merge: boolean; text?: MergedText; reason: string }> {
  const records = cluster.map((r) => ({ title: r.title, summary: r.summary, details: r.details }));
  const response = await llm.chat({
    messages: [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: JSON.stringify({ kind: cluster[0]!.kind, records }) },
    ],
    json: true,
    temperature: 0,
    timeoutMs: 30_000,
    signal,
  });
  const parsed = JSON.parse(response.content) as Record<string, unknown>;
  const reason = typeof parsed.reason === 'string' ? parsed.reason.slice(0, 300) : '';
  if (parsed.merge !== true) return { merge: false, reason: reason || 'the model kept them apart' };
  const text: MergedText = {
    title: String(parsed.title ?? ''),
    summary: String(parsed.summary ?? ''),
    details: typeof parsed.details === 'string' && parsed.details.trim() ? parsed.details : null,
  };
  // Validate and scan what the model wrote before it can ever be proposed.
  checkRecordSafety(normalizeRecordInput({ kind: cluster[0]!.kind, ...text }), 'reject');
  return { merge: true, text, reason: reason || 'near-duplicates merged' };
}

function proposalId(ids: readonly string[]): string {
  return `dream_${createHash('sha256')
    .update([...ids].sort().join(','))
    .digest('hex')
    .slice(0, 10)}`;
}

async function propose(
  store: ContinuityStore,
  options: DreamOptions,
): Promise<{ proposals: DreamProposal[]; examined: number }> {
  const limit = options.limit ?? 300;
  const recent = store
    .list({ statuses: ['active'] })
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    .slice(0, limit);
  const proposals: DreamProposal[] = [];
  for (const cluster of clusters(recent, options.threshold ?? 0.6)) {
    const ids = cluster.map((r) => r.id);
    const base = { proposal_id: proposalId(ids), kind: cluster[0]!.kind, record_ids: ids };
    if (options.llm) {
      try {
        const result = await llmMerge(options.llm, cluster, options.signal);
        if (!result.merge) continue;
        proposals.push({ ...base, action: 'merge', merged: result.text!, reason: result.reason });
        continue;
      } catch (error) {
        options.logger?.warn(
          'continuity: dream merge by the model failed; proposing to keep the strongest record',
          {
            error: String(error),
          },
        );
      }
    }
    const keep = strongest(cluster);
    proposals.push({
      ...base,
      action: 'keep',
      keep_id: keep.id,
      reason: 'near-duplicates: keep the strongest record',
    });
  }
  return { proposals, examined: recent.length };
}

function applyProposal(
  store: ContinuityStore,
  p: DreamProposal,
): { new_record_id: string; superseded: string[] } {
  return store.transaction(() => {
    const records = p.record_ids.map((id) => store.get(id));
    if (records.some((r) => r?.status !== 'active')) throw new Error('a record changed since the proposal');
    const live = records as ContextRecord[];
    let winner: string;
    if (p.action === 'merge' && p.merged) {
      const first = live[0]!;
      const { record } = store.add(
        {
          kind: first.kind,
          ...p.merged,
          scopes: first.scopes,
          tags: [...new Set(live.flatMap((r) => r.tags))].slice(0, LIMITS.tags),
          entities: [...new Set(live.flatMap((r) => r.entities))].slice(0, LIMITS.entities),
          confidence: Math.max(...live.map((r) => r.confidence)),
          importance: Math.max(...live.map((r) => r.importance)),
          trustLevel: strongest(live).trustLevel,
          sources: [{ type: 'dream', ref: p.proposal_id }, ...mergeSources(live)],
        },
        { dedupe: false },
      );
      winner = record.id;
    } else {
      winner = p.keep_id!;
    }
    const superseded = live.map((r) => r.id).filter((id) => id !== winner);
    for (const id of superseded)
      store.transition(id, 'supersede', { supersededBy: winner, reason: `consolidated (${p.proposal_id})` });
    return { new_record_id: winner, superseded };
  });
}

export async function dream(
  store: ContinuityStore,
  state: ProviderState,
  options: DreamOptions = {},
): Promise<DreamReport> {
  if (!options.apply) {
    const { proposals, examined } = await propose(store, options);
    state.set(PENDING_KEY, proposals);
    return { proposals, applied: [], skipped: [], examined, used_llm: options.llm !== undefined };
  }
  const pending = state.get<DreamProposal[]>(PENDING_KEY) ?? [];
  const wanted = options.proposalIds ? new Set(options.proposalIds) : null;
  const report: DreamReport = { proposals: pending, applied: [], skipped: [], examined: 0, used_llm: false };
  const remaining: DreamProposal[] = [];
  for (const p of pending) {
    if (wanted && !wanted.has(p.proposal_id)) {
      remaining.push(p);
      continue;
    }
    try {
      report.applied.push({ proposal_id: p.proposal_id, ...applyProposal(store, p) });
    } catch (error) {
      report.skipped.push({
        proposal_id: p.proposal_id,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
  }
  if (wanted)
    for (const id of wanted)
      if (!pending.some((p) => p.proposal_id === id))
        report.skipped.push({ proposal_id: id, reason: 'no such pending proposal' });
  state.set(PENDING_KEY, remaining);
  return report;
}
