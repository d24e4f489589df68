import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Drops queued work at shutdown instead of draining it. */
class LosesWritesOnShutdown extends GoodProvider {
  override async shutdown(): Promise<void> {
    this.closed = true;
    this.queue.abandon();
    this.queue.close();
  }
}

export const losesWritesOnShutdown: BrokenCase = {
  check: 'persistence.shutdown-flushes',
  message: /[1-5] of 5 turns synced right before shutdown\(\) were lost/,
  harness: harnessFor(() => new LosesWritesOnShutdown()),
};
