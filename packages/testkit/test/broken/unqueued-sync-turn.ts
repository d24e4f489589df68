import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/**
 * Keeps turns only in memory and writes them at shutdown: syncTurn is fast, but pendingWork()
 * shows nothing was queued (and a crash would lose every turn).
 */
class UnqueuedSyncTurn extends GoodProvider {
  private buffer: string[] = [];
  override syncTurn(user: string, assistant: string): void {
    if (this.writable) this.buffer.push(`${user} ${assistant}`);
  }
}

export const unqueuedSyncTurn: BrokenCase = {
  check: 'sync.non-blocking',
  message: /pendingWork\(\) was 0 right after syncTurn\(\) returned/,
  harness: harnessFor(() => new UnqueuedSyncTurn()),
};
