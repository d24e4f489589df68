import type { MemoryProvider } from '@hermes-memory/core';
import { type CheckRuntime, ensure } from '../runtime';
import type { ConformanceFault } from '../types';
import { plausibleArgs } from '../arbitraries';
import { callTool, type CheckDefinition, errorText, preview, schemasOf, token } from './helpers';

const SESSION = { sessionId: 'conformance-session' };
/** "Every request until cleared": faults outlast any retry policy. */
const ALWAYS = 1_000_000;

/** The fault kinds a remote backend must survive, each failing every request. */
const FAILURES: ReadonlyArray<{ label: string; fault: ConformanceFault }> = [
  { label: 'HTTP 500', fault: { type: 'status', status: 500, count: ALWAYS } },
  {
    label: 'HTTP 503 with Retry-After',
    fault: { type: 'status', status: 503, retryAfter: 1, count: ALWAYS },
  },
  { label: 'connection reset', fault: { type: 'reset', count: ALWAYS } },
  { label: 'malformed body', fault: { type: 'malformed', count: ALWAYS } },
];
const HANG: ConformanceFault = { type: 'timeout', count: ALWAYS };

function inject(runtime: CheckRuntime, fault: ConformanceFault): void {
  const harness = runtime.harness;
  ensure(
    typeof harness.injectFault === 'function',
    'the fault checks need harness.injectFault (e.g. `(fault) => fake.fail(fault)`); a remote provider must declare it',
  );
  harness.clearFaults?.();
  harness.injectFault(fault);
}

function clear(runtime: CheckRuntime): void {
  runtime.harness.clearFaults?.();
}

/** Open a provider on a healthy backend (initialize must not depend on the fault). */
async function openHealthy(
  runtime: CheckRuntime,
): Promise<{ provider: MemoryProvider; home: { hermesHome: string } }> {
  clear(runtime);
  const home = runtime.newHome();
  const provider = await runtime.open(home);
  await runtime.settle(provider);
  return { provider, home };
}

/** The `faults` checks: behaviour while the backend fails or hangs (remote providers). */
export const FAULTS: readonly CheckDefinition[] = [
  {
    id: 'faults.tools-answer-json',
    group: 'faults',
    capability: 'remote',
    title:
      'while the backend fails (5xx, Retry-After, resets, malformed bodies) every tool still answers JSON',
    async run(runtime) {
      const { provider } = await openHealthy(runtime);
      const schemas = schemasOf(provider, 'after initialize');
      try {
        for (const { label, fault } of FAILURES) {
          inject(runtime, fault);
          for (const schema of schemas) {
            for (const args of plausibleArgs(schema.parameters, `fault text ${token()}`).slice(0, 2)) {
              const { result, late, error } = await runtime.withinDeadline(
                `handleToolCall('${schema.name}') during ${label}`,
                (signal) => callTool(provider, schema.name, args, signal),
              );
              ensure(!late, late ?? '');
              if (error !== undefined) throw error;
              ensure(
                result !== undefined,
                `handleToolCall('${schema.name}', ${preview(args)}) during ${label} gave nothing`,
              );
            }
          }
        }
      } finally {
        clear(runtime);
        await runtime.shutdown(provider);
      }
    },
  },
  {
    id: 'faults.prefetch-in-budget',
    group: 'faults',
    capability: 'remote',
    title: 'while the backend hangs or fails, prefetch returns a string within the budget of its signal',
    async run(runtime) {
      const { provider } = await openHealthy(runtime);
      try {
        for (const { label, fault } of [...FAILURES, { label: 'a hanging backend', fault: HANG }]) {
          inject(runtime, fault);
          const query = `what do you remember about ${token()}`;
          await provider.onTurnStart(2, query, { platform: 'cli' });
          const { result, late, error } = await runtime.withinDeadline(
            `prefetch() during ${label}`,
            (signal) => provider.prefetch(query, { ...SESSION, signal }),
          );
          ensure(!late, late ?? '');
          ensure(
            error === undefined,
            `prefetch() threw during ${label}: ${errorText(error)}; return "" instead`,
          );
          ensure(
            typeof result === 'string',
            `prefetch() during ${label} must resolve to a string, got ${preview(result)}`,
          );
        }
      } finally {
        clear(runtime);
        await runtime.shutdown(provider);
      }
    },
  },
  {
    id: 'faults.sync-never-rejects',
    group: 'faults',
    capability: 'remote',
    title: 'while the backend fails, syncTurn and queuePrefetch resolve and the background work winds down',
    async run(runtime) {
      const { provider } = await openHealthy(runtime);
      try {
        for (const { label, fault } of FAILURES) {
          inject(runtime, fault);
          const { late, error } = await runtime.withinDeadline(`syncTurn() during ${label}`, (signal) =>
            provider.syncTurn(`A conformance turn about ${token()}.`, 'Noted.', { ...SESSION, signal }),
          );
          ensure(!late, late ?? '');
          ensure(
            error === undefined,
            `syncTurn() rejected during ${label}: ${errorText(error)}; log and keep going`,
          );
          const queued = await runtime.withinDeadline(`queuePrefetch() during ${label}`, (signal) =>
            provider.queuePrefetch(`next ${token()}`, { ...SESSION, signal }),
          );
          ensure(!queued.late, queued.late ?? '');
          ensure(
            queued.error === undefined,
            `queuePrefetch() rejected during ${label}: ${errorText(queued.error)}`,
          );
          await runtime.settle(provider);
        }
      } finally {
        clear(runtime);
        await runtime.shutdown(provider);
      }
    },
  },
  {
    id: 'faults.shutdown-deadline',
    group: 'faults',
    capability: 'remote',
    title: 'while the backend hangs, shutdown with queued writes comes back within its deadline',
    async run(runtime) {
      const { provider } = await openHealthy(runtime);
      inject(runtime, HANG);
      try {
        for (let i = 0; i < 3; i++) {
          await provider.syncTurn(`A conformance turn about ${token()}.`, 'Noted.', SESSION);
        }
        const budget = runtime.options.deadlineMs ?? 1000;
        const { late, error } = await runtime.withinDeadline(
          'shutdown() with the backend hanging',
          (signal) => runtime.shutdown(provider, { signal, timeoutMs: budget }),
        );
        ensure(!late, `${late} — stop waiting for the backend when the signal aborts (timeoutMs: ${budget})`);
        ensure(error === undefined, `shutdown() threw while the backend hung: ${errorText(error)}`);
      } finally {
        clear(runtime);
      }
    },
  },
];
