import fs from 'node:fs';
import path from 'node:path';
import {
  createRecordingLogger,
  silentLogger,
  type AgentContext,
  type InitContext,
} from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { HolographicProvider, createHolographicProvider } from './provider';
import { tempDir } from './test-helpers';
import type { HolographicSettings } from './settings';

const live: HolographicProvider[] = [];
function ctx(hermesHome: string, extra: Partial<InitContext> = {}): InitContext {
  return { hermesHome, platform: 'cli', agentContext: 'primary', logger: silentLogger, ...extra };
}
function make(
  settings: HolographicSettings = {},
  home = tempDir(),
  agentContext: AgentContext = 'primary',
): HolographicProvider {
  const p = createHolographicProvider(settings);
  p.initialize('s1', ctx(home, { agentContext }));
  live.push(p);
  return p;
}
afterEach(() => {
  for (const p of live.splice(0)) p.shutdown();
});
async function call(p: HolographicProvider, tool: string, args: unknown): Promise<Record<string, unknown>> {
  return JSON.parse(await p.handleToolCall(tool, args)) as Record<string, unknown>;
}

describe('provider basics (checklist 1, 2)', () => {
  it('is named holographic and available with no config', () => {
    const p = new HolographicProvider();
    expect(p.name).toBe('holographic');
    expect(p.isAvailable()).toBe(true);
    expect(p.systemPromptBlock()).toBe('');
  });
  it('creates the DB at the default path and expands $HERMES_HOME', () => {
    const home = tempDir();
    make({}, home);
    expect(fs.existsSync(path.join(home, 'memory_store.db'))).toBe(true);
    const home2 = tempDir();
    const p = make({ dbPath: '$HERMES_HOME/sub/custom.db' }, home2);
    expect(fs.existsSync(path.join(home2, 'sub', 'custom.db'))).toBe(true);
    expect(p.backupPaths()).toEqual([path.join(home2, 'sub', 'custom.db')]);
    const home3 = tempDir();
    // The literal `${HERMES_HOME}` form (not a JS template): built by concatenation.
    make({ dbPath: '$' + '{HERMES_HOME}/x.db' }, home3);
    expect(fs.existsSync(path.join(home3, 'x.db'))).toBe(true);
  });
  it('reads snake_case keys from providerConfig', () => {
    const home = tempDir();
    const p = createHolographicProvider();
    p.initialize('s', ctx(home, { providerConfig: { db_path: '$HERMES_HOME/pc.db', default_trust: '0.8' } }));
    live.push(p);
    expect(fs.existsSync(path.join(home, 'pc.db'))).toBe(true);
    expect(p.factStore!.defaultTrust).toBe(0.8);
  });
});

