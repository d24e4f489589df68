import fc from 'fast-check';
import { declaredProperties } from './tool-schema';

/**
 * Argument generators for the tool checks. A model can send anything as tool arguments: valid JSON
 * of the wrong shape, broken JSON, nothing at all. A handler must answer each with a JSON string.
 */

/** Any value at all, including things JSON cannot hold (BigInt, Maps, null-prototype objects). */
export function malformedArgs(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      maxDepth: 3,
    }),
    fc.jsonValue({ maxDepth: 3 }),
    fc.json({ maxDepth: 3 }),
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ maxLength: 50 }).map((s) => `{${s}`),
    fc.string({ maxLength: 50 }).map((s) => `{"${s}": `),
    fc.constantFrom<unknown>(undefined, null, '', '[]', 'null', '{}', 0, -1, Number.NaN, true, [], [null]),
  );
}

/** A value of one JSON type. */
function valueOfType(type: string): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return fc.string({ maxLength: 40 });
    case 'number':
      return fc.double({ noNaN: false });
    case 'integer':
      return fc.integer();
    case 'boolean':
      return fc.boolean();
    case 'object':
      return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
    case 'array':
      return fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 });
    default:
      return fc.constant(null);
  }
}

const ALL_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

/** A value whose JSON type is NOT one of `declared` (numbers count as one family). */
function wrongValue(declared: readonly string[]): fc.Arbitrary<unknown> {
  const numeric = declared.includes('number') || declared.includes('integer');
  const wrong = ALL_TYPES.filter(
    (t) => !declared.includes(t) && !(numeric && (t === 'number' || t === 'integer')),
  );
  if (wrong.length === 0) return fc.constant(Symbol.for('hermes-memory.conformance'));
  return fc.oneof(...wrong.map(valueOfType));
}

/**
 * Objects where one declared property has the wrong type, the others are well typed or missing,
 * plus random extra properties the schema never mentioned.
 */
export function wrongTypeArgs(parameters: unknown): fc.Arbitrary<Record<string, unknown>> | null {
  const props = declaredProperties(parameters);
  if (props.length === 0) return null;
  return fc
    .record({
      index: fc.nat({ max: props.length - 1 }),
      wrongs: fc.tuple(...props.map((p) => wrongValue(p.types))),
      rights: fc.tuple(
        ...props.map((p) => fc.option(p.types.length > 0 ? valueOfType(p.types[0]!) : fc.jsonValue())),
      ),
      extra: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    })
    .map(({ index, wrongs, rights, extra }) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(extra)) defineOwn(out, key, value);
      props.forEach((p, i) => {
        if (i === index) defineOwn(out, p.name, wrongs[i]);
        else if (rights[i] !== null) defineOwn(out, p.name, rights[i]);
      });
      return out;
    });
}

/** Set an own property even for keys like `__proto__` (plain assignment would change the prototype). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

const POLLUTION_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
] as const;

/** Hostile inputs: prototype-pollution keys, huge and odd strings, deep nesting, odd numbers. */
export function hostileArgs(parameters: unknown): fc.Arbitrary<unknown> {
  const props = declaredProperties(parameters).map((p) => p.name);
  const names = props.length > 0 ? props : ['query'];
  const hostileValue = fc.oneof(
    fc.constantFrom<unknown>(
      'x'.repeat(1_000_000),
      '\u0000\u0001\u001b[31m',
      '\ud800\udfff\ud800',
      '\u202e\u200b\ufeff',
      '../../../../etc/passwd',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal template-injection probe
      '{{7*7}}${process.exit()}',
      Number.NaN,
      Number.POSITIVE_INFINITY,
      -0,
      1e308,
      -1,
      Number.MAX_SAFE_INTEGER + 2,
      { __proto__: null, polluted: 'yes' },
      JSON.parse('{"__proto__": {"polluted": "yes"}}'),
      { constructor: { prototype: { polluted: 'yes' } } },
    ),
    fc.string({ unit: 'binary', minLength: 1000, maxLength: 5000 }),
  );
  const pollutedObject = fc
    .record({
      key: fc.constantFrom(...POLLUTION_KEYS),
      value: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ polluted: 'yes' })),
      field: fc.constantFrom(...names),
      fieldValue: hostileValue,
    })
    .map(({ key, value, field, fieldValue }) => {
      const out: Record<string, unknown> = {};
      defineOwn(out, key, value);
      defineOwn(out, field, fieldValue);
      return out;
    });
  const pollutedJson = fc
    .record({ key: fc.constantFrom(...POLLUTION_KEYS), field: fc.constantFrom(...names) })
    .map(
      ({ key, field }) => `{"${key}": {"polluted": "yes"}, "${field}": {"__proto__": {"polluted": "yes"}}}`,
    );
  return fc.oneof(
    pollutedObject,
    pollutedJson,
    fc.constantFrom<unknown>(deepNest(3000), deepNestObject(3000)),
  );
}

function deepNest(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function deepNestObject(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { query: value };
  return value;
}

/**
 * Plausible arguments synthesised from a schema (required strings filled in, first enum value),
 * plus one variant per value of each enum property: enough to reach every action of a tool.
 */
export function plausibleArgs(parameters: unknown, text: string): Array<Record<string, unknown>> {
  if (typeof parameters !== 'object' || parameters === null) return [{}];
  const properties = (parameters as Record<string, unknown>).properties;
  if (typeof properties !== 'object' || properties === null) return [{}];
  const base: Record<string, unknown> = {};
  const enums: Array<{ name: string; values: unknown[] }> = [];
  for (const [name, raw] of Object.entries(properties as Record<string, unknown>)) {
    const schema = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) {
      base[name] = schema.enum[0];
      enums.push({ name, values: schema.enum });
      continue;
    }
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    if (type === 'string') base[name] = text;
    else if (type === 'integer' || type === 'number') base[name] = 1;
    else if (type === 'boolean') base[name] = true;
    else if (type === 'array') base[name] = [text];
    else if (type === 'object') base[name] = {};
  }
  const variants = [base];
  for (const { name, values } of enums) {
    for (const value of values.slice(1, 8)) variants.push({ ...base, [name]: value });
  }
  return variants;
}
