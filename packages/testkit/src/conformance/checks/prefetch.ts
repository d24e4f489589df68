import type { MemoryProvider } from '@hermes-memory/core';
import { formatTouches, primeIoTrap, startIoTrap } from '../io-trap';
import { type CheckRuntime, ensure } from '../runtime';
import { type CheckDefinition, expectNoThrow, preview, token } from './helpers';

const SESSION = { sessionId: 'conformance-session' };

/** Seed a marker and return the query that should find it. */
async function seeded(runtime: CheckRuntime, provider: MemoryProvider, home: { hermesHome: string }) {
  const marker = token();
  await runtime.seed(provider, [`The conformance marker ${marker} belongs to the blue lighthouse.`], home);
  return { marker, query: `${marker} blue lighthouse` };
}

/** `prefetch(query)` with no I/O and no backend call: it must serve what was prepared. */
async function servedFromCache(
  runtime: CheckRuntime,
  provider: MemoryProvider,
  query: string,
  prepared: string,
) {
  const callsBefore = runtime.harness.backendCalls?.();
  await primeIoTrap();
  const trap = startIoTrap('observe');
  let result: unknown;
  try {
    result = await expectNoThrow('prefetch()', () => provider.prefetch(query, SESSION));
  } finally {
    trap.restore();
  }
  const callsAfter = runtime.harness.backendCalls?.();
  ensure(typeof result === 'string', `prefetch() must resolve to a string, got ${preview(result)}`);
  ensure(
    trap.touches.length === 0,
    `prefetch() did backend work although ${prepared} had prepared the result: ${formatTouches(trap.touches)}; serve it from the cache ${prepared} filled`,
  );
  ensure(
    callsBefore === callsAfter,
    `prefetch() made ${Number(callsAfter) - Number(callsBefore)} backend call(s) although ${prepared} had prepared the result`,
  );
  return result;
}

/** The `prefetch` checks, in the order the suite runs them. */
export const PREFETCH: readonly CheckDefinition[] = [
  {
    id: 'prefetch.serves-queued',
    group: 'prefetch',
    capability: 'prefetch',
    capabilityValues: ['queued'],
    title: 'prefetch after queuePrefetch serves the prepared result without new backend work',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const { marker, query } = await seeded(runtime, provider, home);
      await expectNoThrow('queuePrefetch()', () => provider.queuePrefetch(query, SESSION));
      await runtime.settle(provider);
      const result = await servedFromCache(runtime, provider, query, 'queuePrefetch()');
      await runtime.shutdown(provider);
      ensure(
        result.toLowerCase().includes(marker),
        `prefetch('${query}') after queuePrefetch did not return the seeded text containing '${marker}'; got ${preview(result)}`,
      );
    },
  },
  {
    id: 'prefetch.turn-start',
    group: 'prefetch',
    capability: 'prefetch',
    capabilityValues: ['turn-start'],
    title: "onTurnStart starts recall for the turn's message; prefetch serves it without new backend work",
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const { marker, query } = await seeded(runtime, provider, home);
      await expectNoThrow('onTurnStart()', () => provider.onTurnStart(1, query, { platform: 'cli' }));
      await runtime.settle(provider);
      const result = await servedFromCache(runtime, provider, query, 'onTurnStart()');
      await runtime.shutdown(provider);
      ensure(
        result.toLowerCase().includes(marker),
        `prefetch('${query}') after onTurnStart did not return the seeded text containing '${marker}'; got ${preview(result)}`,
      );
    },
  },
  {
    id: 'prefetch.current-query',
    group: 'prefetch',
    capability: 'prefetch',
    capabilityValues: ['current-query'],
    title: 'prefetch answers the current query within the budget of its signal',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const { marker, query } = await seeded(runtime, provider, home);
      const { result, late } = await runtime.withinDeadline('prefetch()', (signal) =>
        provider.prefetch(query, { ...SESSION, signal }),
      );
      await runtime.shutdown(provider);
      ensure(!late, late ?? '');
      ensure(typeof result === 'string', `prefetch() must resolve to a string, got ${preview(result)}`);
      ensure(
        result.toLowerCase().includes(marker),
        `prefetch('${query}') did not return the seeded text containing '${marker}'; got ${preview(result)}`,
      );
    },
  },
];
