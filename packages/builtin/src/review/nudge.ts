/**
 * Counts user turns since the memory tool was last used. At `interval` turns the turn is flagged
 * for a background review and the count restarts. The counter lives as long as the agent (it is
 * not reset per conversation call); `interval` 0 disables it. A review agent must use its own
 * counter with interval 0 so it can never trigger reviews itself.
 */
export class NudgeCounter {
  private count = 0;

  constructor(readonly interval = 10) {}

  get turnsSinceMemory(): number {
    return this.count;
  }

  /** Call once per user turn; true when a background review is due now. */
  onUserTurn(): boolean {
    if (this.interval <= 0) return false;
    this.count++;
    if (this.count >= this.interval) {
      this.count = 0;
      return true;
    }
    return false;
  }

  /** The memory tool was used this turn. */
  onMemoryToolUsed(): void {
    this.count = 0;
  }
}
