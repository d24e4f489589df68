import { formatTouches, primeIoTrap, startIoTrap } from '../io-trap';
import { ensure, loopTurns } from '../runtime';
import { type CheckDefinition, errorText } from './helpers';

const TURN = 'The conformance turn about the red bicycle.';

/** The `sync` checks, in the order the suite runs them. */
export const SYNC: readonly CheckDefinition[] = [
  {
    id: 'sync.non-blocking',
    group: 'sync',
    capability: 'sync',
    capabilityValues: ['queued'],
    title: 'syncTurn returns before its backend work completes (the work is queued, not awaited)',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      await runtime.settle(provider);
      await primeIoTrap();
      const trap = startIoTrap('gate');
      let settled = false;
      let rejection: unknown;
      // Read while the gate still holds the I/O: after release, an awaited write completes and the
      // call resolves — reading `settled` then would pass a syncTurn that awaits its backend.
      let resolvedWhileHeld = false;
      let syncTouches: string;
      let pending: number | undefined;
      try {
        let returned: unknown;
        try {
          returned = provider.syncTurn(TURN, 'Noted.', { sessionId: 'conformance-session' });
        } catch (error) {
          rejection = error;
        }
        syncTouches = formatTouches(trap.touches.filter((t) => t.sync));
        pending = runtime.harness.pendingWork?.(provider);
        Promise.resolve(returned).then(
          () => {
            settled = true;
          },
          (error: unknown) => {
            settled = true;
            rejection = error;
          },
        );
        await loopTurns(50, () => settled);
        resolvedWhileHeld = settled;
      } finally {
        trap.restore();
      }
      const held = trap.touches.filter((t) => !t.sync);
      await runtime.settle(provider);
      await runtime.shutdown(provider);
      ensure(rejection === undefined, `syncTurn() threw or rejected: ${errorText(rejection)}`);
      // A durable provider commits the turn locally before it returns (that is its promise).
      ensure(
        syncTouches === '' || runtime.capabilities.durability,
        `syncTurn() did blocking file I/O before returning (${syncTouches}); queue the write and do it in the background`,
      );
      ensure(
        resolvedWhileHeld,
        `syncTurn() did not resolve while its backend I/O was held (${formatTouches(held)}): it awaits the backend instead of queueing the work`,
      );
      ensure(
        pending === undefined || pending > 0,
        'pendingWork() was 0 right after syncTurn() returned: the write was not queued as background work',
      );
    },
  },
  {
    id: 'sync.buffered',
    group: 'sync',
    capability: 'sync',
    capabilityValues: ['buffered'],
    title: 'syncTurn buffers the turn without any I/O and resolves at once',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      await runtime.settle(provider);
      await primeIoTrap();
      const trap = startIoTrap('gate');
      let settled = false;
      let rejection: unknown;
      let resolvedWhileHeld = false;
      try {
        Promise.resolve(provider.syncTurn(TURN, 'Noted.', { sessionId: 'conformance-session' })).then(
          () => {
            settled = true;
          },
          (error: unknown) => {
            settled = true;
            rejection = error;
          },
        );
        await loopTurns(50, () => settled);
        resolvedWhileHeld = settled;
      } catch (error) {
        rejection = error;
      } finally {
        trap.restore();
      }
      const touches = [...trap.touches];
      await runtime.shutdown(provider);
      ensure(rejection === undefined, `syncTurn() threw or rejected: ${errorText(rejection)}`);
      ensure(
        touches.length === 0,
        `syncTurn() did I/O (${formatTouches(touches)}) although the provider claims sync: buffered; buffer the turn and write it at flush, session end or shutdown`,
      );
      ensure(
        resolvedWhileHeld,
        'syncTurn() did not resolve at once although the provider claims sync: buffered',
      );
    },
  },
];
