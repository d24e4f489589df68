import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Claims sync: buffered, but writes the turn to disk in syncTurn. */
class BuffersButDoesIo extends GoodProvider {
  override syncTurn(user: string, assistant: string): Promise<void> {
    return this.append([{ op: 'add', id: `${Date.now()}`, text: `${user} ${assistant}` }]);
  }
}

export const buffersButDoesIo: BrokenCase = {
  check: 'sync.buffered',
  message:
    /syncTurn\(\) did I\/O \(fs\.promises\.appendFile\(.*good-memory\.jsonl\)\) although the provider claims sync: buffered/,
  harness: harnessFor(() => new BuffersButDoesIo(), { capabilities: { sync: 'buffered' } }),
};
