import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { createOpenvikingProvider } from './index';
import { startFakeOpenviking } from './testing';

// The whole conformance kit against the package's fake server. Honest capabilities: recall is
// prepared in the background (`queued`), turns are posted by background writers (`queued`), only
// builtin adds are mirrored (the reference's `add-only`), and `remote` runs the fault checks.
// Persistence goes through the server's own path: turns become memories when their session is
// committed, so the harness seeds by syncing and ending the session.
const backend = await startFakeOpenviking();
afterAll(() => backend.close());

describeMemoryProvider('openviking', {
  create: () => createOpenvikingProvider({ endpoint: backend.url, timeoutMs: 2000, autoStart: false }),
  capabilities: {
    tools: true,
    persistence: true,
    prefetch: 'queued',
    sync: 'queued',
    mirrors: 'add-only',
    remote: true,
  },
  writesOn: {
    syncTurn: true,
    memoryWrite: true,
    tools: { viking_remember: { content: 'The user keeps bees on the roof.' } },
  },
  seed: async (provider, texts) => {
    await provider.idle();
    for (const text of texts) provider.syncTurn(text, 'Noted.');
    await provider.idle();
    await provider.onSessionEnd([]);
  },
  snapshot: () => {
    const state = backend.dump();
    // Server-side ids and counters change with every request; the tree and sessions are the state.
    return { nodes: Object.keys(state.nodes).sort(), sessions: state.sessions };
  },
  backendCalls: () => backend.requests.length,
  settle: async (provider) => {
    await provider.idle();
  },
  pendingWork: (provider) => provider.pendingWork,
  injectFault: (fault) => {
    backend.fail(fault);
  },
  clearFaults: () => backend.clearFaults(),
});
