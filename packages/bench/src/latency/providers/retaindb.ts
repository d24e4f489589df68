import { loadModule } from '../../packages';
import type { RemoteProviderEntry } from '../remote';
import { fakeBackend } from './fake-backend';

/** RetainDB: every turn committed to its durable SQLite queue (fsync) in `syncTurn`, then sent. */
export const retaindb: RemoteProviderEntry = {
  name: 'retaindb',
  async start() {
    const { createRetaindbProvider } = await loadModule(
      '@hermes-memory/retaindb',
      () => import('@hermes-memory/retaindb'),
    );
    const { startFakeRetaindb } = await loadModule(
      '@hermes-memory/retaindb/testing',
      () => import('@hermes-memory/retaindb/testing'),
    );
    const fake = await startFakeRetaindb({ apiKey: 'bench-key' });
    // The queue lives in the manager's HERMES_HOME (a fresh one per manager).
    return fakeBackend('retaindb', fake, (url) =>
      createRetaindbProvider({ apiKey: 'bench-key', baseURL: url, project: 'bench' }, { env: {} }),
    );
  },
};
