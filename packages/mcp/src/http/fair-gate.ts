export interface FairGateOptions {
  /** Jobs running at once, over all keys. */
  maxRunning: number;
  /** Jobs running at once for one key. */
  maxRunningPerKey: number;
  /** Jobs waiting for one key; one more is refused at once. */
  maxQueuedPerKey: number;
}

/**
 * Bounded, fair admission of work from many clients (a key is an MCP session). At most
 * `maxRunning` jobs run, at most `maxRunningPerKey` of one key; free slots go round-robin over the
 * keys that have work waiting, so a client that floods the server queues behind its own requests,
 * never in front of everyone else's, and a full queue is refused instead of growing.
 */
export class FairGate {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  /** Waiting jobs per key; Map order is the round-robin order (a served key moves to the back). */
  private readonly waiting = new Map<string, Array<(release: () => void) => void>>();

  constructor(private readonly options: FairGateOptions) {}

  /** Resolves with a release function once admitted; null when the key already has a full queue. */
  enter(key: string): Promise<() => void> | null {
    const queue = this.waiting.get(key);
    if ((queue?.length ?? 0) >= this.options.maxQueuedPerKey) return null;
    return new Promise((resolve) => {
      if (queue) queue.push(resolve);
      else this.waiting.set(key, [resolve]);
      this.pump();
    });
  }

  /** Jobs running now (for tests and diagnostics). */
  get active(): number {
    return this.running;
  }

  private pump(): void {
    while (this.running < this.options.maxRunning) {
      const next = [...this.waiting].find(
        ([key]) => (this.runningBy.get(key) ?? 0) < this.options.maxRunningPerKey,
      );
      if (!next) return;
      const [key, queue] = next;
      const resolve = queue.shift()!;
      this.waiting.delete(key);
      if (queue.length > 0) this.waiting.set(key, queue);
      this.start(key, resolve);
    }
  }

  private start(key: string, resolve: (release: () => void) => void): void {
    this.running++;
    this.runningBy.set(key, (this.runningBy.get(key) ?? 0) + 1);
    let released = false;
    resolve(() => {
      if (released) return;
      released = true;
      this.running--;
      const left = (this.runningBy.get(key) ?? 1) - 1;
      if (left > 0) this.runningBy.set(key, left);
      else this.runningBy.delete(key);
      this.pump();
    });
  }
}
