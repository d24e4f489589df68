import { plausibleArgs } from '../arbitraries';
import { ensure } from '../runtime';
import {
  callTool,
  type CheckDefinition,
  errorText,
  expectNoThrow,
  preview,
  PROVIDER_NAME,
  schemasOf,
  token,
} from './helpers';

/** The `lifecycle` checks, in the order the suite runs them. */
export const LIFECYCLE: readonly CheckDefinition[] = [
  {
    id: 'lifecycle.name',
    group: 'lifecycle',
    title: 'name is a stable lowercase id (the package id)',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.create(home);
      const before = provider.name;
      ensure(
        typeof before === 'string' && PROVIDER_NAME.test(before),
        `name must match ${PROVIDER_NAME} (the id used for the folder, npm name and config), got ${preview(before)}`,
      );
      await runtime.initialize(provider, home);
      ensure(provider.name === before, `name changed after initialize: '${before}' → '${provider.name}'`);
      await runtime.shutdown(provider);
    },
  },
  {
    id: 'lifecycle.initialize-shutdown',
    group: 'lifecycle',
    title: 'initialize then shutdown twice is harmless, and a new provider can reopen the same home',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.create(home);
      await expectNoThrow('initialize()', () => runtime.initialize(provider, home));
      await expectNoThrow('shutdown()', () => runtime.shutdown(provider));
      await expectNoThrow('a second shutdown()', () => provider.shutdown());
      const again = await runtime.create(home);
      await expectNoThrow('initialize() of a second provider on the same hermesHome', () =>
        runtime.initialize(again, home),
      );
      await expectNoThrow('shutdown() of the second provider', () => runtime.shutdown(again));
    },
  },
  {
    id: 'lifecycle.hook-results',
    group: 'lifecycle',
    title: 'optional hooks return their documented types (strings, arrays, null)',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.create(home);
      const backup = await expectNoThrow('backupPaths() before initialize', () => provider.backupPaths());
      ensure(
        Array.isArray(backup) && backup.every((p) => typeof p === 'string'),
        'backupPaths() must return string[]',
      );
      await runtime.initialize(provider, home);
      const block = await expectNoThrow('systemPromptBlock()', () => provider.systemPromptBlock());
      ensure(typeof block === 'string', `systemPromptBlock() must return a string, got ${preview(block)}`);
      await expectNoThrow('onTurnStart()', () => provider.onTurnStart(1, 'hello there', { platform: 'cli' }));
      const cold = await expectNoThrow('prefetch() with nothing queued', () =>
        provider.prefetch('what is the weather like on mars', { sessionId: 'conformance-session' }),
      );
      ensure(typeof cold === 'string', `prefetch() must resolve to a string, got ${preview(cold)}`);
      const compress = await expectNoThrow('onPreCompress()', () =>
        provider.onPreCompress([{ role: 'user', content: 'hello' }]),
      );
      ensure(
        typeof compress === 'string',
        `onPreCompress() must resolve to a string, got ${preview(compress)}`,
      );
      const fields = await expectNoThrow('getConfigSchema()', () => provider.getConfigSchema());
      ensure(Array.isArray(fields), 'getConfigSchema() must return an array');
      for (const field of fields) {
        ensure(
          typeof field.key === 'string' && field.key !== '' && typeof field.description === 'string',
          `getConfigSchema() field ${preview(field)} needs a non-empty key and a description`,
        );
      }
      const status = await expectNoThrow('recallStatus()', () => provider.recallStatus());
      ensure(
        status === null ||
          (typeof status === 'object' &&
            typeof status.providerLabel === 'string' &&
            typeof status.count === 'number'),
        `recallStatus() must return null or {providerLabel, count}, got ${preview(status)}`,
      );
      const reason = await expectNoThrow('unavailableReason()', () => provider.unavailableReason());
      ensure(typeof reason === 'string', 'unavailableReason() must return a string');
      await runtime.shutdown(provider);
    },
  },
  {
    id: 'lifecycle.hooks-after-shutdown',
    group: 'lifecycle',
    title: 'every hook called after shutdown resolves without throwing; tools still answer JSON',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const schemas = schemasOf(provider, 'after initialize');
      await runtime.shutdown(provider);
      const s = { sessionId: 'conformance-session' };
      await expectNoThrow('systemPromptBlock() after shutdown', () => provider.systemPromptBlock());
      await expectNoThrow('onTurnStart() after shutdown', () => provider.onTurnStart(2, 'late'));
      await expectNoThrow('queuePrefetch() after shutdown', () => provider.queuePrefetch('late query', s));
      await expectNoThrow('prefetch() after shutdown', () => provider.prefetch('late query', s));
      await expectNoThrow('syncTurn() after shutdown', () =>
        provider.syncTurn('late user', 'late assistant', s),
      );
      await expectNoThrow('onMemoryWrite() after shutdown', () =>
        provider.onMemoryWrite('add', 'memory', 'late'),
      );
      await expectNoThrow('onSessionEnd() after shutdown', () =>
        provider.onSessionEnd([{ role: 'user', content: 'late' }]),
      );
      await expectNoThrow('onSessionSwitch() after shutdown', () =>
        provider.onSessionSwitch('conformance-late', { reset: true }),
      );
      await expectNoThrow('onPreCompress() after shutdown', () => provider.onPreCompress([]));
      await expectNoThrow('onDelegation() after shutdown', () => provider.onDelegation('task', 'result'));
      for (const schema of schemas) {
        for (const args of plausibleArgs(schema.parameters, 'late text').slice(0, 3)) {
          await callTool(provider, schema.name, args);
        }
      }
      await callTool(provider, 'conformance_no_such_tool', {});
      await expectNoThrow('shutdown() after shutdown', () => provider.shutdown());
    },
  },
  {
    id: 'lifecycle.shutdown-deadline',
    group: 'lifecycle',
    title: 'shutdown({signal, timeoutMs}) with queued writes comes back within its deadline',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      for (let i = 0; i < 3; i++) {
        await expectNoThrow('syncTurn()', () =>
          provider.syncTurn(`Conformance turn ${i} about ${token()}.`, 'Noted.', {
            sessionId: 'conformance-session',
          }),
        );
      }
      const budget = runtime.options.deadlineMs ?? 1000;
      const { late, error } = await runtime.withinDeadline('shutdown()', (signal) =>
        runtime.shutdown(provider, { signal, timeoutMs: budget }),
      );
      ensure(!late, `${late} — finish within options.timeoutMs and stop waiting when options.signal aborts`);
      ensure(error === undefined, `shutdown() threw: ${errorText(error)}`);
    },
  },
];
