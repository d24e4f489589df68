import { GoodRemoteProvider, notesBackend, remoteHarnessFor } from '../fixtures/good-remote-provider';
import type { BrokenCase } from './types';

/** Hands the backend's failure back to the caller of syncTurn. */
class SyncRejectsOnBackendError extends GoodRemoteProvider {
  override syncTurn(user: string, assistant: string): Promise<void> {
    if (this.closed || !this.writable) return Promise.resolve();
    return this.add(`${user} ${assistant}`).then(() => undefined);
  }
}

export const syncRejectsOnBackendError: BrokenCase = {
  check: 'faults.sync-never-rejects',
  message:
    /syncTurn\(\) rejected during HTTP 500: APICallError: Notes: POST \/v1\/notes failed with HTTP 500/,
  harness: async () => remoteHarnessFor(await notesBackend(), (url) => new SyncRejectsOnBackendError(url)),
};
