import { loadModule } from '../../packages';
import type { RemoteProviderEntry } from '../remote';
import { fakeBackend } from './fake-backend';

/**
 * Hindsight against its fake: every turn queues one async retain on the writer and the next turn's
 * recall, which first waits for that retain's operation to complete (read-after-write).
 */
export const hindsight: RemoteProviderEntry = {
  name: 'hindsight',
  async start() {
    const { createHindsightProvider } = await loadModule(
      '@hermes-memory/hindsight',
      () => import('@hermes-memory/hindsight'),
    );
    const { startFakeHindsight } = await loadModule(
      '@hermes-memory/hindsight/testing',
      () => import('@hermes-memory/hindsight/testing'),
    );
    const fake = await startFakeHindsight({ apiKey: 'bench-key' });
    return fakeBackend('hindsight', fake, (url, home) =>
      createHindsightProvider(
        { apiKey: 'bench-key', apiURL: url },
        { hermesHome: home, env: { HOME: home } },
      ),
    );
  },
};
