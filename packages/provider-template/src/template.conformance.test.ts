import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { createTemplateProvider } from './index';
import { FAKE_TEMPLATE_KEY, startFakeTemplate } from './testing';

// The whole conformance kit against the package's own fake backend, every check claimed —
// `remote: true` adds the fault checks (5xx with Retry-After, resets, malformed bodies, a hanging
// service) and the shutdown deadline while the service hangs. A fork keeps this file running as
// it changes the client to its backend's API.
const backend = await startFakeTemplate();
afterAll(() => backend.close());

describeMemoryProvider('template', {
  create: () =>
    createTemplateProvider({
      baseURL: backend.url,
      apiKey: FAKE_TEMPLATE_KEY,
      timeoutMs: 2000,
      maxRetries: 1,
    }),
  capabilities: {
    tools: true,
    persistence: true,
    prefetch: 'queued',
    sync: 'queued',
    mirrors: 'all',
    remote: true,
  },
  writesOn: {
    syncTurn: true,
    memoryWrite: true,
    tools: { template_remember: { content: 'The user keeps bees on the roof.' } },
  },
  snapshot: () => backend.dump(),
  backendCalls: () => backend.requests.length,
  settle: (provider) => provider.idle(),
  pendingWork: (provider) => provider.pendingWork,
  injectFault: (fault) => {
    backend.fail(fault);
  },
  clearFaults: () => backend.clearFaults(),
});
