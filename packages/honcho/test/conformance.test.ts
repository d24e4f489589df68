import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { HonchoProvider } from '../src/index';
import { startFakeHoncho } from '../src/testing/index';
import { API_KEY } from './harness';

// The whole kit against the shipped fake, through the official SDK over real HTTP. Honcho keeps
// its state on the server, so the fake's state is the snapshot and each check starts clean.
const fake = await startFakeHoncho({ apiKey: API_KEY });
afterAll(() => fake.close());

describeMemoryProvider('honcho', {
  create: ({ hermesHome }) =>
    new HonchoProvider(
      {
        cwd: '/srv/projects/conformance',
        userHome: hermesHome,
        config: { apiKey: API_KEY, baseUrl: fake.url, peerName: 'alice', timeout: 2 },
      },
      { hermesHome, env: {} },
    ),
  capabilities: {
    tools: true,
    persistence: true,
    prefetch: 'queued',
    sync: 'queued',
    mirrors: 'add-only',
    remote: true,
    durability: false,
  },
  writesOn: {
    syncTurn: true,
    // Only USER.md adds become conclusions (§2.7.29); the kit's write goes to MEMORY.md.
    memoryWrite: false,
    tools: { honcho_conclude: { conclusion: 'The user keeps bees on the roof.' } },
  },
  snapshot: () => fake.dump(),
  settle: async (provider) => {
    await provider.idle();
  },
  pendingWork: (provider) => provider.pendingWork,
  backendCalls: () => fake.requests.length,
  injectFault: (fault) => fake.fail(fault),
  clearFaults: () => fake.clearFaults(),
  cleanup: () => fake.reset(),
});
