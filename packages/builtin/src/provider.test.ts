import * as fs from 'node:fs';
import * as path from 'node:path';
import { type InitContext, type MemoryWriteMetadata, silentLogger } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../test/helpers/temp';
import { BuiltinProvider, createBuiltinProvider, createProvider } from './index';

function ctx(home: string, extra: Partial<InitContext> = {}): InitContext {
  return { hermesHome: home, platform: 'cli', agentContext: 'primary', logger: silentLogger, ...extra };
}
const parse = (s: string) => JSON.parse(s) as Record<string, unknown>;

describe('BuiltinProvider', () => {
  it('is named builtin, always available, and exported under both factory names', () => {
    const p = createBuiltinProvider();
    expect(p).toBeInstanceOf(BuiltinProvider);
    expect(p.name).toBe('builtin');
    expect(p.isAvailable()).toBe(true);
    expect(createProvider).toBe(createBuiltinProvider);
  });

  it('system prompt block = frozen MEMORY + USER snapshots + guidance; writes show next session', async () => {
    const home = tempHome();
    fs.mkdirSync(path.join(home, 'memories'));
    fs.writeFileSync(path.join(home, 'memories', 'MEMORY.md'), 'repo uses pnpm');
    fs.writeFileSync(path.join(home, 'memories', 'USER.md'), 'name is Ada');
    const p = createBuiltinProvider();
    p.initialize('s1', ctx(home));
    const block = p.systemPromptBlock();
    expect(block.indexOf('MEMORY (your personal notes)')).toBeLessThan(
      block.indexOf('USER PROFILE (who the user is)'),
    );
    expect(block).toContain('repo uses pnpm');
    expect(block).toContain('name is Ada');
    expect(block).toContain('session_search');
    const r = parse(
      await p.handleToolCall('memory', { action: 'add', target: 'memory', content: 'deploys on fridays' }),
    );
    expect(r.success).toBe(true);
    expect(p.systemPromptBlock()).toBe(block);
    await p.shutdown();
    const next = createBuiltinProvider();
    next.initialize('s2', ctx(home));
    expect(next.systemPromptBlock()).toContain('deploys on fridays');
    await next.shutdown();
  });

  it('reads limits and toggles from config.yaml; settings win', () => {
    const home = tempHome();
    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      'memory:\n  memory_char_limit: "3000"\n  user_char_limit: 500\n  user_profile_enabled: false\n',
    );
    fs.mkdirSync(path.join(home, 'memories'));
    fs.writeFileSync(path.join(home, 'memories', 'USER.md'), 'hidden user entry');
    const p = createBuiltinProvider();
    p.initialize('s', ctx(home));
    expect(p.memoryStore!.memoryCharLimit).toBe(3000);
    expect(p.memoryStore!.userCharLimit).toBe(500);
    expect(p.systemPromptBlock()).not.toContain('hidden user entry');
    const q = createBuiltinProvider({ userCharLimit: 900, userProfileEnabled: true });
    q.initialize('s', ctx(home));
    expect(q.memoryStore!.userCharLimit).toBe(900);
    expect(q.systemPromptBlock()).toContain('hidden user entry');
  });

  it('offers memory and session_search (classic on request); unknown tools get a JSON error', async () => {
    const p = createBuiltinProvider();
    p.initialize('s', ctx(tempHome()));
    expect(p.getToolSchemas().map((t) => t.name)).toEqual(['memory', 'session_search']);
    expect(parse(await p.handleToolCall('nope', {})).success).toBe(false);
    const c = createBuiltinProvider({ sessionSearch: 'classic' });
    c.initialize('s', ctx(tempHome()));
    const schema = c.getToolSchemas()[1]!;
    expect((schema.parameters.properties as Record<string, unknown>).around_message_id).toBeUndefined();
  });

  it('mirrors add, replace and remove through context.onMemoryWrite with metadata (107)', async () => {
    const seen: Array<[string, string, string, MemoryWriteMetadata | undefined]> = [];
    const p = createBuiltinProvider();
    p.initialize('s1', ctx(tempHome(), { onMemoryWrite: (a, t, c, m) => seen.push([a, t, c, m]) }));
    await p.handleToolCall('memory', { action: 'add', target: 'user', content: 'likes tea' });
    await p.handleToolCall('memory', {
      action: 'replace',
      target: 'user',
      old_text: 'tea',
      content: 'likes coffee',
    });
    await p.handleToolCall('memory', { action: 'remove', target: 'user', old_text: 'coffee' });
    expect(seen.map((s) => s[0])).toEqual(['add', 'replace', 'remove']);
    expect(seen[1]![3]).toMatchObject({
      sessionId: 's1',
      platform: 'cli',
      oldText: 'tea',
      previousContent: 'likes tea',
      writeOrigin: 'assistant_tool',
    });
    expect(seen[2]![2]).toBe('likes coffee');
  });

  it('records turns (tool calls included) in state.db off the caller’s path; session lineage on switch', async () => {
    const home = tempHome();
    const p = createBuiltinProvider();
    p.initialize('s1', ctx(home));
    p.syncTurn('list files', 'There is a.txt', {
      sessionId: 's1',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'list files' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', name: 'terminal', content: 'a.txt' },
        { role: 'assistant', content: 'There is a.txt' },
      ],
    });
    p.syncTurn('second question', 'second answer');
    expect(p.sessionStore!.getMessages('s1')).toHaveLength(0);
    await p.flush();
    const rows = p.sessionStore!.getMessages('s1');
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(rows[2]!.tool_name).toBe('terminal');
    expect(p.onSessionSwitch('s2', { parentSessionId: 's1', reset: false })).toBe(true);
    p.onSessionEnd([]);
    await p.flush();
    const store = p.sessionStore!;
    expect(store.getSession('s1')).toMatchObject({ end_reason: 'compression' });
    expect(store.getSession('s2')).toMatchObject({ parent_session_id: 's1', end_reason: 'session_end' });
    await p.shutdown();
  });

  it('non-primary contexts write nothing', async () => {
    const home = tempHome();
    const p = createBuiltinProvider();
    p.initialize('sub1', ctx(home, { agentContext: 'subagent' }));
    const r = parse(await p.handleToolCall('memory', { action: 'add', target: 'memory', content: 'x' }));
    expect(r.success).toBe(false);
    p.syncTurn('u', 'a');
    await p.flush();
    expect(p.sessionStore).toBeNull();
    expect(fs.existsSync(path.join(home, 'state.db'))).toBe(false);
    expect(fs.existsSync(path.join(home, 'memories'))).toBe(false);
    await p.shutdown();
    // With an existing state.db, a subagent can search it read-only and still records nothing.
    const primary = createBuiltinProvider();
    primary.initialize('main', ctx(home));
    primary.syncTurn('graphql schema design', 'done');
    await primary.shutdown();
    const sub = createBuiltinProvider();
    sub.initialize('sub2', ctx(home, { agentContext: 'cron' }));
    sub.syncTurn('u', 'a');
    await sub.flush();
    const found = parse(await sub.handleToolCall('session_search', { query: 'graphql' }));
    expect((found.results as unknown[]).length).toBe(1);
    expect(sub.sessionStore!.getSession('sub2')).toBeNull();
    await sub.shutdown();
  });

  it('session_search through the provider excludes the live session', async () => {
    const home = tempHome();
    const p = createBuiltinProvider();
    p.initialize('old', ctx(home));
    p.syncTurn('we talked about terraform state', 'yes, remote backend');
    // The manager's session boundary: onSessionEnd, then a reset switch to the child.
    p.onSessionEnd([]);
    p.onSessionSwitch('new', { parentSessionId: 'old', reset: true });
    p.syncTurn('terraform again', 'ok');
    await p.flush();
    const r = parse(await p.handleToolCall('session_search', { query: 'terraform' }));
    const results = r.results as Array<{ session_id: string }>;
    expect(results.map((x) => x.session_id)).toEqual(['old']);
    expect(p.sessionStore!.getSession('new')?.parent_session_id).toBe('old');
    await p.shutdown();
  });
});
