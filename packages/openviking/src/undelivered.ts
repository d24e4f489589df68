/**
 * Turns and mirrored memory writes accepted but never stored by OpenViking and not held for a
 * later delivery: a turn taken while the server is known to be down, a post that failed outright
 * (not refused by the open breaker: those are held, decision 0982), a mirror that failed or was
 * abandoned at shutdown. Nothing keeps them, so they are counted and told — in `health()` and in
 * the shutdown warning.
 */
export class UndeliveredWrites {
  /** Since `initialize`. */
  total = 0;
  /** Since the last write the server stored: `health()` reports degraded while this is above 0. */
  sinceDelivered = 0;
  /** When the first of `sinceDelivered` was lost (clock ms). */
  since = 0;
  /** Why the last one was lost, one line. */
  lastReason = '';
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

  /** Count what shutdown abandons and stop counting (writes failing afterwards are in it). */
  seal(abandoned: number): number {
    this.lost(abandoned, 'abandoned at shutdown');
    this.sealed = true;
    return this.total;
  }

  /** ` N write(s) not delivered to OpenViking since start.`, or ''. */
  note(): string {
    return this.total > 0 ? ` ${this.total} write(s) not delivered to OpenViking since start.` : '';
  }
}
