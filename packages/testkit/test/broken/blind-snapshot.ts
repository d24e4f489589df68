import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/**
 * A harness mistake rather than a provider bug: it claims onSessionEnd writes, but nothing does,
 * so "non-primary wrote nothing" would prove nothing for that hook.
 */
export const blindSnapshot: BrokenCase = {
  check: 'context.writes-observable',
  message: /writesOn says onSessionEnd writes in the primary context, but the snapshot did not change/,
  harness: harnessFor(() => new GoodProvider(), { writesOn: { syncTurn: true, sessionEnd: true } }),
};
