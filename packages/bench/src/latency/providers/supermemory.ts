import { loadModule } from '../../packages';
import { SEED_FACTS } from '../queries';
import type { RemoteProviderEntry } from '../remote';
import { fakeBackend } from './fake-backend';

/** Supermemory in both prefetch modes (decision 0931): turn-start recall, or the reference's per-query call. */
function supermemoryEntry(name: string, prefetchMode: 'background' | 'per-query'): RemoteProviderEntry {
  return {
    name,
    async start() {
      const { createSupermemoryProvider } = await loadModule(
        '@hermes-memory/supermemory',
        () => import('@hermes-memory/supermemory'),
      );
      const { startFakeSupermemory } = await loadModule(
        '@hermes-memory/supermemory/testing',
        () => import('@hermes-memory/supermemory/testing'),
      );
      const fake = await startFakeSupermemory({ apiKey: 'bench-key' });
      // Stored as the provider's tool stores a memory (the fake makes each a profile fact).
      for (const content of SEED_FACTS) {
        const res = await fetch(`${fake.url}/v3/documents`, {
          method: 'POST',
          headers: { authorization: 'Bearer bench-key', 'content-type': 'application/json' },
          body: JSON.stringify({ content, containerTags: ['hermes'] }),
        });
        if (!res.ok) throw new Error(`seeding the Supermemory fake failed: HTTP ${res.status}`);
      }
      return fakeBackend('supermemory', fake, (url, home) =>
        createSupermemoryProvider(
          { apiKey: 'bench-key', baseURL: url, prefetchMode },
          { hermesHome: home, env: {} },
        ),
      );
    },
  };
}

export const supermemory = supermemoryEntry('supermemory', 'background');

/**
 * The reference's per-query prefetch, kept for decision 0931's comparison; run only when named
 * (with a hung service every turn waits its full 3 s).
 */
export const supermemoryPerQuery = supermemoryEntry('supermemory-per-query', 'per-query');
