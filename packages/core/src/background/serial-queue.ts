import type { Logger } from '../logging/logger';
import { silentLogger } from '../logging/logger';
import { type Clock, type ClockTimer, systemClock } from '../resilience/clock';

export type QueueTask = () => Promise<void> | void;

interface Entry {
  task: QueueTask;
  label: string;
}

export interface SerialQueueOptions {
  /** Used in log lines ("memory queue 'honcho'"). */
  name?: string;
  /** Failures of individual tasks are reported here (WARNING) and never stop the queue. */
  logger?: Logger;
  /** Times `drain`'s timeout. Default the system clock. */
  clock?: Clock;
}

/**
 * Runs tasks one at a time in submission order. Turn N's write lands before turn N+1's, a failing
 * task is logged and skipped, and nothing runs on the caller's stack: `push` returns at once.
 */
export class SerialQueue {
  readonly name: string;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly pending: Entry[] = [];
  private running: Entry | undefined;
  private idleWaiters: Array<() => void> = [];
  private isClosed = false;
  private scheduled = false;

  constructor(options: SerialQueueOptions = {}) {
    this.name = options.name ?? 'queue';
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
  }

  /** Tasks queued or running. */
  get size(): number {
    return this.pending.length + (this.running ? 1 : 0);
  }

  /** Tasks waiting to start (the running one not counted). */
  get queued(): number {
    return this.pending.length;
  }

  /** True while a task is running. */
  get active(): boolean {
    return this.running !== undefined;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Labels of the running and queued tasks, oldest first. */
  get labels(): string[] {
    return [...(this.running ? [this.running.label] : []), ...this.pending.map((e) => e.label)];
  }

  /**
   * Queue a task. Returns false (and logs a WARNING) when the queue is closed: late work after
   * shutdown is refused rather than silently racing the teardown.
   */
  push(task: QueueTask, label = 'task'): boolean {
    if (this.isClosed) {
      this.logger.warn(`${this.name}: rejected '${label}' submitted after shutdown`);
      return false;
    }
    this.pending.push({ task, label });
    // Start on a later macrotask, never on the caller's stack: even a task whose first part is
    // synchronous (a SQLite write) must not delay the turn that queued it.
    if (!this.running && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.pump();
      });
    }
    return true;
  }

  /**
   * Wait until every task queued so far (and any queued meanwhile) has finished. True when the
   * queue is empty, false when `timeoutMs` elapsed or `signal` aborted first (an empty queue is
   * true even under an aborted signal: nothing is left to lose). Without a timeout or signal it
   * waits as long as it takes. Giving up leaves the tasks queued; `abandon()` drops them.
   */
  drain(timeoutMs?: number, signal?: AbortSignal): Promise<boolean> {
    if (this.size === 0) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let timer: ClockTimer | undefined;
      const finish = (drained: boolean) => {
        if (timer !== undefined) this.clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (!drained) this.idleWaiters = this.idleWaiters.filter((w) => w !== onIdle);
        resolve(drained);
      };
      const onIdle = () => finish(true);
      const onAbort = () => finish(false);
      this.idleWaiters.push(onIdle);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        timer = this.clock.setTimeout(() => finish(false), Math.max(0, timeoutMs));
      }
    });
  }

  /** Refuse further pushes. Already queued tasks still run. */
  close(): void {
    this.isClosed = true;
  }

  /** Drop one task that has not started yet. False when it already ran, is running or was never queued. */
  remove(task: QueueTask): boolean {
    const index = this.pending.findIndex((e) => e.task === task);
    if (index < 0) return false;
    this.pending.splice(index, 1);
    if (this.size === 0) this.notifyIdle();
    return true;
  }

  /**
   * Drop the oldest task that has not started and whose label `droppable` accepts; returns its
   * label, or undefined when none qualifies.
   */
  dropOldest(droppable: (label: string) => boolean): string | undefined {
    const index = this.pending.findIndex((e) => droppable(e.label));
    if (index < 0) return undefined;
    // The oldest is nearly always droppable: shift() is O(1) in V8, splice(0, 1) copies the array.
    const entry = index === 0 ? this.pending.shift() : this.pending.splice(index, 1)[0];
    if (this.size === 0) this.notifyIdle();
    return entry?.label;
  }

  /** Drop every task that has not started; returns the dropped labels. */
  abandon(): string[] {
    const dropped = this.pending.splice(0).map((e) => e.label);
    if (this.size === 0) this.notifyIdle();
    return dropped;
  }

  private async pump(): Promise<void> {
    while (true) {
      const entry = this.pending.shift();
      if (!entry) break;
      this.running = entry;
      try {
        await entry.task();
      } catch (error) {
        this.logger.warn(`${this.name}: background task '${entry.label}' failed: ${describe(error)}`);
      }
      this.running = undefined;
    }
    this.notifyIdle();
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
