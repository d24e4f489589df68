/**
 * The `filters` of Honcho's list and search bodies, evaluated as its server's `apply_filter` builds
 * them into SQL: `AND` / `OR` / `NOT` lists; per column a value (equality), `"*"` (no condition) or
 * an operator object (`gte` `lte` `gt` `lt` `ne` `in` `contains` `icontains`); `metadata` matched
 * key by key, a plain value by JSONB containment (`@>`, so nested objects match by their subset)
 * and an operator object on the key's text (`->>`), numbers compared as numbers. A condition that
 * is only wildcards is no condition at all (dropped from an `OR`, as SQLAlchemy drops it), and a
 * malformed filter is Honcho's 422 `FilterError`.
 */
import { reply } from '@hermes-memory/testkit/http';
import { FakeAnswer } from './context';

const OPERATORS = new Set(['gte', 'lte', 'gt', 'lt', 'ne', 'in', 'contains', 'icontains']);
const NUMERIC = new Set(['gte', 'lte', 'gt', 'lt', 'ne']);
const LOGICAL = new Set(['AND', 'OR', 'NOT']);

/** The columns Honcho lets a message filter name (no `id`: messages are not filtered by id). */
export const MESSAGE_COLUMNS: ReadonlySet<string> = new Set([
  'workspace_id',
  'session_id',
  'peer_id',
  'token_count',
  'created_at',
  'metadata',
]);

type Json = Record<string, unknown>;
/** A compiled condition; `undefined` where the filter sets none (wildcards, `{}`). */
type Test = ((record: Json) => boolean) | undefined;

