import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { HindsightProvider } from '../src';
import { FAKE_HINDSIGHT_KEY, startFakeHindsight } from '../src/testing';

// The whole conformance kit against the fake, through the official SDK. `remote: true` adds the
// fault checks (5xx with Retry-After, resets, malformed bodies, a hung service) and the shutdown
// deadline while the service hangs; the safety checks run on the tools and the synced turns.
const backend = await startFakeHindsight();
afterAll(() => backend.close());

describeMemoryProvider('hindsight', {
  create: ({ hermesHome }) =>
    new HindsightProvider(
      {
        apiKey: FAKE_HINDSIGHT_KEY,
        apiURL: backend.url,
        timeout: 2,
        // Every fact type, so a seeded turn is found by its own words.
        recallTypes: ['world', 'experience', 'observation'],
      },
      { hermesHome, env: { HOME: hermesHome } },
    ),
  initContext: ({ hermesHome }) => ({ env: { HOME: hermesHome } }),
  capabilities: {
    tools: true,
    persistence: true,
    // queuePrefetch prepares the next turn's recall; prefetch serves it without a request.
    prefetch: 'queued',
    // Every turn (retain_every_n_turns 1) queues a retain on the single writer.
    sync: 'queued',
    mirrors: false,
    remote: true,
  },
  writesOn: {
    syncTurn: true,
    tools: { hindsight_retain: { content: 'The user keeps bees on the roof.' } },
  },
  snapshot: () => {
    const { memories, documents, banks } = backend.dump();
    return { memories, documents, banks };
  },
  backendCalls: () => backend.requests.length,
  settle: (provider) => provider.idle(),
  pendingWork: (provider) => provider.pendingWork,
  injectFault: (fault) => {
    backend.fail(fault);
  },
  clearFaults: () => backend.clearFaults(),
});
