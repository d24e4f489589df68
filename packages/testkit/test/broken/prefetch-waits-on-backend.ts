import { GoodRemoteProvider, notesBackend, remoteHarnessFor } from '../fixtures/good-remote-provider';
import type { BrokenCase } from './types';

/** Searches the backend inside prefetch and ignores the signal: a hanging backend holds the turn. */
class PrefetchWaitsOnBackend extends GoodRemoteProvider {
  override async prefetch(query: string): Promise<string> {
    try {
      return await this.search(query);
    } catch {
      return '';
    }
  }
}

export const prefetchWaitsOnBackend: BrokenCase = {
  check: 'faults.prefetch-in-budget',
  message: /prefetch\(\) during a hanging backend did not come back within 2000 ms/,
  harness: async () => remoteHarnessFor(await notesBackend(), (url) => new PrefetchWaitsOnBackend(url)),
};
