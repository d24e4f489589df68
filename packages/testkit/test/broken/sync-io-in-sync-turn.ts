import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Writes the turn with appendFileSync before returning: the event loop blocks on the disk. */
class SyncIoInSyncTurn extends GoodProvider {
  override syncTurn(user: string, assistant: string): void {
    if (this.closed || !this.writable) return;
    const line = { op: 'add' as const, id: randomUUID(), text: `${user} ${assistant}` };
    fs.appendFileSync(this.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    this.apply(line);
  }
}

export const syncIoInSyncTurn: BrokenCase = {
  check: 'sync.non-blocking',
  message:
    /syncTurn\(\) did blocking file I\/O before returning \(fs\.appendFileSync\(.*good-memory\.jsonl\)\)/,
  harness: harnessFor(() => new SyncIoInSyncTurn()),
};
