import { randomBytes } from 'node:crypto';
import type { AgentContext, MemoryProvider, ToolSchema } from '@hermes-memory/core';
import fc from 'fast-check';
import { defineOwn, hostileArgs, malformedArgs, plausibleArgs, wrongTypeArgs } from './arbitraries';
import { formatTouches, primeIoTrap, startIoTrap } from './io-trap';
import {
  type CheckRuntime,
  describeSnapshotChange,
  ensure,
  fail,
  isDeepStrictEqual,
  loopTurns,
} from './runtime';
import { TOOL_NAME_PATTERN, isReservedForProvider, toolSchemaProblems } from './tool-schema';
import type { ConformanceCheck } from './types';

type Run = (runtime: CheckRuntime) => Promise<void>;

export interface CheckDefinition extends ConformanceCheck {
  run: Run;
}

const NON_PRIMARY: readonly AgentContext[] = ['subagent', 'cron', 'flush'];
const PROVIDER_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

function token(): string {
  return `zq${randomBytes(5).toString('hex')}`;
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : fc.stringify(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text;
}

function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Call a hook and turn a throw or rejection into a conformance failure naming the hook. */
async function expectNoThrow<T>(label: string, call: () => T | Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    return fail(`${label} threw: ${errorText(error)}`);
  }
}

/**
 * Call a tool and require the contract: no throw, no rejection, a string that parses as JSON.
 * Returns the parsed value.
 */
async function callTool(provider: MemoryProvider, name: string, args: unknown): Promise<unknown> {
  let out: unknown;
  try {
    out = await provider.handleToolCall(name, args, { sessionId: 'conformance-session' });
  } catch (error) {
    fail(
      `handleToolCall('${name}', ${preview(args)}) threw instead of returning a JSON error: ${errorText(error)}`,
    );
  }
  ensure(
    typeof out === 'string',
    `handleToolCall('${name}', ${preview(args)}) returned ${typeof out}, not a JSON string`,
  );
  try {
    return JSON.parse(out);
  } catch {
    return fail(
      `handleToolCall('${name}', ${preview(args)}) returned a string that is not JSON: ${preview(out)}`,
    );
  }
}

function schemasOf(provider: MemoryProvider, when: string): ToolSchema[] {
  let schemas: unknown;
  try {
    schemas = provider.getToolSchemas();
  } catch (error) {
    fail(`getToolSchemas() threw ${when}: ${errorText(error)}`);
  }
  ensure(Array.isArray(schemas), `getToolSchemas() must return an array ${when}, got ${typeof schemas}`);
  return schemas as ToolSchema[];
}

function prototypeKeys(): string[] {
  return Object.getOwnPropertyNames(Object.prototype).sort();
}

/** Run a fast-check property and rethrow its report as one readable conformance failure. */
async function property<T>(
  runtime: CheckRuntime,
  label: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
): Promise<void> {
  const parameters: fc.Parameters<[T]> = { numRuns: runtime.options.numRuns ?? 60, endOnFailure: true };
  if (runtime.options.seed !== undefined) parameters.seed = runtime.options.seed;
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), parameters);
  if (!details.failed) return;
  const cause = details.errorInstance;
  const reason = cause instanceof Error ? cause.message : String(cause);
  fail(
    `${label}: ${reason}\n  counterexample: ${preview(details.counterexample?.[0])}\n  (fast-check seed ${details.seed}, path "${details.counterexamplePath}"; pass options.seed to reproduce)`,
  );
}

