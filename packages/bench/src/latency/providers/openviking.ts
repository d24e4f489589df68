import { loadModule } from '../../packages';
import type { RemoteProviderEntry } from '../remote';
import { fakeBackend } from './fake-backend';

/** OpenViking against its fake server: turns to sessions, background recall (turn 1 bounded). */
export const openviking: RemoteProviderEntry = {
  name: 'openviking',
  async start() {
    const { createOpenvikingProvider } = await loadModule(
      '@hermes-memory/openviking',
      () => import('@hermes-memory/openviking'),
    );
    const { startFakeOpenviking } = await loadModule(
      '@hermes-memory/openviking/testing',
      () => import('@hermes-memory/openviking/testing'),
    );
    const fake = await startFakeOpenviking({ apiKey: 'bench-key' });
    return fakeBackend('openviking', fake, (url) =>
      createOpenvikingProvider({ endpoint: url, apiKey: 'bench-key', autoStart: false }),
    );
  },
};
