import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import { notesBackend } from '../fixtures/good-remote-provider';
import type { BrokenCase } from './types';

/**
 * Awaits its network write inside syncTurn, with a harness that reports no pending work (the
 * shape the real Supermemory SDK produced). The kit used to pass it: it read "did syncTurn
 * resolve?" after releasing the held request, when the awaited write had completed.
 */
class AwaitsFetchInSyncTurn extends GoodProvider {
  private inFlight: Promise<unknown> = Promise.resolve();
  override async syncTurn(user: string, assistant: string): Promise<void> {
    if (this.closed || !this.writable) return;
    const backend = await notesBackend();
    const write = fetch(`${backend.url}/v1/notes`, {
      method: 'POST',
      headers: { authorization: 'Bearer notes-key-0123456789', 'content-type': 'application/json' },
      body: JSON.stringify({ text: `${user} ${assistant}` }),
    });
    this.inFlight = write;
    await write;
  }
  override async shutdown(): Promise<void> {
    await this.inFlight.catch(() => undefined);
    await super.shutdown();
  }
}

export const awaitsFetchInSyncTurn: BrokenCase = {
  check: 'sync.non-blocking',
  message:
    /syncTurn\(\) did not resolve while its backend I\/O was held \(fetch\(http:\/\/127\.0\.0\.1:\d+\/v1\/notes\)\)/,
  harness: harnessFor(() => new AwaitsFetchInSyncTurn(), { pendingWork: undefined }),
};
