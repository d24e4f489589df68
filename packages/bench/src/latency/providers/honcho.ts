import { loadModule } from '../../packages';
import type { RemoteProviderEntry } from '../remote';
import { fakeBackend } from './fake-backend';

export const honcho: RemoteProviderEntry = {
  name: 'honcho',
  async start() {
    const { createHonchoProvider } = await loadModule(
      '@hermes-memory/honcho',
      () => import('@hermes-memory/honcho'),
    );
    const { startFakeHoncho } = await loadModule(
      '@hermes-memory/honcho/testing',
      () => import('@hermes-memory/honcho/testing'),
    );
    const fake = await startFakeHoncho({ apiKey: 'bench-key' });
    return fakeBackend('honcho', fake, (url, home) =>
      createHonchoProvider(
        {
          userHome: home,
          config: { apiKey: 'bench-key', baseUrl: url, peerName: 'bench-user', timeout: 5 },
        },
        { hermesHome: home, env: {} },
      ),
    );
  },
};
