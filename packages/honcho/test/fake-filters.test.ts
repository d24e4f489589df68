import { Honcho } from '@honcho-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeAnswer } from '../src/testing/context';
import { compileFilters, MESSAGE_COLUMNS, matchesFilters } from '../src/testing/filters';
import { type FakeHoncho, startFakeHoncho } from '../src/testing/index';

let fake: FakeHoncho;
afterEach(async () => fake?.close());

const message = (metadata: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  id: 'msg_1',
  peer_id: 'alice',
  session_id: 's1',
  workspace_id: 'ws',
  token_count: 12,
  created_at: '2026-01-01T00:00:05.000Z',
  metadata,
  ...extra,
});

/** The 422 detail a filter is refused with, or undefined when it compiles. */
function refusal(filters: unknown): string | undefined {
  try {
    compileFilters(filters, MESSAGE_COLUMNS);
    return undefined;
  } catch (error) {
    if (!(error instanceof FakeAnswer)) throw error;
    expect(error.response).toMatchObject({ status: 422 });
    return JSON.stringify(error.response);
  }
}

describe("the fake's filters are Honcho's (src/utils/filter.py)", () => {
  const m = message({
    migration_id: 'abc',
    source: 'local_memory',
    chunk: 3,
    ratio: '2.5',
    done: true,
    nested: { kind: 'file', tags: ['a', 'b'], depth: { level: 2 } },
  });
  const matches = (filters: unknown) => matchesFilters(m, filters, MESSAGE_COLUMNS);

  it('metadata: equality on a key, on several keys, and containment of nested objects and arrays', () => {
    expect(matches({ metadata: { migration_id: 'abc' } })).toBe(true);
    expect(matches({ metadata: { migration_id: 'abd' } })).toBe(false);
    expect(matches({ metadata: { migration_id: 'abc', source: 'local_memory' } })).toBe(true);
    expect(matches({ metadata: { migration_id: 'abc', source: 'other' } })).toBe(false);
    expect(matches({ metadata: { missing: 'abc' } })).toBe(false);
    expect(matches({ metadata: { nested: { kind: 'file' } } })).toBe(true);
    expect(matches({ metadata: { nested: { depth: { level: 2 } } } })).toBe(true);
    expect(matches({ metadata: { nested: { depth: { level: 3 } } } })).toBe(false);
    expect(matches({ metadata: { nested: { tags: ['b'] } } })).toBe(true);
    expect(matches({ metadata: { nested: { tags: ['c'] } } })).toBe(false);
    expect(matches({ metadata: { chunk: 3, done: true } })).toBe(true);
    expect(matches({ metadata: { chunk: '3' } })).toBe(false); // JSONB: a string is not a number
    expect(matches({ metadata: 'abc' })).toBe(false); // a scalar is never contained in an object
  });

  it('metadata operators act on the key as text, numbers compared as numbers; a missing key matches none of them', () => {
    expect(matches({ metadata: { chunk: { gte: 3, lt: 4 } } })).toBe(true);
    expect(matches({ metadata: { chunk: { gt: 3 } } })).toBe(false);
    expect(matches({ metadata: { ratio: { gt: 2 } } })).toBe(true);
    expect(matches({ metadata: { ratio: { lte: '2.4' } } })).toBe(false);
    expect(matches({ metadata: { chunk: { ne: 4 } } })).toBe(true);
    expect(matches({ metadata: { missing: { ne: 4 } } })).toBe(false);
    expect(matches({ metadata: { done: { ne: false } } })).toBe(true);
    expect(matches({ metadata: { source: { in: ['x', 'local_memory'] } } })).toBe(true);
    expect(matches({ metadata: { chunk: { in: [3] } } })).toBe(true);
    expect(matches({ metadata: { done: { in: [true] } } })).toBe(false); // Python's str(True) is "True"
    expect(matches({ metadata: { source: { contains: 'LOCAL' } } })).toBe(true);
    expect(matches({ metadata: { source: { icontains: 'memo' } } })).toBe(true);
    expect(matches({ metadata: { source: { contains: 'remote' } } })).toBe(false);
  });

  it('columns: equality, operators, created_at as a time; AND / OR / NOT; "*" sets no condition', () => {
    expect(matches({ peer_id: 'alice', session_id: 's1' })).toBe(true);
    expect(matches({ peer_id: 'bob' })).toBe(false);
    expect(matches({ peer_id: { in: ['bob', 'alice'] } })).toBe(true);
    expect(matches({ token_count: { gte: 12, lt: 13 } })).toBe(true);
    expect(matches({ created_at: { gte: '2026-01-01', lt: '2026-01-01T00:00:06Z' } })).toBe(true);
    expect(matches({ created_at: { gt: '2026-01-01T00:00:05Z' } })).toBe(false);
    expect(matches({ metadata: { contains: { nested: { kind: 'file' } } } })).toBe(true);
    expect(matches({ OR: [{ peer_id: 'bob' }, { metadata: { migration_id: 'abc' } }] })).toBe(true);
    expect(matches({ OR: [{ peer_id: 'bob' }, { peer_id: 'carol' }] })).toBe(false);
    expect(matches({ AND: [{ peer_id: 'alice' }, { metadata: { chunk: { gt: 5 } } }] })).toBe(false);
    expect(matches({ NOT: [{ peer_id: 'bob' }] })).toBe(true);
    expect(matches({ NOT: [{ peer_id: 'alice' }] })).toBe(false);
    expect(matches({ peer_id: '*', metadata: { migration_id: '*' } })).toBe(true);
    // A wildcard branch of an OR sets no condition and is dropped, as SQLAlchemy drops it.
    expect(matches({ OR: [{ peer_id: '*' }, { peer_id: 'bob' }] })).toBe(false);
    expect(matches({})).toBe(true);
    expect(matchesFilters(m, undefined)).toBe(true);
  });

  it('a malformed filter is a 422 before any record is read: unknown column, operator, non-list AND, bad values', () => {
    expect(refusal({ metadata: { migration_id: 'abc' } })).toBeUndefined();
    expect(refusal({ id: 'msg_1' })).toContain("Column 'id' is not allowed");
    expect(refusal({ content: 'x' })).toContain("Column 'content' is not allowed");
    expect(refusal({ peer_id: { in: 'alice' } })).toContain("Invalid value for 'in' operator");
    expect(refusal({ peer_id: { in: ['a'], like: 'x' } })).toContain('Unsupported comparison operator: like');
    expect(refusal({ AND: { peer_id: 'a' } })).toContain('AND operator must contain a list, got dict');
    expect(refusal({ NOT: null })).toContain('NOT operator cannot be None');
    expect(refusal({ token_count: { gt: 'many' } })).toContain('Invalid numeric value');
    expect(refusal({ created_at: { gte: 'yesterday' } })).toContain('Invalid datetime value');
    expect(refusal({ metadata: { chunk: { gt: [1] } } })).toContain('Invalid value for numeric operator');
  });

  it('through the official SDK: session.messages filters on nested metadata over HTTP; a bad filter is a 422 even on an empty session', async () => {
    fake = await startFakeHoncho({ apiKey: 'k' });
    const honcho = new Honcho({ baseURL: fake.url, apiKey: 'k', workspaceId: 'ws', maxRetries: 0 });
    const alice = await honcho.peer('alice');
    const session = await honcho.session('s1');
    await session.addMessages([
      alice.message('one', { metadata: { migration_id: 'm1', file: { name: 'a.md' } } }),
      alice.message('two', { metadata: { migration_id: 'm2', file: { name: 'b.md' } } }),
      alice.message('three'),
    ]);
    const contents = async (filters: Record<string, unknown>) =>
      (await session.messages({ filters, page: 1, size: 10 })).items.map((x) => x.content);
    expect(await contents({ metadata: { migration_id: 'm2' } })).toEqual(['two']);
    expect(await contents({ metadata: { file: { name: 'a.md' } } })).toEqual(['one']);
    expect(await contents({ metadata: { migration_id: 'm3' } })).toEqual([]);
    expect(await contents({ metadata: { migration_id: { in: ['m1', 'm2'] } } })).toEqual(['one', 'two']);
    expect(
      await contents({ OR: [{ metadata: { migration_id: 'm1' } }, { NOT: [{ peer_id: 'alice' }] }] }),
    ).toEqual(['one']);
    const empty = await honcho.session('s2');
    await expect(
      empty.messages({ filters: { metadata: { n: { gt: 1, between: 2 } } } }),
    ).rejects.toMatchObject({
      status: 422,
    });
  });
});
