import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { afterAll } from 'vitest';
import { createByteroverProvider } from './index';
import { startFakeBrv } from './testing';

// The whole conformance kit against the fake brv, with honest claims: recall starts at turn start
// (`prefetch: 'turn-start'`), curates run on a background lane (`sync: 'queued'`), the mirror
// curates additions only (a replacement is curated as new text; brv's curation decides what
// becomes of the old one, so "the old text is gone" is not promised), and `remote: true` runs the
// fault checks with the child answering `success: false`, crashing mid-stream, printing garbage
// and hanging.
const brv = await startFakeBrv();
afterAll(() => brv.close());

let turn = 0;

describeMemoryProvider(
  'byterover',
  {
    create: ({ hermesHome }) =>
      createByteroverProvider(
        { brvPath: brv.path, queryTimeout: 3, curateTimeout: 5 },
        { hermesHome, env: { PATH: process.env.PATH, HOME: hermesHome } },
      ),
    capabilities: {
      tools: true,
      persistence: true,
      prefetch: 'turn-start',
      sync: 'queued',
      mirrors: 'add-only',
      remote: true,
    },
    writesOn: {
      syncTurn: true,
      memoryWrite: true,
      tools: { brv_curate: { content: 'The user keeps bees on the roof of the blue lighthouse.' } },
    },
    // Recall the way the manager drives it: the turn starts (brv query begins), then prefetch.
    recall: async (provider, query) => {
      await provider.onTurnStart(++turn, query);
      await provider.idle();
      return provider.prefetch(query);
    },
    backendCalls: () => brv.calls(),
    settle: (provider) => provider.idle(),
    pendingWork: (provider) => provider.pendingWork,
    injectFault: (fault) => brv.fail(fault),
    clearFaults: () => brv.clearFaults(),
  },
  // Every tool call is a child process (~50-100 ms each): 30 property runs per tool keep the
  // suite near a minute on a loaded 2-core machine.
  { numRuns: 30 },
);
