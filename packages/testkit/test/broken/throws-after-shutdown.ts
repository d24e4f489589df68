import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Treats a late hook as a programming error and throws. */
class ThrowsAfterShutdown extends GoodProvider {
  override syncTurn(user: string, assistant: string): void {
    if (this.closed) throw new Error('provider is closed');
    super.syncTurn(user, assistant);
  }
}

export const throwsAfterShutdown: BrokenCase = {
  check: 'lifecycle.hooks-after-shutdown',
  message: /syncTurn\(\) after shutdown threw: Error: provider is closed/,
  harness: harnessFor(() => new ThrowsAfterShutdown()),
};
