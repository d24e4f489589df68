export interface UndeliveredWritesOptions {
  /** The clock `since` is read from (a provider's injected clock). */
  now: () => number;
  /** What happened to a counted write, for the note: "not delivered to Mem0", "not curated". */
  missed: string;
}

/**
 * Writes a provider accepted but its backend never confirmed (decisions 0910, 0971, 0982): a
 * request that failed or timed out, a write refused while the breaker is open, a turn skipped
 * behind a stuck one, one abandoned at shutdown. `HeldLosses` counts what a hold cap dropped;
 * this counts every write that missed its backend, so `health()` can report degraded since the
 * last confirmed write and the shutdown warning can say the session's total. A counted write the
 * provider later delivers from its journal leaves the count (`recovered`).
 */
export class UndeliveredWrites {
  /** Since the provider started. */
  total = 0;
  /** Since the last write the backend confirmed: `health()` reports degraded while this is above 0. */
  sinceDelivered = 0;
  /** When the first of `sinceDelivered` was missed (clock ms). */
  since = 0;
  /** Why the last one was missed, one line. */
  lastReason = '';
  /** Set at shutdown, once the total was told: a write failing afterwards is already in it. */
  private sealed = false;

  constructor(private readonly options: UndeliveredWritesOptions) {}

  lost(count: number, reason: string): void {
    if (this.sealed || count <= 0) return;
    if (this.sinceDelivered === 0) this.since = this.options.now();
    this.total += count;
    this.sinceDelivered += count;
    this.lastReason = reason;
  }

  /** The backend confirmed a write: it is reachable again. */
  delivered(): void {
    this.sinceDelivered = 0;
  }

  /**
   * `count` writes counted here were delivered after all (sent again from the provider's journal
   * within the run): they leave the total. Not after `seal` — the total was told.
   */
  recovered(count: number): void {
    if (this.sealed || count <= 0) return;
    this.total = Math.max(0, this.total - count);
    this.sinceDelivered = Math.min(this.sinceDelivered, this.total);
  }

  /** Count `abandoned` writes still in flight and stop counting: the total shutdown tells. */
  seal(abandoned: number): number {
    this.lost(abandoned, 'abandoned at shutdown');
    this.sealed = true;
    return this.total;
  }

  /** For `health()`: ` N write(s) <missed> since start.`, or ''. */
  note(): string {
    return this.total > 0 ? ` ${this.total} write(s) ${this.options.missed} since start.` : '';
  }
}
