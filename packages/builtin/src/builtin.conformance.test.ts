import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { type BuiltinProvider, createBuiltinProvider } from './index';

// The builtin provider through the shared conformance kit. It has no prefetch (recall lives in the
// system prompt and in session_search) and is the mirror source, not a mirror target.
describeMemoryProvider<BuiltinProvider>('builtin', {
  create: () => createBuiltinProvider(),
  capabilities: { tools: true, persistence: true, prefetch: false, sync: 'queued', mirrors: false },
  writesOn: {
    syncTurn: true,
    tools: { memory: { action: 'add', target: 'memory', content: 'conformance fact' } },
  },
  settle: async (provider) => {
    await provider.flush();
  },
  pendingWork: (provider) => provider.pendingWork,
  recall: (provider, query) => {
    const hits = provider.sessionStore?.searchMessages(query) ?? [];
    return [
      ...hits.map((h) => h.snippet.replace(/>>>|<<</g, '')),
      ...(provider.memoryStore?.entries('memory') ?? []),
    ];
  },
});
