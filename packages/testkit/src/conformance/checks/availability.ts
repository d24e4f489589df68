import { formatTouches, primeIoTrap, startIoTrap } from '../io-trap';
import { ensure, fail } from '../runtime';
import { type CheckDefinition, errorText, preview } from './helpers';

/** The `availability` checks, in the order the suite runs them. */
export const AVAILABILITY: readonly CheckDefinition[] = [
  {
    id: 'availability.synchronous',
    group: 'availability',
    title: 'isAvailable() returns a boolean synchronously, and true under the harness configuration',
    async run(runtime) {
      const provider = await runtime.create(runtime.newHome());
      let value: unknown;
      try {
        value = provider.isAvailable();
      } catch (error) {
        fail(`isAvailable() threw: ${errorText(error)}`);
      }
      ensure(
        !(
          typeof value === 'object' &&
          value !== null &&
          typeof (value as { then?: unknown }).then === 'function'
        ),
        'isAvailable() returned a promise; it must answer synchronously from settings already in memory',
      );
      ensure(typeof value === 'boolean', `isAvailable() must return a boolean, got ${preview(value)}`);
      ensure(
        value,
        `isAvailable() returned false under the harness configuration (unavailableReason: "${provider.unavailableReason()}"); configure the harness so the provider is available`,
      );
    },
  },
  {
    id: 'availability.no-io',
    group: 'availability',
    title: 'isAvailable() does no I/O (no file system, sockets, child processes or fetch)',
    async run(runtime) {
      const provider = await runtime.create(runtime.newHome());
      await primeIoTrap();
      const trap = startIoTrap('forbid');
      let thrown: unknown;
      try {
        provider.isAvailable();
      } catch (error) {
        thrown = error;
      } finally {
        trap.restore();
      }
      ensure(
        trap.touches.length === 0,
        `isAvailable() did I/O: ${formatTouches(trap.touches)}. It must decide from settings already in memory; move checks that need I/O to initialize()`,
      );
      ensure(thrown === undefined, `isAvailable() threw: ${errorText(thrown)}`);
    },
  },
];
