import { ensure } from '../runtime';
import { type CheckDefinition, expectNoThrow, token } from './helpers';

/** The `persistence` checks, in the order the suite runs them. */
export const PERSISTENCE: readonly CheckDefinition[] = [
  {
    id: 'persistence.shutdown-flushes',
    group: 'persistence',
    capability: 'persistence',
    title: 'shutdown() flushes queued writes: turns synced just before shutdown are found by a new provider',
    async run(runtime) {
      const home = runtime.newHome();
      const first = await runtime.open(home);
      const markers = [token(), token(), token(), token(), token()];
      for (const [i, marker] of markers.entries()) {
        await expectNoThrow('syncTurn()', () =>
          first.syncTurn(
            `Conformance turn ${i}: the marker ${marker} is kept in the blue lighthouse.`,
            'Noted.',
            {
              sessionId: 'conformance-session',
            },
          ),
        );
      }
      await expectNoThrow('shutdown() right after syncTurn()', () => runtime.shutdown(first));
      const second = await runtime.open(home);
      await runtime.settle(second);
      const lost: string[] = [];
      for (const marker of markers) {
        const found = await runtime.recall(second, `${marker} blue lighthouse`, home);
        if (!found.toLowerCase().includes(marker)) lost.push(marker);
      }
      await runtime.shutdown(second);
      ensure(
        lost.length === 0,
        `${lost.length} of ${markers.length} turns synced right before shutdown() were lost (${lost.join(', ')}); shutdown must drain the write queue`,
      );
    },
  },
];