export function filterError(detail: string): never {
  throw new FakeAnswer(reply.json({ detail }, 422));
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Compile `filters` into a test of an API response object, refusing a malformed filter before any
 * record is read (as Honcho does, so an empty list still answers 422). With `columns`, a filter
 * naming any other column is refused; without, any field of the record may be named.
 */
export function compileFilters(filters: unknown, columns?: ReadonlySet<string>): (record: object) => boolean {
  const test = isObject(filters) ? compile(filters, columns) : undefined;
  return (record) => test?.(record as Json) ?? true;
}

/** `compileFilters(filters, columns)(record)`, for a single record. */
export function matchesFilters(record: object, filters: unknown, columns?: ReadonlySet<string>): boolean {
  return compileFilters(filters, columns)(record);
}

function all(tests: Test[]): Test {
  const set = tests.filter((t) => t !== undefined);
  if (set.length === 0) return undefined;
  return (record) => set.every((t) => t(record));
}

function subFilters(filters: Json, key: string): Json[] {
  const list = filters[key];
  if (list === null && key === 'NOT') filterError('NOT operator cannot be None');
  if (!Array.isArray(list)) filterError(`${key} operator must contain a list, got ${typeName(list)}`);
  return list.map((sub) => (isObject(sub) ? sub : filterError(`${key} operator must contain objects`)));
}

function compile(filters: Json, columns: ReadonlySet<string> | undefined): Test {
  const tests: Test[] = [];
  if ('AND' in filters) tests.push(all(subFilters(filters, 'AND').map((f) => compile(f, columns))));
  if ('OR' in filters) {
    const set = subFilters(filters, 'OR')
      .map((f) => compile(f, columns))
      .filter((t) => t !== undefined);
    tests.push(set.length === 0 ? undefined : (record) => set.some((t) => t(record)));
  }
  if ('NOT' in filters) {
    const set = subFilters(filters, 'NOT').map((f) => compile(f, columns));
    tests.push(all(set.map((t) => (t === undefined ? undefined : (record: Json) => !t(record)))));
  }
  for (const [key, value] of Object.entries(filters)) {
    if (LOGICAL.has(key)) continue;
    if (columns && !columns.has(key))
      filterError(`Column '${key}' is not allowed to be filtered on or does not exist on Message`);
    tests.push(field(key, value));
  }
  return all(tests);
}

const hasOperator = (value: Json) => Object.keys(value).some((k) => OPERATORS.has(k));
const metadataOf = (record: Json): Json => (isObject(record.metadata) ? record.metadata : {});

function field(key: string, value: unknown): Test {
  if (value === '*') return undefined;
  if (key === 'metadata') {
    if (isObject(value) && !hasOperator(value)) return nestedMetadata(value);
    if (!isObject(value)) return (record) => jsonContains(metadataOf(record), value);
  }
  if (!isObject(value) || !hasOperator(value)) return (record) => deepEqual(record[key], value);
  return all(Object.entries(value).map(([op, operand]) => columnComparison(key, op, operand)));
}

/** `{metadata: {k: v, k2: {gte: 3}}}`: each key by containment, or by its operators on the key's text. */
function nestedMetadata(spec: Json): Test {
  const tests: Test[] = [];
  for (const [key, value] of Object.entries(spec)) {
    if (isObject(value) && hasOperator(value)) {
      tests.push(all(Object.entries(value).map(([op, operand]) => metadataComparison(key, op, operand))));
    } else if (value !== '*') {
      tests.push((record) => jsonContains(metadataOf(record), { [key]: value }));
    }
  }
  return all(tests);
}

/** Postgres `jsonb ->> key`: strings as they are, other values as JSON text, missing as NULL. */
function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Python's `str(v)`, which Honcho applies to `in` operands before comparing them with text. */
function pyStr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const ilike = (text: string | undefined, operand: unknown): boolean =>
  text?.toLowerCase().includes(pyStr(operand).toLowerCase()) ?? false;

function compare(op: string, a: number | string, b: number | string): boolean {
  switch (op) {
    case 'gte':
      return a >= b;
    case 'lte':
      return a <= b;
    case 'gt':
      return a > b;
    case 'lt':
      return a < b;
    default:
      return a !== b;
  }
}

/** A number the way Python's `int(v)` / `float(v)` reads an operand, or undefined. */
function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function inList(operand: unknown): unknown[] | undefined {
  if (!Array.isArray(operand)) filterError(`Invalid value for 'in' operator: ${pyStr(operand)}`);
  return operand.includes('*') ? undefined : operand;
}

function metadataComparison(key: string, op: string, operand: unknown): Test {
  if (!OPERATORS.has(op)) filterError(`Unsupported comparison operator: ${op}`);
  if (operand === '*') return undefined;
  const textOf = (record: Json) => asText(metadataOf(record)[key]);
  if (NUMERIC.has(op)) {
    // NULL (a missing key) compares to nothing, `ne` included.
    if (typeof operand === 'boolean')
      return (r) => textOf(r) !== undefined && compare(op, textOf(r)!, String(operand));
    const wanted = numberOf(operand);
    if (wanted === undefined) {
      if (typeof operand !== 'string') filterError(`Invalid value for numeric operator: ${pyStr(operand)}`);
      return (r) => textOf(r) !== undefined && compare(op, textOf(r)!, operand); // dates, text: as text
    }
    // Postgres casts the text to numeric ('' → NULL); text that is no number matches nothing here.
    return (r) => {
      const have = numberOf(textOf(r));
      return have !== undefined && compare(op, have, wanted);
    };
  }
  if (op === 'in') {
    const list = inList(operand)?.map(pyStr);
    return (
      list &&
      ((r) => {
        const text = textOf(r);
        return text !== undefined && list.includes(text);
      })
    );
  }
  return (r) => ilike(textOf(r), operand);
}

function columnComparison(column: string, op: string, operand: unknown): Test {
  if (!OPERATORS.has(op)) filterError(`Unsupported comparison operator: ${op}`);
  if (operand === '*') return undefined;
  const dated = column === 'created_at';
  const when = (value: unknown): number => {
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isNaN(ms) ? filterError(`Invalid datetime value: ${pyStr(value)}`) : ms;
  };
  if (NUMERIC.has(op)) {
    if (dated) {
      const wanted = when(operand);
      return (r) => compare(op, Date.parse(String(r[column])), wanted);
    }
    const wanted = numberOf(operand);
    if (wanted === undefined) filterError(`Invalid numeric value: ${pyStr(operand)}`);
    return (r) => compare(op, Number(r[column]), wanted);
  }
  if (op === 'in') {
    const list = inList(operand);
    if (!list) return undefined;
    if (dated) {
      const times = list.map(when);
      return (r) => times.includes(Date.parse(String(r[column])));
    }
    return (r) => list.some((v) => deepEqual(r[column], v));
  }
  if (op === 'contains' && column === 'metadata') return (r) => jsonContains(metadataOf(r), operand);
  return (r) => ilike(asText(r[column]), operand);
}

/** Postgres `a @> b` below the top level: objects by subset, arrays by each element of `b`. */
export function jsonContains(a: unknown, b: unknown): boolean {
  if (isObject(b)) return isObject(a) && Object.entries(b).every(([k, v]) => k in a && jsonContains(a[k], v));
  if (Array.isArray(b)) return Array.isArray(a) && b.every((v) => a.some((x) => jsonContains(x, v)));
  return deepEqual(a, b);
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return 'NoneType';
  if (Array.isArray(value)) return 'list';
  return isObject(value) ? 'dict' : typeof value === 'string' ? 'str' : typeof value;
}
