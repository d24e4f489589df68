import { GoodRemoteProvider, notesBackend, remoteHarnessFor } from '../fixtures/good-remote-provider';
import type { BrokenCase } from './types';

/** Drains its write queue at shutdown with no deadline: a hanging backend holds the exit. */
class ShutdownWaitsForBackend extends GoodRemoteProvider {
  override async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue.close();
    await this.queue.drain();
  }
}

export const shutdownWaitsForBackend: BrokenCase = {
  check: 'faults.shutdown-deadline',
  message: /shutdown\(\) with the backend hanging did not come back within 2000 ms/,
  harness: async () => remoteHarnessFor(await notesBackend(), (url) => new ShutdownWaitsForBackend(url)),
};
