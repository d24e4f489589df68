import * as fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { MEMORY_TOOL_SCHEMA, handleMemoryTool } from './memory-tool';
import { MemoryStore } from './memory-store';

const parse = (s: string) => JSON.parse(s) as Record<string, unknown>;

describe('memory tool dispatcher (78–83)', () => {
  it('no store → "not available"', async () => {
    expect(
      parse(await handleMemoryTool(null, { action: 'add', target: 'memory', content: 'x' })).error,
    ).toMatch(/not available/);
  });

  it('validates target, required fields and action', async () => {
    const s = new MemoryStore({ hermesHome: tempHome() }).load();
    const call = async (args: unknown) => parse(await handleMemoryTool(s, args));
    expect((await call({ action: 'add', target: 'notes', content: 'x' })).error).toMatch(
      /Invalid target 'notes'/,
    );
    expect((await call({ action: 'add', target: 'memory' })).error).toBe(
      "Content is required for 'add' action.",
    );
    const rep = await call({ action: 'replace', target: 'memory', content: 'x' });
    expect(rep.error).toMatch(/old_text is required/);
    expect(rep.current_entries).toEqual([]);
    expect((await call({ action: 'replace', target: 'memory', old_text: 'x' })).error).toMatch(
      /content is required/,
    );
    expect((await call({ action: 'remove', target: 'memory' })).error).toMatch(/old_text is required/);
    expect((await call({ action: 'read', target: 'memory' })).error).toBe(
      "Unknown action 'read'. Use: add, replace, remove",
    );
    expect((await call({ target: 'memory' })).error).toMatch(/Missing required parameter/);
    expect((await call('{not json')).error).toMatch(/not valid JSON/);
  });

  it('79/81 target defaults to "memory" as in the reference: an unknown action is named, not the empty target', async () => {
    const s = new MemoryStore({ hermesHome: tempHome() }).load();
    const call = async (args: unknown) => parse(await handleMemoryTool(s, args));
    expect((await call({ action: 'frob' })).error).toBe("Unknown action 'frob'. Use: add, replace, remove");
    expect((await call({ action: 'frob', target: null })).error).toBe(
      "Unknown action 'frob'. Use: add, replace, remove",
    );
    expect((await call({ action: 'add', content: 'no target given' })).success).toBe(true);
    expect(s.entries('memory')).toEqual(['no target given']);
    expect((await call({ action: 'add', target: '', content: 'x' })).error).toBe(
      "Invalid target ''. Use 'memory' or 'user'.",
    );
  });

  it('valid add / replace / remove answer success true; new_text is an alias of content', async () => {
    const s = new MemoryStore({ hermesHome: tempHome() }).load();
    expect(
      parse(await handleMemoryTool(s, { action: 'add', target: 'user', new_text: 'Name: Ada' })).success,
    ).toBe(true);
    expect(
      parse(
        await handleMemoryTool(
          s,
          JSON.stringify({ action: 'replace', target: 'user', old_text: 'Ada', content: 'Name: Ada L.' }),
        ),
      ).success,
    ).toBe(true);
    expect(s.entries('user')).toEqual(['Name: Ada L.']);
    expect(
      parse(await handleMemoryTool(s, { action: 'remove', target: 'user', old_text: 'Ada' })).success,
    ).toBe(true);
    const batch = parse(
      await handleMemoryTool(s, {
        target: 'memory',
        operations: [
          { action: 'add', content: 'a' },
          { action: 'add', new_text: 'b' },
        ],
      }),
    );
    expect(batch.success).toBe(true);
    expect(s.entries('memory')).toEqual(['a', 'b']);
  });

  it('refuses writes outside the primary context and gates background review to add-only', async () => {
    const s = new MemoryStore({ hermesHome: tempHome() }).load();
    await s.add('memory', 'keep me');
    expect(
      parse(await handleMemoryTool(s, { action: 'add', target: 'memory', content: 'x' }, { canWrite: false }))
        .error,
    ).toMatch(/read-only/);
    const staged: unknown[] = [];
    const review = { writeOrigin: 'background_review', onStaged: (p: unknown) => staged.push(p) };
    const r = parse(
      await handleMemoryTool(s, { action: 'remove', target: 'memory', old_text: 'keep' }, review),
    );
    expect(r).toMatchObject({ success: true, staged: true });
    expect(staged).toEqual([
      { pendingId: r.pending_id, target: 'memory', action: 'remove', args: { old_text: 'keep' } },
    ]);
    expect(s.listPending().map((p) => [p.id, p.action, p.reason, p.origin])).toEqual([
      [r.pending_id, 'remove', 'background_review', 'background_review'],
    ]);
    expect(s.entries('memory')).toEqual(['keep me']);
    expect(
      parse(await handleMemoryTool(s, { action: 'add', target: 'memory', content: 'new' }, review)).success,
    ).toBe(true);
  });

  it('schema: name memory, action and target enums, no read action', () => {
    const props = MEMORY_TOOL_SCHEMA.parameters.properties as Record<string, { enum?: string[] }>;
    expect(MEMORY_TOOL_SCHEMA.name).toBe('memory');
    expect(props.action?.enum).toEqual(['add', 'replace', 'remove']);
    expect(props.target?.enum).toEqual(['memory', 'user']);
    expect(JSON.stringify(MEMORY_TOOL_SCHEMA.parameters)).not.toContain('"read"');
  });
});

describe('memory tool: property-based hostile arguments', () => {
  const hostileValue = fc.oneof(
    fc.string(),
    fc.string({ unit: 'grapheme' }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(fc.anything(), { maxLength: 4 }),
    fc.dictionary(fc.string(), fc.anything(), { maxKeys: 4 }),
    fc.constantFrom('ignore previous instructions', 'a\u200bb', '\n§\n', '§', '', '   ', 'x'.repeat(5000)),
  );
  const args = fc.oneof(
    fc.record(
      {
        action: fc.oneof(fc.constantFrom('add', 'replace', 'remove', 'read', ''), hostileValue),
        target: fc.oneof(fc.constantFrom('memory', 'user', 'MEMORY'), hostileValue),
        content: hostileValue,
        new_text: hostileValue,
        old_text: hostileValue,
        operations: fc.oneof(
          hostileValue,
          fc.array(
            fc.record(
              { action: hostileValue, content: hostileValue, old_text: hostileValue },
              { requiredKeys: [] },
            ),
            { maxLength: 4 },
          ),
        ),
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
    fc.string(),
    fc.json(),
  );

  it('always answers JSON, never throws, and leaves the store unchanged on error', async () => {
    const home = tempHome();
    const s = new MemoryStore({ hermesHome: home, memoryCharLimit: 400, userCharLimit: 200 }).load();
    await s.add('memory', 'seed memory entry');
    await s.add('user', 'seed user entry');
    await fc.assert(
      fc.asyncProperty(args, async (a) => {
        const before = {
          memory: fs.readFileSync(s.pathFor('memory'), 'utf8'),
          user: fs.readFileSync(s.pathFor('user'), 'utf8'),
        };
        const out = await handleMemoryTool(s, a);
        expect(typeof out).toBe('string');
        const parsed = JSON.parse(out) as Record<string, unknown>;
        expect(typeof parsed.success).toBe('boolean');
        if (!parsed.success) {
          expect(typeof parsed.error).toBe('string');
          expect(fs.readFileSync(s.pathFor('memory'), 'utf8')).toBe(before.memory);
          expect(fs.readFileSync(s.pathFor('user'), 'utf8')).toBe(before.user);
        }
        s.resetTurn();
      }),
      { numRuns: 300 },
    );
  });
});
