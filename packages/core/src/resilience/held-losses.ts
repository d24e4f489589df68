import type { Logger } from '../logging/logger';

export interface HeldLossesOptions {
  /** Names the backend in the log lines ("Honcho"). */
  name: string;
  /** What is held and counted, singular: "message" or "turn". */
  unit: string;
  /** The cap: at most `max` units and `maxChars` characters are held. */
  max: number;
  maxChars: number;
  /** Read at each line (a provider's logger may be replaced after construction). */
  logger: () => Logger;
}

/**
 * What an outage cost a provider that holds its writes while its circuit breaker is open
 * (decisions 0925, 0953, 0982). Each provider keeps what it holds its own way — Honcho's write
 * buffer, Hindsight's session logs past their watermark, OpenViking's turns in their sessions'
 * order — and drops the oldest beyond the same cap; this keeps the count of what the cap dropped,
 * warns once per outage at its first drop, says the outage's total when a send goes through
 * again, and words the total for `health()`.
 */
export class HeldLosses {
  /** Dropped over the cap since the provider started. */
  total = 0;
  /** Dropped in the current outage (0 once a send goes through): the warning comes with the first. */
  private outage = 0;

  constructor(private readonly options: HeldLossesOptions) {}

  /** `count` held units went over the cap (the oldest): the first drop of an outage warns. */
  dropped(count: number): void {
    if (count <= 0) return;
    this.total += count;
    const { name, unit, max, maxChars } = this.options;
    if (this.outage === 0)
      this.options
        .logger()
        .warn(
          `${name}: unavailable for long enough that held turns exceed ${max} ${unit}s or ${maxChars} characters; ` +
            `dropping the oldest (${count} ${unit}(s) so far; the total is in health()).`,
        );
    this.outage += count;
  }

  /** A send went through: the outage (if any) is over; say what it cost. */
  delivered(): void {
    if (this.outage === 0) return;
    const { name, unit } = this.options;
    this.options
      .logger()
      .info(`${name}: reachable again; ${this.outage} held ${unit}(s) were dropped during the outage.`);
    this.outage = 0;
  }

  /** For `health()` while open: ` N held <unit>(s) dropped (the oldest, over the cap).`, or ''. */
  note(): string {
    return this.total > 0
      ? ` ${this.total} held ${this.options.unit}(s) dropped (the oldest, over the cap).`
      : '';
  }
}
