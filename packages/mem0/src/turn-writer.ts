import { type Clock, type ClockTimer, type Logger, silentLogger, systemClock } from '@hermes-memory/core';

/** Whether `work` settles within `ms` on `clock` (never rejects). */
export function settlesWithin(work: Promise<unknown>, ms: number, clock: Clock): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let timer: ClockTimer | undefined;
    const done = (settled: boolean) => {
      if (timer !== undefined) clock.clearTimeout(timer);
      timer = undefined;
      resolve(settled);
    };
    timer = clock.setTimeout(() => done(false), Math.max(0, ms));
    work.then(
      () => done(true),
      () => done(true),
    );
  });
}

/**
 * The per-turn writes of `syncTurn`, off the caller's path and in order. The reference's rule for a
 * slow backend: a turn waits up to `waitMs` for the previous write; if that is still running the turn
 * is skipped, not queued, so a backlog never builds up behind it and nothing is ingested twice (a
 * write that timed out on our side may still land on the server). A skipped turn is not sent here;
 * `onUnstuck` tells the provider when it may send it from its journal instead.
 */
export class TurnWriter {
  private decisions: Promise<void> = Promise.resolve();
  private active: Promise<void> | undefined;
  private waiting = 0;
  private closed = false;
  /** Turns skipped because the previous write was still running. */
  skipped = 0;
  /** A write already found still running after `waitMs`: later turns skip it at once, not 5 s each. */
  private stuck: Promise<void> | undefined;
  private skippedWhileStuck = 0;

  constructor(
    private readonly options: {
      waitMs: number;
      clock?: Clock;
      logger?: Logger;
      /** Called for each skipped turn (the provider counts what it never delivered). */
      onSkip?: () => void;
      /**
       * Called once the write turns were skipped behind has ended (succeeded or failed): the
       * provider may now send the skipped turns from its journal, in the background.
       */
      onUnstuck?: () => void;
    },
  ) {}

  private skip(whileStuck: boolean, skipped?: () => void): void {
    skipped?.();
    this.skipped += 1;
    if (whileStuck) this.skippedWhileStuck += 1;
    this.options.onSkip?.();
  }

  private get clock(): Clock {
    return this.options.clock ?? systemClock;
  }

  /**
   * Queue one turn's write; returns at once. `send` must not throw synchronously. Once the write in
   * flight has outlived one turn's wait, every later turn is skipped at once until it settles —
   * the condition the wait tests is already known — so a hung backend queues nothing, however many
   * turns arrive (the reference's caller blocks in that wait and could not queue either).
   * `skipped` is called when this write is skipped or refused (its `send` never runs).
   */
  push(send: () => Promise<unknown>, skipped?: () => void): void {
    if (this.closed) {
      skipped?.();
      return;
    }
    if (this.stuck !== undefined && this.stuck === this.active) {
      this.skip(true, skipped);
      return;
    }
    this.waiting += 1;
    this.decisions = this.decisions.then(async () => {
      try {
        const previous = this.active;
        if (previous !== undefined) {
          if (previous === this.stuck) {
            this.skip(true, skipped);
            return;
          }
          if (!(await settlesWithin(previous, this.options.waitMs, this.clock))) {
            this.skip(false, skipped);
            this.stuck = previous;
            void previous.then(() => this.unstick(previous));
            (this.options.logger ?? silentLogger).warn(
              `Mem0: the previous turn's write is still running after ${this.options.waitMs} ms; this turn was skipped to avoid duplicate ingestion (and so is every turn until that write ends).`,
            );
            return;
          }
        }
        const write: Promise<void> = send().then(
          () => undefined,
          () => undefined,
        );
        this.active = write;
        void write.then(() => {
          if (this.active === write) this.active = undefined;
        });
      } finally {
        this.waiting -= 1;
      }
    });
  }

  /** The stuck write ended: turns are sent again; the ones skipped meanwhile are told once. */
  private unstick(write: Promise<void>): void {
    if (this.stuck !== write) return;
    this.stuck = undefined;
    const skipped = this.skippedWhileStuck;
    this.skippedWhileStuck = 0;
    if (skipped > 0)
      (this.options.logger ?? silentLogger).warn(
        `Mem0: ${skipped} more turn(s) were skipped while a write was stuck; turns are sent again.`,
      );
    this.options.onUnstuck?.();
  }

  /** Turns waiting for their decision plus the write in flight. */
  get pending(): number {
    return this.waiting + (this.active ? 1 : 0);
  }

  /** Wait for every queued turn and the last write, at most `timeoutMs`. */
  async idle(timeoutMs: number): Promise<boolean> {
    const all = this.decisions.then(() => this.active);
    return settlesWithin(all, timeoutMs, this.clock);
  }

  /** Refuse new turns (shutdown). */
  close(): void {
    this.closed = true;
  }
}
