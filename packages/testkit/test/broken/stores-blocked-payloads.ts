import { neutralizeMemoryText } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Stores whatever it is given (neutralised, but never scanned): the red team's `fact_store add`. */
class StoresBlockedPayloads extends GoodProvider {
  protected override storable(text: string): string | null {
    return neutralizeMemoryText(text);
  }
}

export const storesBlockedPayloads: BrokenCase = {
  check: 'safety.write-scanner',
  message: /payload the write scanner blocks came back through prefetch\(\)/,
  harness: harnessFor(() => new StoresBlockedPayloads()),
};
