/**
 * `continuity_prune_stale`: report first, change only with `apply`. Records past their
 * `expires_at` become `expired`; project state not updated within its freshness window is
 * archived. Nothing is deleted (decision 0908).
 */
import type { ProviderState } from '../events';
import type { RecordKind } from '../records';
import type { ContinuityStore } from '../store';

export interface PruneItem {
  record_id: string;
  kind: string;
  title: string;
  updated_at: string;
  reason: string;
}

export interface PruneReport {
  expired: PruneItem[];
  stale: PruneItem[];
  applied: boolean;
  /** Kind → days used for the stale check. */
  windows: Partial<Record<RecordKind, number>>;
}

export interface PruneOptions {
  apply?: boolean;
  /** Replace every configured window with this many days. */
  olderThanDays?: number;
  staleAfterDays: Partial<Record<RecordKind, number>>;
}

export const LAST_PRUNE_KEY = 'maintenance.prune_stale.last_run';

export function pruneStale(store: ContinuityStore, state: ProviderState, options: PruneOptions): PruneReport {
  const now = store.now();
  const windows: Partial<Record<RecordKind, number>> = {};
  for (const [kind, days] of Object.entries(options.staleAfterDays))
    if (days && days > 0) windows[kind as RecordKind] = options.olderThanDays ?? days;
  const expired: PruneItem[] = [];
  const stale: PruneItem[] = [];
  for (const r of store.list({ statuses: ['active'] })) {
    const item = (reason: string): PruneItem => ({
      record_id: r.id,
      kind: r.kind,
      title: r.title,
      updated_at: r.updatedAt,
      reason,
    });
    if (r.expiresAt && Date.parse(r.expiresAt) <= now.getTime()) {
      expired.push(item(`expired at ${r.expiresAt}`));
      continue;
    }
    const days = windows[r.kind];
    if (days === undefined) continue;
    const age = (now.getTime() - Date.parse(r.updatedAt)) / 86_400_000;
    if (age > days) stale.push(item(`not updated in ${Math.floor(age)} days (window ${days})`));
  }
  if (options.apply) {
    store.transaction(() => {
      for (const e of expired) store.transition(e.record_id, 'expire', { reason: e.reason });
      for (const s of stale) store.transition(s.record_id, 'archive', { reason: `stale: ${s.reason}` });
    });
    state.set(LAST_PRUNE_KEY, { at: now.toISOString(), expired: expired.length, archived: stale.length });
  }
  return { expired, stale, applied: options.apply === true, windows };
}
