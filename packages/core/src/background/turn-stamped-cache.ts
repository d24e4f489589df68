/**
 * Holds the result of background work (a queued prefetch) stamped with the turn that asked for
 * it. When a newer request has been made, a result that arrives for an older one is dropped, so a
 * slow recall for turn 3 can never overwrite (or be served as) the recall for turn 4.
 */
export class TurnStampedCache<T> {
  private latestRequested = 0;
  private stored: { stamp: number; value: T } | undefined;

  /** Record a new request and return its stamp. Pass a turn number to use it as the stamp. */
  request(turn?: number): number {
    const stamp = turn ?? this.latestRequested + 1;
    if (stamp > this.latestRequested) this.latestRequested = stamp;
    return stamp;
  }

  /** The newest stamp requested so far (0 before any request). */
  get latestStamp(): number {
    return this.latestRequested;
  }

  /** Store a result. Returns false (and keeps nothing) if a newer request exists. */
  set(stamp: number, value: T): boolean {
    if (stamp < this.latestRequested) return false;
    if (this.stored && this.stored.stamp > stamp) return false;
    this.stored = { stamp, value };
    return true;
  }

  /** The current result, if it answers the newest request. */
  get(): T | undefined {
    if (!this.stored || this.stored.stamp < this.latestRequested) return undefined;
    return this.stored.value;
  }

  /** Like `get`, and forgets the value so it is served once. */
  take(): T | undefined {
    const value = this.get();
    this.stored = undefined;
    return value;
  }

  clear(): void {
    this.stored = undefined;
  }
}
