import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

class DoubleShutdownThrows extends GoodProvider {
  override async shutdown(): Promise<void> {
    if (this.closed) throw new Error('already shut down');
    await super.shutdown();
  }
}

export const doubleShutdownThrows: BrokenCase = {
  check: 'lifecycle.initialize-shutdown',
  message: /a second shutdown\(\) threw: Error: already shut down/,
  harness: harnessFor(() => new DoubleShutdownThrows()),
};
