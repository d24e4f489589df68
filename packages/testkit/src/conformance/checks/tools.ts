import { defineOwn, hostileArgs, malformedArgs, wrongTypeArgs } from '../arbitraries';
import { ensure, isDeepStrictEqual } from '../runtime';
import { isReservedForProvider, TOOL_NAME_PATTERN, toolSchemaProblems } from '../tool-schema';
import {
  callTool,
  type CheckDefinition,
  preview,
  property,
  prototypeKeys,
  safeJson,
  schemasAfterInit,
  schemasOf,
} from './helpers';

/** The `tools` checks, in the order the suite runs them. */
export const TOOLS: readonly CheckDefinition[] = [
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
];