describe('tools', () => {
  it('fact_store covers all nine actions with the reference result shapes', async () => {
    const p = make();
    const add = await call(p, 'fact_store', {
      action: 'add',
      content: 'Jane Doe prefers Neovim',
      category: 'user_pref',
      tags: 'editor',
    });
    expect(add).toEqual({ fact_id: 1, status: 'added' });
    expect(await call(p, 'fact_store', { action: 'add', content: 'Jane Doe prefers Neovim' })).toEqual({
      fact_id: 1,
      status: 'added',
    });
    await call(
      p,
      'fact_store',
      JSON.stringify({ action: 'add', content: 'Jane Doe works on the Hermes Agent project' }),
    );
    const search = await call(p, 'fact_store', { action: 'search', query: 'which editor does Jane prefer' });
    expect(search.count).toBe((search.results as unknown[]).length);
    const first = (search.results as Array<Record<string, unknown>>)[0]!;
    expect(Object.keys(first).sort()).toEqual(
      [
        'category',
        'content',
        'created_at',
        'fact_id',
        'fts_rank',
        'helpful_count',
        'relevance',
        'retrieval_count',
        'score',
        'tags',
        'trust_score',
        'updated_at',
      ].sort(),
    );
    // The reference's keys plus how relevant the fact is to the query (0–1).
    expect(first.relevance).toBeGreaterThan(0);
    expect(first.relevance).toBeLessThanOrEqual(1);
    for (const action of ['probe', 'related']) {
      const r = await call(p, 'fact_store', { action, entity: 'Jane Doe' });
      expect(r.count).toBeGreaterThan(0);
    }
    expect(
      (await call(p, 'fact_store', { action: 'reason', entities: ['Jane Doe', 'Hermes Agent'] })).count,
    ).toBeGreaterThan(0);
    expect(await call(p, 'fact_store', { action: 'contradict' })).toMatchObject({
      count: expect.any(Number),
    });
    expect(await call(p, 'fact_store', { action: 'update', fact_id: 1, trust_delta: 0.9 })).toEqual({
      updated: true,
    });
    const list = await call(p, 'fact_store', { action: 'list' });
    expect((list.facts as Array<{ fact_id: number }>)[0]!.fact_id).toBe(1);
    expect(await call(p, 'fact_store', { action: 'remove', fact_id: '1' })).toEqual({ removed: true });
    expect(await call(p, 'fact_store', { action: 'remove', fact_id: 1 })).toEqual({ removed: false });
  });

  it('returns the reference error texts', async () => {
    const p = make();
    expect((await call(p, 'fact_store', { action: 'add' })).error).toBe(
      "Missing required argument: 'content'",
    );
    expect((await call(p, 'fact_store', {})).error).toBe("Missing required argument: 'action'");
    expect((await call(p, 'fact_store', { action: 'search' })).error).toBe(
      "Missing required argument: 'query'",
    );
    expect((await call(p, 'fact_store', { action: 'reason', entities: [] })).error).toBe(
      "reason requires 'entities' list",
    );
    expect((await call(p, 'fact_store', { action: 'explode' })).error).toBe('Unknown action: explode');
    expect((await call(p, 'nope', {})).error).toBe('Unknown tool: nope');
    expect((await call(p, 'fact_feedback', { action: 'helpful', fact_id: 77 })).error).toBe(
      'fact_id 77 not found',
    );
    expect((await call(p, 'fact_feedback', { action: 'helpful' })).error).toBe(
      "Missing required argument: 'fact_id'",
    );
    expect((await call(p, 'fact_store', 'not json')).success).toBe(false);
  });

  it('fact_feedback helpful and unhelpful (checklist 21)', async () => {
    const p = make();
    await call(p, 'fact_store', { action: 'add', content: 'fact one' });
    await call(p, 'fact_store', { action: 'add', content: 'fact two' });
    expect(await call(p, 'fact_feedback', { action: 'helpful', fact_id: 1 })).toEqual({
      fact_id: 1,
      old_trust: 0.5,
      new_trust: 0.55,
      helpful_count: 1,
    });
    const un = await call(p, 'fact_feedback', { action: 'unhelpful', fact_id: 2 });
    expect(un.new_trust).toBeCloseTo(0.4, 12);
  });
});

describe('prompt block and prefetch (checklist 25)', () => {
  it('describes the store and the [id N] marker', async () => {
    const p = make();
    expect(p.systemPromptBlock()).toContain('Empty fact store');
    await call(p, 'fact_store', { action: 'add', content: 'The staging server is called orca' });
    const block = p.systemPromptBlock();
    expect(block).toContain('Active. 1 facts stored');
    expect(block).toContain('[id');
  });
  it('prefetch: "" for empty query; otherwise ≤5 lines with trust and [id N], usable with fact_feedback', async () => {
    const p = make();
    expect(await p.prefetch('')).toBe('');
    for (let i = 0; i < 8; i++)
      await call(p, 'fact_store', {
        action: 'add',
        content: `The staging server number ${i} is called orca${i}`,
      });
    const out = await p.prefetch('what is the staging server called');
    const lines = out.split('\n');
    expect(lines[0]).toBe('## Holographic Memory');
    expect(lines.length - 1).toBeLessThanOrEqual(5);
    expect(lines.length - 1).toBeGreaterThan(0);
    for (const line of lines.slice(1)) expect(line).toMatch(/^- \[0\.5\] \[id \d+\] /);
    const id = Number(/\[id (\d+)\]/.exec(lines[1]!)![1]);
    const fb = await call(p, 'fact_feedback', { action: 'helpful', fact_id: id });
    expect(fb.new_trust as number).toBeGreaterThan(fb.old_trust as number);
  });
  it('min_trust_threshold filters prefetch (checklist 16); tools mode disables prefetch', async () => {
    const p = make({ minTrustThreshold: 0.6 });
    await call(p, 'fact_store', { action: 'add', content: 'The staging server is called orca' });
    expect(await p.prefetch('staging server')).toBe('');
    const t = make({ memoryMode: 'tools' });
    await call(t, 'fact_store', { action: 'add', content: 'The staging server is called orca' });
    expect(await t.prefetch('staging server')).toBe('');
    expect(t.getToolSchemas().map((s) => s.name)).toEqual(['fact_store', 'fact_feedback']);
  });
});

