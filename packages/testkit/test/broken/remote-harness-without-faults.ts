import { GoodRemoteProvider, notesBackend, remoteHarnessFor } from '../fixtures/good-remote-provider';
import type { BrokenCase } from './types';

/** Claims remote, but the harness gives the suite no way to inject backend faults. */
export const remoteHarnessWithoutFaults: BrokenCase = {
  check: 'remote.backend-observable',
  message: /a remote provider's harness must define injectFault/,
  harness: async () =>
    remoteHarnessFor(await notesBackend(), (url) => new GoodRemoteProvider(url), { injectFault: undefined }),
};