/** The operations that may write, each on a fresh provider, with the args to use for tools. */
function writeOperations(runtime: CheckRuntime, schemas: readonly ToolSchema[], includeAll: boolean) {
  const ops: Array<{ label: string; run: (provider: MemoryProvider) => Promise<unknown> }> = [];
  const writes = runtime.writesOn;
  const text = `The conformance marker ${token()} belongs to the blue lighthouse.`;
  if (includeAll || writes.syncTurn) {
    ops.push({
      label: 'syncTurn',
      run: (p) => Promise.resolve(p.syncTurn(text, 'Noted.', { sessionId: 'conformance-session' })),
    });
  }
  if (includeAll || writes.memoryWrite) {
    ops.push({
      label: "onMemoryWrite('add')",
      run: (p) => Promise.resolve(p.onMemoryWrite('add', 'memory', text, { writeOrigin: 'conformance' })),
    });
  }
  if (includeAll || writes.sessionEnd) {
    ops.push({
      label: 'onSessionEnd',
      run: (p) =>
        Promise.resolve(
          p.onSessionEnd([
            { role: 'user', content: text },
            { role: 'assistant', content: 'Noted.' },
          ]),
        ),
    });
  }
  for (const schema of schemas) {
    const declared = writes.tools?.[schema.name];
    if (declared) ops.push({ label: `tool ${schema.name}`, run: (p) => callTool(p, schema.name, declared) });
    else if (includeAll) {
      for (const args of plausibleArgs(schema.parameters, text)) {
        ops.push({
          label: `tool ${schema.name} ${preview(args)}`,
          run: (p) => callTool(p, schema.name, args),
        });
      }
    }
  }
  if (includeAll) {
    ops.push({
      label: 'onPreCompress + onDelegation + onSessionSwitch',
      run: async (p) => {
        await p.onPreCompress([{ role: 'user', content: text }]);
        await p.onDelegation('conformance task', text, { childSessionId: 'conformance-child' });
        await p.onSessionSwitch('conformance-session-2', {
          parentSessionId: 'conformance-session',
          reset: true,
        });
      },
    });
  }
  return ops;
}

async function schemasAfterInit(runtime: CheckRuntime): Promise<ToolSchema[]> {
  const home = runtime.newHome();
  const provider = await runtime.open(home);
  const schemas = schemasOf(provider, 'after initialize');
  await runtime.shutdown(provider);
  return schemas;
}

