import { randomUUID } from 'node:crypto';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Awaits the disk write inside syncTurn: the agent's turn waits for the backend. */
class BlockingSyncTurn extends GoodProvider {
  override syncTurn(user: string, assistant: string): Promise<void> {
    if (this.closed || !this.writable) return Promise.resolve();
    return this.append([{ op: 'add', id: randomUUID(), text: `${user} ${assistant}` }]);
  }
}

export const blockingSyncTurn: BrokenCase = {
  check: 'sync.non-blocking',
  message:
    /syncTurn\(\) did not resolve while its backend I\/O was held \(fs\.promises\.appendFile\(.*good-memory\.jsonl\)\)/,
  harness: harnessFor(() => new BlockingSyncTurn()),
};
