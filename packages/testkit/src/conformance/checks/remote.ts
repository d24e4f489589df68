import { ensure } from '../runtime';
import { type CheckDefinition, expectNoThrow, token } from './helpers';

/** The `remote` checks: a remote provider's harness exposes the backend, and writes reach it. */
export const REMOTE: readonly CheckDefinition[] = [
  {
    id: 'remote.backend-observable',
    group: 'remote',
    capability: 'remote',
    title:
      'the harness exposes backend calls, pending work and fault injection, and a synced turn reaches the backend',
    async run(runtime) {
      const { harness } = runtime;
      const missing = (['backendCalls', 'pendingWork', 'injectFault'] as const).filter(
        (hook) => typeof harness[hook] !== 'function',
      );
      ensure(
        missing.length === 0,
        `a remote provider's harness must define ${missing.join(', ')} (e.g. backendCalls: () => fake.requests.length, injectFault: (f) => fake.fail(f)), so the suite can see backend work and inject faults`,
      );
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      await runtime.settle(provider);
      const before = harness.backendCalls!();
      await expectNoThrow('syncTurn()', () =>
        provider.syncTurn(`The conformance marker ${token()} belongs to the blue lighthouse.`, 'Noted.', {
          sessionId: 'conformance-session',
        }),
      );
      await runtime.settle(provider);
      await runtime.shutdown(provider);
      const after = harness.backendCalls!();
      const writes = runtime.writesOn.syncTurn === true;
      ensure(
        !writes || after > before,
        `a synced turn (settled and shut down) made no backend call (backendCalls stayed at ${before}); backendCalls must count the requests the provider makes`,
      );
    },
  },
];
