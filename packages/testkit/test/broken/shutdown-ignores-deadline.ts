import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Waits for something that never comes at shutdown, ignoring its signal and timeoutMs. */
class ShutdownIgnoresDeadline extends GoodProvider {
  private hung = false;
  override async shutdown(): Promise<void> {
    if (!this.hung) {
      this.hung = true;
      await new Promise(() => {});
    }
  }
}

export const shutdownIgnoresDeadline: BrokenCase = {
  check: 'lifecycle.shutdown-deadline',
  message: /shutdown\(\) did not come back within 2000 ms \(its signal aborted at 1000 ms\)/,
  harness: harnessFor(() => new ShutdownIgnoresDeadline()),
};
