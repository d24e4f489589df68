import { BUILTIN_TOOL_NAMES, isReservedToolName } from '@hermes-memory/core';

/**
 * Validation of OpenAI function schemas as a provider returns them from `getToolSchemas()`.
 * Pure functions returning problem lists, so the checks can report every problem at once.
 */

/** OpenAI's limit for function names. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * True when a provider named `providerName` may not register `toolName`: the agent's own tool names
 * and families, as the manager refuses them (core's `isReservedToolName`). Only the provider named
 * `builtin` owns `memory` and `session_search`.
 */
export function isReservedForProvider(toolName: string, providerName: string): boolean {
  if (providerName === 'builtin' && BUILTIN_TOOL_NAMES.has(toolName)) return false;
  return isReservedToolName(toolName);
}

const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Problems with one property schema (recursive for objects and arrays). */
function propertyProblems(schema: unknown, where: string, depth: number): string[] {
  if (depth > 32) return [`${where}: nested more than 32 levels`];
  if (!isPlainObject(schema)) return [`${where}: must be a schema object, got ${describeValue(schema)}`];
  const problems: string[] = [];
  const type = schema.type;
  const types = type === undefined ? [] : Array.isArray(type) ? type : [type];
  for (const t of types) {
    if (typeof t !== 'string' || !JSON_TYPES.has(t))
      problems.push(`${where}.type: unknown JSON type ${JSON.stringify(t)}`);
  }
  const hasComposite = ['anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'].some((k) => k in schema);
  if (type === undefined && !hasComposite)
    problems.push(`${where}: has no "type" (nor enum/anyOf/oneOf/allOf/const/$ref)`);
  if ('enum' in schema && (!Array.isArray(schema.enum) || schema.enum.length === 0)) {
    problems.push(`${where}.enum: must be a non-empty array`);
  }
  if ('description' in schema && typeof schema.description !== 'string') {
    problems.push(`${where}.description: must be a string`);
  }
  if (types.includes('array') && 'items' in schema) {
    problems.push(...propertyProblems(schema.items, `${where}.items`, depth + 1));
  }
  if (types.includes('object') && 'properties' in schema) {
    problems.push(...objectProblems(schema, where, depth + 1));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (key in schema) {
      const list = schema[key];
      if (!Array.isArray(list) || list.length === 0)
        problems.push(`${where}.${key}: must be a non-empty array`);
      else
        list.forEach((sub, i) => {
          problems.push(...propertyProblems(sub, `${where}.${key}[${i}]`, depth + 1));
        });
    }
  }
  return problems;
}

function objectProblems(schema: Record<string, unknown>, where: string, depth: number): string[] {
  const problems: string[] = [];
  const properties = schema.properties;
  if (properties !== undefined && !isPlainObject(properties)) {
    problems.push(`${where}.properties: must be an object`);
    return problems;
  }
  const props = properties ?? {};
  for (const [key, value] of Object.entries(props)) {
    problems.push(...propertyProblems(value, `${where}.properties.${key}`, depth));
  }
  const required = schema.required;
  if (required !== undefined) {
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) {
      problems.push(`${where}.required: must be an array of strings`);
    } else {
      const seen = new Set<string>();
      for (const name of required as string[]) {
        if (seen.has(name)) problems.push(`${where}.required: lists "${name}" twice`);
        seen.add(name);
        if (!Object.hasOwn(props, name)) problems.push(`${where}.required: "${name}" is not in properties`);
      }
    }
  }
  return problems;
}

/** Every problem with one tool schema; empty when it is a valid OpenAI function schema. */
export function toolSchemaProblems(schema: unknown): string[] {
  if (!isPlainObject(schema)) return [`schema must be an object, got ${describeValue(schema)}`];
  const name = typeof schema.name === 'string' ? schema.name : '(unnamed)';
  const where = `tool '${name}'`;
  const problems: string[] = [];
  if (typeof schema.name !== 'string') problems.push(`${where}: "name" must be a string`);
  if (typeof schema.description !== 'string' || schema.description.trim() === '') {
    problems.push(`${where}: "description" must be a non-empty string`);
  }
  const parameters = schema.parameters;
  if (!isPlainObject(parameters)) {
    problems.push(`${where}: "parameters" must be a JSON Schema object, got ${describeValue(parameters)}`);
    return problems;
  }
  if (parameters.type !== 'object') {
    problems.push(`${where}: parameters.type must be "object", got ${JSON.stringify(parameters.type)}`);
  }
  if (!isPlainObject(parameters.properties))
    problems.push(`${where}: parameters.properties must be an object`);
  problems.push(...objectProblems(parameters, `${where} parameters`, 0));
  try {
    const copy: unknown = JSON.parse(JSON.stringify(schema));
    if (JSON.stringify(copy) !== JSON.stringify(schema))
      problems.push(`${where}: does not survive a JSON round trip`);
  } catch (error) {
    problems.push(`${where}: is not JSON-serialisable (${(error as Error).message})`);
  }
  return problems;
}

/** Declared top-level properties of a tool: name → JSON types (empty when untyped). */
export function declaredProperties(
  parameters: unknown,
): Array<{ name: string; types: string[]; required: boolean }> {
  if (!isPlainObject(parameters) || !isPlainObject(parameters.properties)) return [];
  const required = Array.isArray(parameters.required) ? (parameters.required as unknown[]) : [];
  return Object.entries(parameters.properties).map(([name, schema]) => {
    const type = isPlainObject(schema) ? schema.type : undefined;
    const types = (Array.isArray(type) ? type : type === undefined ? [] : [type]).filter(
      (t): t is string => typeof t === 'string',
    );
    return { name, types, required: required.includes(name) };
  });
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length > 60 ? `a ${value.length}-char string` : JSON.stringify(value);
  return typeof value;
}
