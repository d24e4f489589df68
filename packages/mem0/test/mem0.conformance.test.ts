import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { Mem0Provider } from '../src';
import { startFakeMem0Platform, startFakeMem0Server } from '../src/testing';
import { PLATFORM_KEY, SERVER_KEY } from './helpers';

process.env.MEM0_TELEMETRY = 'false';

// The Platform through the official SDK, and a self-hosted server over HTTP: each against its fake.
let turn = 0;
for (const kind of ['platform', 'selfhosted'] as const) {
  const backend =
    kind === 'platform'
      ? await startFakeMem0Platform({ apiKey: PLATFORM_KEY })
      : await startFakeMem0Server({ apiKey: SERVER_KEY });
  const settings =
    kind === 'platform'
      ? { apiKey: PLATFORM_KEY, platformURL: backend.url, requestTimeoutMs: 2000 }
      : { apiKey: SERVER_KEY, host: backend.url, requestTimeoutMs: 2000 };
  describeMemoryProvider(`mem0 (${kind})`, {
    create: () => new Mem0Provider(settings),
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
      tools: { mem0_add: { content: 'The user keeps bees on the roof.' } },
    },
    snapshot: () => backend.dump().memories,
    backendCalls: () => backend.requests.length,
    settle: async (provider) => {
      await provider.idle();
    },
    // Recall as a turn does it: the turn's search starts at turn start and prefetch serves it.
    recall: async (provider, query) => {
      await provider.onTurnStart(++turn, query);
      await provider.idle();
      return provider.prefetch(query);
    },
    pendingWork: (provider) => provider.pendingWork,
    injectFault: (fault) => {
      backend.fail(fault);
    },
    clearFaults: () => backend.clearFaults(),
  });
}

// OSS in process (mem0ai/oss), offline: the bundled embedder, no LLM (turns stored verbatim),
// its stores under the harness's HERMES_HOME (the default snapshot hashes them).
describeMemoryProvider('mem0 (oss)', {
  create: () => new Mem0Provider({ mode: 'oss', oss: { vector_store: { provider: 'memory' } } }),
  capabilities: {
    tools: true,
    persistence: true,
    prefetch: 'turn-start',
    sync: 'queued',
    mirrors: 'add-only',
  },
  writesOn: {
    syncTurn: true,
    memoryWrite: true,
    tools: { mem0_add: { content: 'The user keeps bees on the roof.' } },
  },
  settle: async (provider) => {
    await provider.idle();
  },
  recall: async (provider, query) => {
    await provider.onTurnStart(++turn, query);
    await provider.idle();
    return provider.prefetch(query);
  },
  pendingWork: (provider) => provider.pendingWork,
});
