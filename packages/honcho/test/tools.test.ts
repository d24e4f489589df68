import { afterEach, describe, expect, it } from 'vitest';
import { type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

const call = async (
  provider: { handleToolCall(n: string, a: unknown): Promise<string> },
  name: string,
  args: unknown,
) => JSON.parse(await provider.handleToolCall(name, args)) as Record<string, unknown>;

describe('honcho tools', () => {
  it('§2.7.25 honcho_search: max_tokens 5000 is capped to 2000; the query is cut to 4000 characters; the limit stays within 3–20', async () => {
    rig = await startRig();
    const provider = rig.provider({ writeFrequency: 'turn' });
    await rig.init(provider);
    await provider.syncTurn('My cat is called Miso.', 'Cute.');
    const searches = () => rig.fake.requestsTo('POST /v3/workspaces/:workspace/search');
    const found = await call(provider, 'honcho_search', {
      query: `cat ${'word '.repeat(1200)}`,
      max_tokens: 5000,
    });
    expect(found.result).toContain('[alice · demo] My cat is called Miso.');
    const big = searches().at(-1)!.body as { query: string; limit: number; filters: Record<string, string> };
    expect(big.query.length).toBe(4000);
    expect(big.limit).toBe(20);
    expect(big.filters).toEqual({ peer_perspective: 'hermes' });
    await call(provider, 'honcho_search', { query: 'cat', max_tokens: 1 });
    expect((searches().at(-1)!.body as { limit: number }).limit).toBe(3);
    await call(provider, 'honcho_search', { query: 'cat' });
    expect((searches().at(-1)!.body as { limit: number }).limit).toBe(10);
    expect(await call(provider, 'honcho_search', { query: 'zebra' })).toEqual({
      result: 'No relevant context found.',
    });
    expect((await call(provider, 'honcho_search', {})).error).toMatch(/query/);
    expect((await call(provider, 'honcho_search', { query: 'cat', max_tokens: 'lots' })).error).toMatch(
      /max_tokens/,
    );
  });

  it('§2.7.26 honcho_reasoning passes reasoning_level only when dialecticDynamic is true and returns text uncapped', async () => {
    rig = await startRig();
    const writer = rig.provider({ writeFrequency: 'turn', dialecticMaxChars: 100 });
    await rig.init(writer);
    for (let i = 0; i < 6; i++)
      await writer.syncTurn(`Fact ${i}: I maintain the parser and the type checker of project ${i}.`, 'ok');
    const chats = () => rig.fake.requestsTo('POST /v3/workspaces/:workspace/peers/:peer/chat');
    const answer = await call(writer, 'honcho_reasoning', {
      query: 'What does Alice maintain in the parser project?',
      reasoning_level: 'high',
    });
    expect(String(answer.result).length).toBeGreaterThan(100);
    expect((chats().at(-1)!.body as Record<string, unknown>).reasoning_level).toBe('high');
    const fixed = rig.provider({ dialecticDynamic: false });
    await rig.init(fixed, 's2');
    await fixed.idle();
    await call(fixed, 'honcho_reasoning', { query: 'What does Alice maintain?', reasoning_level: 'high' });
    const explicit = chats().find(
      (r) => (r.body as { query?: string }).query === 'What does Alice maintain?',
    );
    expect(explicit!.body as Record<string, unknown>).not.toHaveProperty('reasoning_level');
    expect((await call(fixed, 'honcho_reasoning', { query: 'x', reasoning_level: 'extreme' })).error).toMatch(
      /reasoning_level/,
    );
  });

  it('§2.7.27 honcho_conclude rejects neither or both of conclusion and delete_id, and query without list=true', async () => {
    rig = await startRig();
    const provider = rig.provider();
    await rig.init(provider);
    const exactlyOne = 'Exactly one of conclusion, delete_id, or list must be provided.';
    expect(await call(provider, 'honcho_conclude', {})).toEqual({ error: exactlyOne });
    expect(await call(provider, 'honcho_conclude', { conclusion: 'a', delete_id: 'b' })).toEqual({
      error: exactlyOne,
    });
    expect(await call(provider, 'honcho_conclude', { conclusion: 'a', query: 'b' })).toEqual({
      error: 'query is only valid when list is true.',
    });
    const saved = await call(provider, 'honcho_conclude', { conclusion: 'Alice is left-handed.' });
    expect(saved.result).toBe('Conclusion saved for user: Alice is left-handed.');
    const listed = await call(provider, 'honcho_conclude', { list: true, query: 'handed' });
    expect(listed.conclusions).toEqual([{ id: saved.id, content: 'Alice is left-handed.' }]);
    expect(await call(provider, 'honcho_conclude', { delete_id: saved.id })).toEqual({
      result: `Conclusion ${saved.id} deleted.`,
    });
    expect(rig.fake.state.workspaces[WORKSPACE]!.conclusions).toEqual([]);
    expect((await call(provider, 'honcho_conclude', { delete_id: 'missing' })).error).toMatch(
      /Failed to delete/,
    );
  });

  it('§2.7.28 honcho_profile with an empty card returns a hint, not an error', async () => {
    rig = await startRig();
    const provider = rig.provider();
    await rig.init(provider);
    const empty = await call(provider, 'honcho_profile', {});
    expect(empty.result).toBe('No profile facts available yet.');
    expect(empty.hint).toMatch(/honcho_reasoning/);
    expect(empty).not.toHaveProperty('error');
    const written = await call(provider, 'honcho_profile', { card: ['Likes tea', ' '] });
    expect(written).toEqual({ result: 'Peer card updated (1 facts).', card: ['Likes tea'] });
    expect(await call(provider, 'honcho_profile', {})).toEqual({ result: ['Likes tea'] });
    expect((await call(provider, 'honcho_profile', { card: 'not a list' })).error).toMatch(/card/);
  });

  it('tools answer JSON for malformed arguments and unknown tools, and honcho_context reports the session', async () => {
    rig = await startRig();
    const provider = rig.provider({ writeFrequency: 'turn' });
    await rig.init(provider);
    await provider.syncTurn('We are refactoring the lexer today.', 'Starting with tokens.');
    for (const args of ['{not json', 42, [1, 2], null]) {
      const out = await provider.handleToolCall('honcho_search', args);
      expect(() => JSON.parse(out)).not.toThrow();
    }
    expect(await call(provider, 'honcho_nope', {})).toEqual({ error: 'Unknown tool: honcho_nope' });
    const context = await call(provider, 'honcho_context', {});
    expect(context.result).toContain('## Recent messages');
    expect(context.result).toContain('assistant: Starting with tokens.');
  });
});