describe('sync, session end, mirror (checklist 26–29)', () => {
  it('syncTurn writes nothing', () => {
    const p = make();
    p.syncTurn();
    expect(p.factStore!.count()).toBe(0);
  });
  it('auto_extract "false" stores nothing; "true" stores a user_pref fact', () => {
    const msgs = [{ role: 'user' as const, content: 'I prefer concise answers with code first.' }];
    const off = make({ autoExtract: 'false' });
    off.onSessionEnd(msgs);
    expect(off.factStore!.count()).toBe(0);
    const on = make({ autoExtract: 'true' });
    on.onSessionEnd([
      ...msgs,
      { role: 'assistant' as const, content: 'I prefer nothing' },
      { role: 'user' as const, content: 'We decided to use pnpm for the monorepo.' },
    ]);
    const facts = on.factStore!.list();
    expect(facts.map((f) => [f.content, f.category]).sort()).toEqual([
      ['I prefer concise answers with code first.', 'user_pref'],
      ['We decided to use pnpm for the monorepo.', 'project'],
    ]);
  });
  it('compaction summaries are not extracted; merged tails keep the user part', () => {
    const p = make({ autoExtract: true });
    p.onSessionEnd([
      {
        role: 'user',
        content: '[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns... we decided to ship on Friday.',
      },
      {
        role: 'user',
        content:
          '[PRIOR CONTEXT — for reference only; not a new message]I always use tabs in Go.\n[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]\n[CONTEXT COMPACTION] we decided to rewrite everything',
      },
    ]);
    expect(p.factStore!.list().map((f) => f.content)).toEqual(['I always use tabs in Go.']);
  });
  it('onMemoryWrite mirrors add, replace and remove without touching retrieval_count', () => {
    const p = make();
    const store = p.factStore!;
    p.onMemoryWrite('add', 'user', 'User likes green tea');
    const row = store.findByContent('User likes green tea')!;
    expect(row.category).toBe('user_pref');
    p.onMemoryWrite('replace', 'user', 'User likes black tea', { previousContent: 'User likes green tea' });
    expect(store.findByContent('User likes green tea')).toBeUndefined();
    expect(store.get(row.fact_id)!.content).toBe('User likes black tea');
    p.onMemoryWrite('replace', 'memory', 'Repo uses pnpm', { previousContent: 'missing text' });
    expect(store.findByContent('Repo uses pnpm')!.category).toBe('general');
    p.onMemoryWrite('remove', 'memory', '', { previousContent: 'User likes black tea' });
    expect(store.get(row.fact_id)).toBeDefined(); // owned by the user target
    p.onMemoryWrite('remove', 'user', '', { previousContent: 'User likes black tea' });
    expect(store.get(row.fact_id)).toBeUndefined();
    p.onMemoryWrite('remove', 'memory', 'Repo uses pnpm');
    expect(store.findByContent('Repo uses pnpm')).toBeDefined(); // no metadata: no-op
    expect(store.list().every((f) => f.retrieval_count === 0)).toBe(true);
    // Replace onto an existing row removes the old one, leaving no duplicate.
    p.onMemoryWrite('add', 'memory', 'Fact A');
    p.onMemoryWrite('add', 'memory', 'Fact B');
    p.onMemoryWrite('replace', 'memory', 'Fact B', { previousContent: 'Fact A' });
    expect(store.findByContent('Fact A')).toBeUndefined();
    expect(store.findByContent('Fact B')).toBeDefined();
    new HolographicProvider().onMemoryWrite('add', 'user', 'no store: safe no-op');
  });
});

describe('non-primary contexts write nothing', () => {
  it('subagent: writes refused, searches do not count, mirror and auto-extract skipped', async () => {
    const home = tempDir();
    const primary = make({}, home);
    await call(primary, 'fact_store', { action: 'add', content: 'The staging server is called orca' });
    primary.shutdown();
    const sub = make({ autoExtract: true }, home, 'subagent');
    expect((await call(sub, 'fact_store', { action: 'add', content: 'x y z' })).success).toBe(false);
    expect((await call(sub, 'fact_feedback', { action: 'helpful', fact_id: 1 })).success).toBe(false);
    expect((await call(sub, 'fact_store', { action: 'search', query: 'staging server' })).count).toBe(1);
    sub.onMemoryWrite('add', 'user', 'mirror attempt');
    sub.onSessionEnd([{ role: 'user', content: 'I prefer long answers always.' }]);
    expect(sub.factStore!.list().map((f) => [f.content, f.retrieval_count, f.trust_score])).toEqual([
      ['The staging server is called orca', 0, 0.5],
    ]);
  });
});

describe('settings', () => {
  it('embeddings: true with @hermes-memory/embeddings installed uses it, without a "no embedder" warning', async () => {
    const logger = createRecordingLogger();
    const p = createHolographicProvider({ embeddings: true });
    p.initialize('s', ctx(tempDir(), { logger }));
    live.push(p);
    await p.ready();
    expect(p.factStore?.embedder).toBeDefined();
    expect(logger.records.some((r) => r.message.includes('no embedder'))).toBe(false);
  });
  it('rejects invalid settings clearly', () => {
    const p = createHolographicProvider({ hrrDim: 'abc' });
    expect(() => p.initialize('s', ctx(tempDir()))).toThrow(/hrr_dim/);
  });
});