/** The checks, in the order the suite runs them. Ids are stable: skips and reports refer to them. */
export const CHECKS: readonly CheckDefinition[] = [
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
    id: 'tools.declared',
    group: 'tools',
    title:
      'getToolSchemas() agrees with the claimed `tools` capability (non-empty when claimed, empty when not)',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.create(home);
      schemasOf(provider, 'before initialize (the manager may read schemas at registration)');
      await runtime.initialize(provider, home);
      const schemas = schemasOf(provider, 'after initialize');
      if (runtime.capabilities.tools) {
        ensure(
          schemas.length > 0,
          'the harness claims the `tools` capability but getToolSchemas() is empty; set capabilities.tools = false for a context-only provider',
        );
      } else {
        ensure(
          schemas.length === 0,
          `getToolSchemas() returns ${schemas.length} tool(s) but the harness says capabilities.tools = false`,
        );
      }
      await runtime.shutdown(provider);
    },
  },
  {
    id: 'tools.schema-valid',
    group: 'tools',
    capability: 'tools',
    title:
      'every tool schema is a valid OpenAI function schema (object parameters, required ⊆ properties, description)',
    async run(runtime) {
      const schemas = await schemasAfterInit(runtime);
      const problems = schemas.flatMap((schema) => toolSchemaProblems(schema));
      ensure(problems.length === 0, `invalid tool schema(s):\n  - ${problems.join('\n  - ')}`);
    },
  },
  {
    id: 'tools.unique-names',
    group: 'tools',
    capability: 'tools',
    title: 'tool names are unique',
    async run(runtime) {
      const names = (await schemasAfterInit(runtime)).map((s) => s.name);
      const duplicates = names.filter((n, i) => names.indexOf(n) !== i);
      ensure(duplicates.length === 0, `duplicate tool name(s): ${[...new Set(duplicates)].join(', ')}`);
    },
  },
  {
    id: 'tools.name-format',
    group: 'tools',
    capability: 'tools',
    title: `tool names match ${TOOL_NAME_PATTERN}`,
    async run(runtime) {
      const bad = (await schemasAfterInit(runtime))
        .map((s) => s.name)
        .filter((n) => !TOOL_NAME_PATTERN.test(String(n)));
      ensure(
        bad.length === 0,
        `tool name(s) not matching ${TOOL_NAME_PATTERN}: ${bad.map((n) => preview(n)).join(', ')}`,
      );
    },
  },
  {
    id: 'tools.reserved-names',
    group: 'tools',
    capability: 'tools',
    title: "no tool uses a reserved core tool name (only 'builtin' owns memory and session_search)",
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const reserved = schemasOf(provider, 'after initialize')
        .map((s) => s.name)
        .filter((n) => isReservedForProvider(n, provider.name));
      await runtime.shutdown(provider);
      ensure(
        reserved.length === 0,
        `tool name(s) reserved for the agent's core tools: ${reserved.join(', ')}; the manager refuses them, so prefix them with the provider id`,
      );
    },
  },
  {
    id: 'tools.unknown-tool',
    group: 'tools',
    capability: 'tools',
    title: 'handleToolCall for an unknown tool returns a JSON error instead of throwing',
    async run(runtime) {
      const provider = await runtime.open(runtime.newHome());
      for (const name of ['conformance_no_such_tool', '', 'constructor', '__proto__']) {
        const parsed = await callTool(provider, name, {});
        ensure(
          typeof parsed === 'object' && parsed !== null && 'error' in parsed,
          `handleToolCall('${name}') for an unknown tool must return a JSON object with an "error" field, got ${preview(parsed)}`,
        );
      }
      await runtime.shutdown(provider);
    },
  },
  {
    id: 'tools.malformed-args',
    group: 'tools',
    capability: 'tools',
    title: 'handleToolCall answers arbitrary (malformed, non-object, non-JSON) arguments with a JSON string',
    async run(runtime) {
      const provider = await runtime.open(runtime.newHome());
      for (const schema of schemasOf(provider, 'after initialize')) {
        await property(
          runtime,
          `tool '${schema.name}' with malformed arguments`,
          malformedArgs(),
          async (args) => {
            await callTool(provider, schema.name, args);
          },
        );
      }
      await runtime.shutdown(provider);
    },
  },
  {
    id: 'tools.hostile-args',
    group: 'tools',
    capability: 'tools',
    title:
      'hostile arguments (prototype-pollution keys, huge strings, deep nesting) get a JSON answer and pollute nothing',
    async run(runtime) {
      const provider = await runtime.open(runtime.newHome());
      const before = prototypeKeys();
      for (const schema of schemasOf(provider, 'after initialize')) {
        await property(
          runtime,
          `tool '${schema.name}' with hostile arguments`,
          hostileArgs(schema.parameters),
          async (args) => {
            await callTool(provider, schema.name, args);
            const probe: Record<string, unknown> = {};
            ensure(probe.polluted === undefined, 'Object.prototype was polluted (a "polluted" key appeared)');
            ensure(isDeepStrictEqual(prototypeKeys(), before), 'Object.prototype gained properties');
          },
        );
      }
      await runtime.shutdown(provider);
    },
  },
  {
    id: 'tools.wrong-types',
    group: 'tools',
    capability: 'tools',
    title: 'a wrong type for any declared property, plus unknown extra properties, gets a JSON answer',
    async run(runtime) {
      const provider = await runtime.open(runtime.newHome());
      for (const schema of schemasOf(provider, 'after initialize')) {
        const arbitrary = wrongTypeArgs(schema.parameters);
        if (!arbitrary) continue;
        await property(
          runtime,
          `tool '${schema.name}' with wrongly typed arguments`,
          arbitrary,
          async (args) => {
            await callTool(provider, schema.name, args);
            const asJson: Record<string, unknown> = {};
            for (const [key, value] of Object.entries(args)) defineOwn(asJson, key, value);
            await callTool(provider, schema.name, safeJson(asJson));
          },
        );
      }
      await runtime.shutdown(provider);
    },
  },
  {
    id: 'context.writes-observable',
    group: 'context',
    title: 'in the primary context, each operation listed in `writesOn` visibly changes the snapshot',
    async run(runtime) {
      const schemas = await schemasAfterInit(runtime);
      const ops = writeOperations(runtime, schemas, false);
      ensure(
        ops.length > 0,
        'the harness declares no `writesOn` operations, so the non-primary check cannot prove it observes writes; declare writesOn (or skip this check with a reason)',
      );
      for (const op of ops) {
        const home = runtime.newHome('primary');
        const provider = await runtime.open(home, 'primary');
        await runtime.settle(provider);
        const before = await runtime.snapshot(home, provider);
        await expectNoThrow(`${op.label} (primary)`, () => op.run(provider));
        await runtime.settle(provider);
        await runtime.shutdown(provider);
        const after = await runtime.snapshot(home, provider);
        ensure(
          !isDeepStrictEqual(before, after),
          `writesOn says ${op.label} writes in the primary context, but the snapshot did not change after it (even after settle and shutdown); fix writesOn or the harness snapshot`,
        );
      }
    },
  },
  {
    id: 'context.non-primary-readonly',
    group: 'context',
    title:
      'subagent, cron and flush contexts write nothing (syncTurn, onMemoryWrite, onSessionEnd, tools, ...)',
    async run(runtime) {
      const schemas = await schemasAfterInit(runtime);
      for (const agentContext of NON_PRIMARY) {
        for (const op of writeOperations(runtime, schemas, true)) {
          const home = runtime.newHome(agentContext);
          // Seed the home in the primary context first, so "remove" and "replace" paths have something to touch.
          if (runtime.writesOn.syncTurn || runtime.writesOn.memoryWrite) {
            const seeder = await runtime.open(home, 'primary');
            await runtime.seed(seeder, ['The conformance seed entry about the green harbour.'], home);
            await runtime.shutdown(seeder);
          }
          const provider = await runtime.open(home, agentContext);
          await runtime.settle(provider);
          const before = await runtime.snapshot(home, provider);
          try {
            await op.run(provider);
          } catch (error) {
            // Refusing is fine (tools must still answer JSON, which callTool already checked).
            if ((error as Error).name === 'ConformanceFailure') throw error;
          }
          await runtime.settle(provider);
          const middle = await runtime.snapshot(home, provider);
          await runtime.shutdown(provider);
          const after = await runtime.snapshot(home, provider);
          const changed = !isDeepStrictEqual(before, middle) ? middle : after;
          ensure(
            isDeepStrictEqual(before, changed),
            `in the '${agentContext}' context, ${op.label} changed persistent state (${describeSnapshotChange(before, changed)}); non-primary contexts must never write (use canWrite(context.agentContext))`,
          );
        }
      }
    },
  },
  {
    id: 'prefetch.serves-queued',
    group: 'prefetch',
    capability: 'prefetch',
    title: 'prefetch after queuePrefetch serves the prepared result without new backend work',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const marker = token();
      await runtime.seed(
        provider,
        [`The conformance marker ${marker} belongs to the blue lighthouse.`],
        home,
      );
      const query = `${marker} blue lighthouse`;
      await expectNoThrow('queuePrefetch()', () =>
        provider.queuePrefetch(query, { sessionId: 'conformance-session' }),
      );
      await runtime.settle(provider);
      const callsBefore = runtime.harness.backendCalls?.();
      await primeIoTrap();
      const trap = startIoTrap('observe');
      let result: unknown;
      try {
        result = await expectNoThrow('prefetch()', () =>
          provider.prefetch(query, { sessionId: 'conformance-session' }),
        );
      } finally {
        trap.restore();
      }
      const callsAfter = runtime.harness.backendCalls?.();
      await runtime.shutdown(provider);
      ensure(typeof result === 'string', `prefetch() must resolve to a string, got ${preview(result)}`);
      ensure(
        trap.touches.length === 0,
        `prefetch() did backend work although queuePrefetch() had prepared the result: ${formatTouches(trap.touches)}; serve it from the cache queuePrefetch filled`,
      );
      ensure(
        callsBefore === callsAfter,
        `prefetch() made ${Number(callsAfter) - Number(callsBefore)} backend call(s) although queuePrefetch() had prepared the result`,
      );
      ensure(
        result.toLowerCase().includes(marker),
        `prefetch('${query}') after queuePrefetch did not return the seeded text containing '${marker}'; got ${preview(result)}`,
      );
    },
  },
  {
    id: 'sync.non-blocking',
    group: 'sync',
    capability: 'backgroundSync',
    title: 'syncTurn returns before its backend work completes (the work is queued, not awaited)',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      await runtime.settle(provider);
      await primeIoTrap();
      const trap = startIoTrap('gate');
      let settled = false;
      let rejection: unknown;
      let syncTouches: string;
      let pending: number | undefined;
      try {
        let returned: unknown;
        try {
          returned = provider.syncTurn('The conformance turn about the red bicycle.', 'Noted.', {
            sessionId: 'conformance-session',
          });
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
      } finally {
        trap.restore();
      }
      const held = trap.touches.filter((t) => !t.sync);
      await runtime.settle(provider);
      await runtime.shutdown(provider);
      ensure(rejection === undefined, `syncTurn() threw or rejected: ${errorText(rejection)}`);
      ensure(
        syncTouches === '',
        `syncTurn() did blocking file I/O before returning (${syncTouches}); queue the write and do it in the background`,
      );
      ensure(
        settled,
        `syncTurn() did not resolve while its backend I/O was held (${formatTouches(held)}): it awaits the backend instead of queueing the work`,
      );
      ensure(
        pending === undefined || pending > 0,
        'pendingWork() was 0 right after syncTurn() returned: the write was not queued as background work',
      );
    },
  },
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
  {
    id: 'mirror.add-replace-remove',
    group: 'mirror',
    capability: 'mirrors',
    title: 'onMemoryWrite add, replace and remove keep the mirrored entries consistent',
    async run(runtime) {
      const home = runtime.newHome();
      const provider = await runtime.open(home);
      const first = token();
      const second = token();
      const original = `User prefers the ${first} editor for the blue lighthouse project.`;
      const replacement = `User switched to the ${second} editor for the blue lighthouse project.`;
      const find = async (marker: string) =>
        (await runtime.recall(provider, `${marker} editor blue lighthouse`, home))
          .toLowerCase()
          .includes(marker);

      await expectNoThrow("onMemoryWrite('add')", () =>
        provider.onMemoryWrite('add', 'user', original, { writeOrigin: 'conformance' }),
      );
      await runtime.settle(provider);
      ensure(await find(first), `after onMemoryWrite('add'), the added entry ('${first}') is not found`);

      await expectNoThrow("onMemoryWrite('replace')", () =>
        provider.onMemoryWrite('replace', 'user', replacement, {
          writeOrigin: 'conformance',
          oldText: `the ${first} editor`,
          previousContent: original,
        }),
      );
      await runtime.settle(provider);
      ensure(await find(second), `after onMemoryWrite('replace'), the new text ('${second}') is not found`);
      ensure(
        !(await find(first)),
        `after onMemoryWrite('replace'), the replaced text ('${first}') is still found`,
      );

      await expectNoThrow("onMemoryWrite('remove')", () =>
        provider.onMemoryWrite('remove', 'user', replacement, {
          writeOrigin: 'conformance',
          oldText: `the ${second} editor`,
          previousContent: replacement,
        }),
      );
      await runtime.settle(provider);
      ensure(
        !(await find(second)),
        `after onMemoryWrite('remove'), the removed entry ('${second}') is still found`,
      );
      await runtime.shutdown(provider);
    },
  },
];

/** Re-serialise through JSON when possible (drops BigInt-free, cycle-free values to their JSON form). */
function safeJson(value: unknown): unknown {
  try {
    return JSON.stringify(value);
  } catch {
    return value;
  }
}
