import { randomBytes } from 'node:crypto';
import type { AgentContext, MemoryProvider, ToolSchema } from '@hermes-memory/core';
import fc from 'fast-check';
import { plausibleArgs } from '../arbitraries';
import { type CheckRuntime, ensure, fail } from '../runtime';
import type { ConformanceCheck } from '../types';

export type Run = (runtime: CheckRuntime) => Promise<void>;

export interface CheckDefinition extends ConformanceCheck {
  run: Run;
}

export const NON_PRIMARY: readonly AgentContext[] = ['subagent', 'cron', 'flush'];
export const PROVIDER_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

export function token(): string {
  return `zq${randomBytes(5).toString('hex')}`;
}

export function preview(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? JSON.stringify(value) : fc.stringify(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 160 ? `${text.slice(0, 160)}… (${text.length} chars)` : text;
}

export function errorText(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/** Call a hook and turn a throw or rejection into a conformance failure naming the hook. */
export async function expectNoThrow<T>(label: string, call: () => T | Promise<T>): Promise<T> {
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
export async function callTool(
  provider: MemoryProvider,
  name: string,
  args: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  let out: unknown;
  try {
    out = await provider.handleToolCall(name, args, {
      sessionId: 'conformance-session',
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    fail(
      `handleToolCall('${name}', ${preview(args)}) threw instead of returning a JSON error: ${errorText(error)}`,
    );
  }
  // The message is built only on failure: preview() stringifies hostile arguments (1 MB strings,
  // 3,000-deep nests), which cost seconds per check when built for every passing call.
  if (typeof out !== 'string')
    fail(`handleToolCall('${name}', ${preview(args)}) returned ${typeof out}, not a JSON string`);
  try {
    return JSON.parse(out);
  } catch {
    return fail(
      `handleToolCall('${name}', ${preview(args)}) returned a string that is not JSON: ${preview(out)}`,
    );
  }
}

export function schemasOf(provider: MemoryProvider, when: string): ToolSchema[] {
  let schemas: unknown;
  try {
    schemas = provider.getToolSchemas();
  } catch (error) {
    fail(`getToolSchemas() threw ${when}: ${errorText(error)}`);
  }
  ensure(Array.isArray(schemas), `getToolSchemas() must return an array ${when}, got ${typeof schemas}`);
  return schemas as ToolSchema[];
}

export function prototypeKeys(): string[] {
  return Object.getOwnPropertyNames(Object.prototype).sort();
}

/** Run a fast-check property and rethrow its report as one readable conformance failure. */
export async function property<T>(
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
export function writeOperations(runtime: CheckRuntime, schemas: readonly ToolSchema[], includeAll: boolean) {
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

export async function schemasAfterInit(runtime: CheckRuntime): Promise<ToolSchema[]> {
  const home = runtime.newHome();
  const provider = await runtime.open(home);
  const schemas = schemasOf(provider, 'after initialize');
  await runtime.shutdown(provider);
  return schemas;
}

/** Re-serialise through JSON when possible (drops BigInt-free, cycle-free values to their JSON form). */
export function safeJson(value: unknown): unknown {
  try {
    return JSON.stringify(value);
  } catch {
    return value;
  }
}
