import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { type PrefetchMode, SupermemoryProvider } from '../src';
import { FAKE_SUPERMEMORY_KEY, startFakeSupermemory } from '../src/testing';

// The whole conformance kit against the fake, through the official SDK, in both prefetch modes
// (decision 0931). `remote: true` adds the fault checks (5xx with Retry-After, resets, malformed
// bodies, a hung service) and the shutdown deadline while the service hangs.
for (const mode of ['background', 'per-query'] as PrefetchMode[]) {
  const backend = await startFakeSupermemory();
  afterAll(() => backend.close());
  let turn = 0;
  describeMemoryProvider(`supermemory (prefetch ${mode})`, {
    create: ({ hermesHome }) =>
      new SupermemoryProvider(
        // No retry backoff (instant fault checks); Retry-After is still honoured.
        {
          apiKey: FAKE_SUPERMEMORY_KEY,
          baseURL: backend.url,
          apiTimeout: 2,
          prefetchMode: mode,
          retryBaseDelayMs: 0,
        },
        { hermesHome, env: {} },
      ),
    capabilities: {
      tools: true,
      persistence: true,
      prefetch: mode === 'background' ? 'turn-start' : 'current-query',
      // Turns are buffered and ingested as one conversation at session end, switch or shutdown;
      // each is journaled on disk in the background meanwhile (decision 0115), so syncTurn queues work.
      sync: 'queued',
      mirrors: 'add-only',
      remote: true,
    },
    writesOn: {
      syncTurn: true,
      memoryWrite: true,
      sessionEnd: true,
      tools: { supermemory_store: { content: 'The user keeps bees on the roof.' } },
    },
    seed: async (provider, texts) => {
      for (const text of texts) provider.syncTurn(text, 'Noted.');
      await provider.onSessionEnd([]);
    },
    recall: async (provider, query) => {
      if (mode === 'background') {
        provider.onTurnStart(++turn, query);
        await provider.idle();
      }
      return provider.prefetch(query);
    },
    snapshot: () => backend.dump(),
    backendCalls: () => backend.requests.length,
    settle: (provider) => provider.idle(),
    pendingWork: (provider) => provider.pendingWork + provider.journalPending,
    injectFault: (fault) => {
      backend.fail(fault);
    },
    clearFaults: () => backend.clearFaults(),
  });
}
