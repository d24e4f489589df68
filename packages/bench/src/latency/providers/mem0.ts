import { loadModule } from '../../packages';
import type { RemoteProviderEntry } from '../remote';
import { fakeBackend } from './fake-backend';

export const mem0: RemoteProviderEntry = {
  name: 'mem0',
  async start() {
    process.env.MEM0_TELEMETRY ??= 'false';
    const { createMem0Provider } = await loadModule(
      '@hermes-memory/mem0',
      () => import('@hermes-memory/mem0'),
    );
    const { startFakeMem0Platform } = await loadModule(
      '@hermes-memory/mem0/testing',
      () => import('@hermes-memory/mem0/testing'),
    );
    const fake = await startFakeMem0Platform({ apiKey: 'bench-key' });
    return fakeBackend('mem0', fake, (url) => createMem0Provider({ apiKey: 'bench-key', platformURL: url }));
  },
};
