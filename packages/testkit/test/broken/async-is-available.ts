import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Answers isAvailable() with a promise (always truthy, so the manager would never notice "false"). */
class AsyncIsAvailable extends GoodProvider {
  override isAvailable(): boolean {
    return Promise.resolve(false) as unknown as boolean;
  }
}

export const asyncIsAvailable: BrokenCase = {
  check: 'availability.synchronous',
  message: /isAvailable\(\) returned a promise/,
  harness: harnessFor(() => new AsyncIsAvailable()),
};
