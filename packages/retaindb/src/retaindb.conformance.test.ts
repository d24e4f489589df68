import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { createRetaindbProvider } from './index';
import { FAKE_RETAINDB_KEY, startFakeRetaindb } from './testing';

// The whole conformance kit against the package's own fake API. Claimed honestly: the ten tools,
// persistence (the queue file and the service), queued prefetch, queued sync, add-only mirroring
// (the reference mirrors "add" and ignores replace/remove), remote (the fault checks) and
// durability (kill -9 of a child that acknowledged turns).
const backend = await startFakeRetaindb();
afterAll(() => backend.close());

describeMemoryProvider('retaindb', {
  create: () =>
    createRetaindbProvider({
      baseURL: backend.url,
      apiKey: FAKE_RETAINDB_KEY,
      timeoutMs: 2000,
      backoffMs: 50,
      maxBackoffMs: 200,
    }),
  capabilities: {
    tools: true,
    persistence: true,
    prefetch: 'queued',
    sync: 'queued',
    mirrors: 'add-only',
    remote: true,
    durability: true,
  },
  writesOn: {
    syncTurn: true,
    memoryWrite: true,
    tools: { retaindb_remember: { content: 'The user keeps bees on the roof.' } },
  },
  snapshot: () => {
    const state = backend.dump();
    return { memories: state.memories.map((m) => m.content), files: state.files.map((f) => f.id) };
  },
  backendCalls: () => backend.requests.length,
  settle: (provider) => provider.idle(10_000),
  pendingWork: (provider) => provider.pendingWork,
  injectFault: (fault) => {
    backend.fail(fault);
  },
  clearFaults: () => backend.clearFaults(),
  durabilityWorker: {
    script: new URL('./test-support/durability-worker.ts', import.meta.url).pathname,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, FAKE_URL: backend.url },
  },
});
