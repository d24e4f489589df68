import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Claims prefetch: turn-start, but prepares recall only in queuePrefetch. */
export const ignoresTurnStart: BrokenCase = {
  check: 'prefetch.turn-start',
  message: /prefetch\('.*'\) after onTurnStart did not return the seeded text/,
  harness: harnessFor(() => new GoodProvider(), { capabilities: { prefetch: 'turn-start' } }),
};
