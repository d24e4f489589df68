import { loadModule } from '../../packages';
import { SEED_FACTS } from '../queries';
import type { RemoteProviderEntry } from '../remote';
import { fakeBackend } from './fake-backend';

/**
 * Hindsight against its fake: every turn queues one async retain on the writer and the next turn's
 * recall, which first waits for that retain's operation to complete (read-after-write). The bank
 * is seeded so every query finds a few facts and every warm turn serves a formatted block.
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
    // Stored as the provider's retain tool stores a fact (the fake makes each a world fact).
    const res = await fetch(`${fake.url}/v1/default/banks/hermes/memories`, {
      method: 'POST',
      headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
      body: JSON.stringify({ items: SEED_FACTS.map((content) => ({ content })), async: false }),
    });
    if (!res.ok) throw new Error(`seeding the Hindsight fake failed: HTTP ${res.status}`);
    return fakeBackend('hindsight', fake, (url, home) =>
      createHindsightProvider(
        { apiKey: 'bench-key', apiURL: url },
        { hermesHome: home, env: { HOME: home } },
      ),
    );
  },
};
