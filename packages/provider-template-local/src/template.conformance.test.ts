import { describeMemoryProvider } from '@hermes-memory/testkit/vitest';
import { TemplateProvider } from './template-provider';

// The whole conformance kit, every check claimed: this is what CI runs on every change, and what a
// fork keeps running as it replaces the store with its own backend.
describeMemoryProvider('template', {
  create: () => new TemplateProvider(),
  capabilities: { tools: true, persistence: true, prefetch: 'queued', sync: 'queued', mirrors: 'all' },
  writesOn: {
    syncTurn: true,
    memoryWrite: true,
    tools: { template_remember: { content: 'The user keeps bees on the roof.' } },
  },
  settle: (provider) => provider.idle(),
  pendingWork: (provider) => provider.pendingWork,
});
