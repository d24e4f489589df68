import { loadModule } from '../../packages';
import { tempHome } from '../../providers';
import type { RemoteProviderEntry } from '../remote';

/**
 * ByteRover against its fake `brv` (a child process per call, like the real CLI): turn-start
 * recall (`brv query` started at onTurnStart), curation on its lane. Faults are the fake's CLI
 * terms: 503 → `"success": false` with exit 0, a hang → the child never answers.
 */
export const byterover: RemoteProviderEntry = {
  name: 'byterover',
  async start() {
    const { createByteroverProvider } = await loadModule(
      '@hermes-memory/byterover',
      () => import('@hermes-memory/byterover'),
    );
    const { startFakeBrv } = await loadModule(
      '@hermes-memory/byterover/testing',
      () => import('@hermes-memory/byterover/testing'),
    );
    const brv = await startFakeBrv();
    const home = tempHome('hm-bench-byterover-');
    return {
      create: () =>
        createByteroverProvider(
          { brvPath: brv.path },
          { hermesHome: home.home, env: { PATH: process.env.PATH, HOME: home.home } },
        ),
      failAll: (fault) => {
        if (fault.type === 'status') brv.fail({ type: 'status', status: fault.status });
        else if (fault.type === 'timeout' || fault.type === 'reset') brv.fail({ type: fault.type });
        else brv.fail({ type: 'malformed' });
      },
      clearFaults: () => brv.clearFaults(),
      close: async () => {
        await brv.close();
        home.cleanup();
      },
    };
  },
};
