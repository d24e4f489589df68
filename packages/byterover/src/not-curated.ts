/**
 * Writes (turns, mirrored memory writes, pre-compression flushes) accepted but never curated: a
 * brv run that failed or timed out, a turn skipped behind a slow curate, a curate killed or
 * dropped at shutdown. brv keeps nothing it did not curate, and neither does this provider (an
 * in-memory lane), so what this counts is lost: it is told in `health()` and at shutdown.
 */
export class NotCurated {
  /** Since `initialize`. */
  total = 0;
  /** Since the last curate that succeeded: `health()` reports degraded while this is above 0. */
  sinceCurated = 0;
  /** When the first of `sinceCurated` was lost (clock ms). */
  since = 0;
  /** Why the last one was lost, one line. */
  lastReason = '';

  constructor(private readonly now: () => number) {}

  lost(count: number, reason: string): void {
    if (count <= 0) return;
    if (this.sinceCurated === 0) this.since = this.now();
    this.total += count;
    this.sinceCurated += count;
    this.lastReason = reason;
  }

  curated(): void {
    this.sinceCurated = 0;
  }

  /** ` N write(s) not curated since start.`, or ''. */
  note(): string {
    return this.total > 0 ? ` ${this.total} write(s) not curated since start.` : '';
  }
}
