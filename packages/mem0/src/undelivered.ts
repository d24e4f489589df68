/**
 * Writes (synced turns, mirrored memory writes) that were accepted but never confirmed by Mem0:
 * a request that failed or timed out (a timed-out one may still land), a write refused while the
 * circuit breaker is open, a turn skipped behind a stuck write, a write abandoned at shutdown.
 * Mem0 holds nothing across an outage or a restart (the reference does not either; decision
 * 0910): what this counts is lost, so it is told — in `health()` and in the shutdown warning.
 */
export class UndeliveredWrites {
  /** Since `initialize`. */
  total = 0;
  /** Since the last write Mem0 confirmed: `health()` reports degraded while this is above 0. */
  sinceDelivered = 0;
  /** When the first of `sinceDelivered` was lost (clock ms). */
  since = 0;
  /** Why the last one was lost, one line. */
  lastReason = '';
  /** Set at shutdown, once the total was told: a write failing afterwards is already in it. */
  private sealed = false;

  constructor(private readonly now: () => number) {}

  lost(count: number, reason: string): void {
    if (this.sealed || count <= 0) return;
    if (this.sinceDelivered === 0) this.since = this.now();
    this.total += count;
    this.sinceDelivered += count;
    this.lastReason = reason;
  }

  delivered(): void {
    this.sinceDelivered = 0;
  }

  /** Count `abandoned` writes still in flight and stop counting: what shutdown tells. */
  seal(abandoned: number): number {
    this.lost(abandoned, 'abandoned at shutdown');
    this.sealed = true;
    return this.total;
  }

  /** ` N write(s) not delivered to Mem0 since start.`, or ''. */
  note(): string {
    return this.total > 0 ? ` ${this.total} write(s) not delivered to Mem0 since start.` : '';
  }
}
