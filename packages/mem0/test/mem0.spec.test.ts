import fs from 'node:fs';
import path from 'node:path';
import { createProviderFactoryContext, ManualClock } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { Mem0Provider, resolveMem0Config, toHits, truncateAtSentence, unwrapResults } from '../src';
import {
  initContext,
  openProvider,
  PLATFORM_KEY,
  platformFake,
  platformSettings,
  SERVER_KEY,
  serverFake,
  serverSettings,
  tempHome,
  tool,
  until,
} from './helpers';

type Body = Record<string, unknown>;
const bodyOf = (request: { body: unknown }) => request.body as Body;

function factoryProvider(env: Record<string, string>, home = tempHome()): Mem0Provider {
  return new Mem0Provider({}, createProviderFactoryContext('mem0', { hermesHome: home, env }));
}

describe('§3.8 mem0 configuration and identity', () => {
  it('§3.8.1 isAvailable: platform with a key, host only, OSS without vector_store', () => {
    expect(factoryProvider({ MEM0_API_KEY: 'k' }).isAvailable()).toBe(true);
    expect(factoryProvider({ MEM0_HOST: 'http://127.0.0.1:8888' }).isAvailable()).toBe(true);
    expect(factoryProvider({}).isAvailable()).toBe(false);
    const oss = factoryProvider({ MEM0_MODE: 'oss' });
    expect(oss.isAvailable()).toBe(false);
    expect(oss.unavailableReason()).toMatch(/vector_store/);
    const home = tempHome();
    fs.writeFileSync(
      path.join(home, 'mem0.json'),
      JSON.stringify({ mode: 'oss', oss: { vector_store: { provider: 'memory' } } }),
    );
    expect(factoryProvider({}, home).isAvailable()).toBe(true);
  });

  it('§3.8.2 mem0.json overrides the environment key by key; empty strings in the file do not', () => {
    const file = { user_id: 'from-file', agent_id: '', host: null, rerank: 'yes' };
    const config = resolveMem0Config(
      {},
      { env: { MEM0_USER_ID: 'from-env', MEM0_AGENT_ID: 'env-agent', MEM0_HOST: 'http://env-host:1' }, file },
    );
    expect(config.userId).toBe('from-file');
    expect(config.agentId).toBe('env-agent');
    expect(config.host).toBe('http://env-host:1');
    expect(config.rerank).toBe(true);
    // and through the provider, from a real file in the home
    const home = tempHome();
    fs.writeFileSync(
      path.join(home, 'mem0.json'),
      JSON.stringify({ api_key: '', host: 'http://file-host:2' }),
    );
    const provider = factoryProvider({ MEM0_API_KEY: 'env-key' }, home);
    expect(provider.isAvailable()).toBe(true);
    expect(() => resolveMem0Config({}, { file: { rerank: 'maybe' } })).toThrow(/rerank/);
  });

  it('§3.8.3 user_id: configured beats gateway; the placeholder loses to the gateway; default hermes-user', async () => {
    const fake = await platformFake();
    const alice = await openProvider(platformSettings(fake, { userId: 'alice' }), { userId: '123' });
    expect(alice.activeUserId).toBe('alice');
    const placeholder = await openProvider(platformSettings(fake, { userId: 'hermes-user' }), {
      userId: '123',
    });
    expect(placeholder.activeUserId).toBe('123');
    const neither = await openProvider(platformSettings(fake));
    expect(neither.activeUserId).toBe('hermes-user');
  });

  it('§3.8.4 backend choice: oss wins over a host, then host → self-hosted, else Platform', async () => {
    expect(resolveMem0Config({ mode: 'oss', host: 'http://h:1' }, {}).backend).toBe('oss');
    expect(resolveMem0Config({ host: 'http://h:1', apiKey: 'k' }, {}).backend).toBe('selfhosted');
    expect(resolveMem0Config({ apiKey: 'k' }, {}).backend).toBe('platform');
    const server = await serverFake();
    const provider = await openProvider({ ...serverSettings(server), platformURL: 'http://127.0.0.1:9' });
    await tool(provider, 'mem0_search', { query: 'tea' });
    expect(server.requestsTo('POST /search')).toHaveLength(1);
  });

  it('§3.8.24 system prompt: mode labels, the rerank note only on the Platform', async () => {
    const platform = await openProvider(platformSettings(await platformFake(), { userId: 'ann' }));
    expect(platform.systemPromptBlock()).toContain(
      '# Mem0 Memory\nActive. Mode: platform (cloud API). User: ann.',
    );
    expect(platform.systemPromptBlock()).toContain('Rerank is available on search.');
    expect(platform.systemPromptBlock()).toContain('mem0_search');
    const selfHosted = await openProvider(serverSettings(await serverFake()));
    expect(selfHosted.systemPromptBlock()).toContain('Mode: self-hosted (HTTP API).');
    expect(selfHosted.systemPromptBlock()).not.toContain('Rerank');
    expect(new Mem0Provider(platformSettings({ url: 'http://127.0.0.1:9' })).systemPromptBlock()).toBe('');
  });
});

describe('§3.8 self-hosted server over HTTP', () => {
  it('§3.8.5 X-API-Key and no Authorization; POST /search with filters.user_id; POST /memories with ids, infer, metadata', async () => {
    const server = await serverFake();
    const provider = await openProvider(serverSettings(server, { userId: 'ann', agentId: 'bot' }), {
      platform: 'telegram',
    });
    provider.syncTurn('I moved to Lisbon last spring.', 'Nice!');
    await provider.idle();
    await tool(provider, 'mem0_search', { query: 'Lisbon' });
    for (const request of server.requests) {
      expect(request.headers['x-api-key']).toBe('[redacted]');
      expect(request.headers.authorization).toBeUndefined();
    }
    const [add] = server.requestsTo('POST /memories');
    expect(bodyOf(add!)).toEqual({
      messages: [
        { role: 'user', content: 'I moved to Lisbon last spring.' },
        { role: 'assistant', content: 'Nice!' },
      ],
      user_id: 'ann',
      agent_id: 'bot',
      infer: true,
      metadata: { channel: 'telegram' },
    });
    const [search] = server.requestsTo('POST /search');
    expect(bodyOf(search!)).toEqual({ query: 'Lisbon', top_k: 10, filters: { user_id: 'ann' } });
    expect(JSON.stringify(server.requests)).not.toContain(SERVER_KEY);
  });

  it('§3.8.6 update is PUT /memories/{id} {text}, delete is DELETE /memories/{id}; a non-2xx answer throws', async () => {
    const server = await serverFake();
    const provider = await openProvider(serverSettings(server));
    await tool(provider, 'mem0_add', { content: 'The user drinks green tea.' });
    const id = server.state.memories[0]!.id;
    expect(
      await tool(provider, 'mem0_update', { memory_id: id, text: 'The user drinks black tea.' }),
    ).toEqual({
      result: 'Memory updated.',
      memory_id: id,
    });
    expect(bodyOf(server.requestsTo('PUT /memories/:id')[0]!)).toEqual({
      text: 'The user drinks black tea.',
    });
    expect(server.state.memories[0]!.memory).toBe('The user drinks black tea.');
    expect(await tool(provider, 'mem0_delete', { memory_id: id })).toEqual({
      result: 'Memory deleted.',
      memory_id: id,
    });
    expect(server.requestsTo('DELETE /memories/:id')[0]!.path).toBe(`/memories/${id}`);
    expect(server.state.memories).toHaveLength(0);
    server.fail({ type: 'status', status: 400, route: 'PUT /memories/:id' });
    const failed = await tool(provider, 'mem0_update', { memory_id: 'x1', text: 'y' });
    expect(failed.error).toMatch(/^Update failed: .*400/);
  });

  it('§3.8.7 {results:[…]}, […], {}, null and a string unwrap to a list or []', () => {
    const item = { id: 'm1', memory: 'likes tea', score: 0.5 };
    expect(unwrapResults({ results: [item] })).toEqual([item]);
    expect(unwrapResults([item])).toEqual([item]);
    expect(unwrapResults({})).toEqual([]);
    expect(unwrapResults(null)).toEqual([]);
    expect(unwrapResults('oops')).toEqual([]);
    expect(toHits([item, { id: 'm2' }, 7, null])).toEqual([{ id: 'm1', memory: 'likes tea', score: 0.5 }]);
  });

  it('§3.8.22 mem0_add stores with infer=false; "stored" on a self-hosted server', async () => {
    const server = await serverFake();
    const provider = await openProvider(serverSettings(server));
    const answer = await tool(provider, 'mem0_add', { content: 'Prefers aisle seats' });
    expect(answer.result).toBe('Fact stored.');
    expect(bodyOf(server.requestsTo('POST /memories')[0]!).infer).toBe(false);
    expect(server.state.memories.map((m) => m.memory)).toEqual(['Prefers aisle seats']);
  });
});

describe('§3.8 Platform through the mem0ai SDK', () => {
  it('§3.8.8 reads filter only on user_id; writes carry agent_id and metadata.channel (Token auth)', async () => {
    const fake = await platformFake();
    const provider = await openProvider(platformSettings(fake, { userId: 'ann', agentId: 'bot' }), {
      platform: 'discord',
    });
    provider.syncTurn('My sister Maya lives in Porto.', 'Got it.');
    await provider.idle();
    await tool(provider, 'mem0_search', { query: 'Maya' });
    const [add] = fake.requestsTo('POST /v3/memories/add/');
    expect(bodyOf(add!)).toMatchObject({
      user_id: 'ann',
      agent_id: 'bot',
      infer: true,
      metadata: { channel: 'discord' },
    });
    const [search] = fake.requestsTo('POST /v3/memories/search/');
    expect(bodyOf(search!).filters).toEqual({ user_id: 'ann' });
    expect(bodyOf(search!)).not.toHaveProperty('agent_id');
    expect(add!.headers.authorization).toBe('Token [redacted]');
    expect(JSON.stringify(fake.requests)).not.toContain(PLATFORM_KEY);
  });

  it('§3.8.14 onTurnStart("q") plus prefetch("q") makes one search call, not two', async () => {
    const fake = await platformFake();
    const provider = await openProvider(platformSettings(fake));
    await tool(provider, 'mem0_add', { content: 'The user plays the cello.' });
    provider.onTurnStart(1, 'what instrument do I play?');
    const block = await provider.prefetch('what instrument do I play?');
    expect(fake.requestsTo('POST /v3/memories/search/')).toHaveLength(1);
    expect(block).toBe('');
    // the instrument question has no content word in common with the memory: nothing injected
    provider.onTurnStart(2, 'cello lessons');
    await provider.idle();
    expect(await provider.prefetch('cello lessons')).toBe('## Mem0 Memory\n- The user plays the cello.');
    expect(fake.requestsTo('POST /v3/memories/search/')).toHaveLength(2);
  });

  it('§3.8.15 prefetch returns "" when the backend takes longer than 3 s, and the cached block later', async () => {
    const fake = await platformFake();
    const clock = new ManualClock();
    const provider = await openProvider(platformSettings(fake, { clock }));
    await tool(provider, 'mem0_add', { content: 'The user keeps bees on the roof.' });
    const release = fake.hold('POST /v3/memories/search/');
    const first = provider.prefetch('bees roof');
    await until(() => fake.heldRequests() === 1, 'the held search');
    await clock.advance(2999);
    let settled = false;
    void first.then(() => {
      settled = true;
    });
    await until(() => true);
    expect(settled).toBe(false);
    await clock.advance(1);
    expect(await first).toBe('');
    release();
    await provider.idle();
    expect(await provider.prefetch('bees roof')).toBe('## Mem0 Memory\n- The user keeps bees on the roof.');
    expect(fake.requestsTo('POST /v3/memories/search/')).toHaveLength(1);
  });

  it('§3.8.16 the block is "## Mem0 Memory" and "- " lines; empty when nothing is found', async () => {
    const fake = await platformFake();
    const provider = await openProvider(platformSettings(fake));
    await tool(provider, 'mem0_add', { content: 'Allergic to peanuts.' });
    await tool(provider, 'mem0_add', { content: 'Peanuts make the user sneeze.' });
    provider.onTurnStart(1, 'peanuts');
    await provider.idle();
    expect(await provider.prefetch('peanuts')).toBe(
      '## Mem0 Memory\n- Allergic to peanuts.\n- Peanuts make the user sneeze.',
    );
    provider.onTurnStart(2, 'quantum chromodynamics');
    await provider.idle();
    expect(await provider.prefetch('quantum chromodynamics')).toBe('');
  });

  it('§3.8.17 sync truncates a 1000-character message to at most 450 at a sentence end past 150', async () => {
    const sentence = 'The user collects vintage fountain pens from Lisbon markets. '; // 61 chars
    const long = sentence.repeat(17).slice(0, 1000);
    const cut = truncateAtSentence(long, 450);
    expect(cut.length).toBeLessThanOrEqual(450);
    expect(cut.length).toBeGreaterThan(150);
    expect(cut.endsWith('markets.')).toBe(true);
    expect(truncateAtSentence(`${'x'.repeat(100)}. ${'y'.repeat(900)}`, 450)).toHaveLength(450); // end before 150: hard cut
    expect(truncateAtSentence('短い。', 450)).toBe('短い。');
    const fake = await platformFake();
    const provider = await openProvider(platformSettings(fake));
    provider.syncTurn(long, long);
    await provider.idle();
    const messages = bodyOf(fake.requestsTo('POST /v3/memories/add/')[0]!).messages as Array<{
      content: string;
    }>;
    expect(messages.map((m) => m.content)).toEqual([cut, cut]);
  });

  it('§3.8.18 sync sends infer = sync_infer (default true) with [user, assistant]', async () => {
    const fake = await platformFake();
    const defaults = await openProvider(platformSettings(fake));
    defaults.syncTurn('I run every morning.', 'Great habit.');
    await defaults.idle();
    const off = await openProvider(platformSettings(fake, { syncInfer: false }));
    off.syncTurn('I swim on Sundays.', 'Nice.');
    await off.idle();
    const adds = fake.requestsTo('POST /v3/memories/add/').map(bodyOf);
    expect(adds.map((b) => b.infer)).toEqual([true, false]);
    expect(adds[0]!.messages).toEqual([
      { role: 'user', content: 'I run every morning.' },
      { role: 'assistant', content: 'Great habit.' },
    ]);
  });

  /** A held add (turn one), then turn two skipped after its 5 s wait. */
  async function turnSkippedBehindHeldAdd() {
    const fake = await platformFake();
    const clock = new ManualClock();
    const provider = await openProvider(platformSettings(fake, { clock }));
    const release = fake.hold('POST /v3/memories/add/');
    provider.syncTurn('Turn one is about gardening tomatoes.', 'ok');
    await until(() => fake.heldRequests() === 1, 'the held add');
    provider.syncTurn('Turn two is about pruning roses.', 'ok');
    await clock.advance(5000);
    expect(provider.skippedTurns).toBe(1);
    return { fake, provider, release };
  }

  it('§3.8.19 when the previous sync still runs after 5 s, the new turn is skipped, not queued — and sent from the journal once that write ended', async () => {
    const { fake, provider, release } = await turnSkippedBehindHeldAdd();
    const sent = () =>
      fake.requestsTo('POST /v3/memories/add/').map((r) => JSON.stringify(bodyOf(r).messages));
    // Skipped, not queued: nothing waits behind the held add, nothing more is sent while it runs.
    expect(provider.pendingWork).toBe(1);
    expect(sent()).toHaveLength(1);
    expect(provider.undeliveredWrites).toBe(1);
    release();
    await until(() => sent().length === 2, 'the skipped turn sent from the journal');
    await provider.idle();
    provider.syncTurn('Turn three is about watering basil.', 'ok');
    await provider.idle();
    const all = sent();
    expect(all).toHaveLength(3);
    expect(all[0]).toContain('tomatoes');
    expect(all[1]).toContain('roses');
    expect(all[2]).toContain('basil');
    // Delivered after all: no longer undelivered, nothing waits on disk, not degraded.
    expect([provider.skippedTurns, provider.undeliveredWrites, provider.writesOnDisk]).toEqual([1, 0, 0]);
    expect(provider.health()).toBeNull();
  });

  it("§3.8.19 once a write has outlived one turn's 5 s wait, later turns are skipped at once until it ends: a hung backend queues nothing; when it ends they go out in order, each once", async () => {
    const { fake, provider, release } = await turnSkippedBehindHeldAdd();
    for (let i = 0; i < 50; i++) provider.syncTurn(`Later turn ${i} about compost.`, 'ok');
    await new Promise((resolve) => setImmediate(resolve));
    expect(provider.skippedTurns).toBe(51);
    expect(provider.pendingWork).toBe(1); // the stuck write only: no turn waits behind it
    expect(fake.requestsTo('POST /v3/memories/add/')).toHaveLength(1);
    release();
    await until(() => provider.writesOnDisk === 0, 'the skipped turns delivered');
    await provider.idle();
    provider.syncTurn('Turn three is about watering basil.', 'ok');
    await provider.idle();
    const sent = fake.requestsTo('POST /v3/memories/add/').map((r) => JSON.stringify(bodyOf(r).messages));
    const later = Array.from({ length: 50 }, (_, i) => `Later turn ${i} about compost.`);
    expect(sent.map((m) => (JSON.parse(m) as Array<{ content: string }>)[0]!.content)).toEqual([
      'Turn one is about gardening tomatoes.',
      'Turn two is about pruning roses.',
      ...later,
      'Turn three is about watering basil.',
    ]);
    expect(provider.undeliveredWrites).toBe(0);
  });

  it('§3.8.20 mem0_search clamps top_k (0 → 1, 500 → 50); results carry id, memory and score', async () => {
    const fake = await platformFake();
    const provider = await openProvider(platformSettings(fake));
    await tool(provider, 'mem0_add', { content: 'The user hikes in the Alps.' });
    const found = await tool(provider, 'mem0_search', { query: 'Alps hikes', top_k: 0 });
    await tool(provider, 'mem0_search', { query: 'Alps', top_k: 500 });
    await tool(provider, 'mem0_search', { query: 'Alps', top_k: '7' });
    expect(fake.requestsTo('POST /v3/memories/search/').map((r) => bodyOf(r).top_k)).toEqual([1, 50, 7]);
    expect(found).toEqual({
      results: [{ id: fake.state.memories[0]!.id, memory: 'The user hikes in the Alps.', score: 1 }],
      count: 1,
    });
    expect(await tool(provider, 'mem0_search', { query: 'submarines' })).toEqual({
      result: 'No relevant memories found.',
    });
  });

  it('§3.8.21 mem0_search with rerank "false" (a string) sends rerank=false', async () => {
    const fake = await platformFake();
    const provider = await openProvider(platformSettings(fake, { rerank: true }));
    await tool(provider, 'mem0_search', { query: 'tea', rerank: 'false' });
    await tool(provider, 'mem0_search', { query: 'tea', rerank: 'no' });
    await tool(provider, 'mem0_search', { query: 'tea' });
    expect(fake.requestsTo('POST /v3/memories/search/').map((r) => bodyOf(r).rerank)).toEqual([
      false,
      false,
      true,
    ]);
  });

  it('§3.8.22 mem0_add stores with infer=false; "queued" on the cloud', async () => {
    const fake = await platformFake();
    const provider = await openProvider(platformSettings(fake));
    const answer = await tool(provider, 'mem0_add', { content: 'Prefers window seats' });
    expect(answer.result).toBe('Fact queued for storage.');
    expect(answer.event_id).toBe(fake.state.events[0]!.id);
    expect(bodyOf(fake.requestsTo('POST /v3/memories/add/')[0]!).infer).toBe(false);
  });

  it('§3.8.23 a missing required parameter returns "Missing required parameter: <k>"', async () => {
    const provider = await openProvider(platformSettings(await platformFake()));
    expect((await tool(provider, 'mem0_search', {})).error).toBe('Missing required parameter: query');
    expect((await tool(provider, 'mem0_add', { content: '' })).error).toBe(
      'Missing required parameter: content',
    );
    expect((await tool(provider, 'mem0_update', { memory_id: 'm1' })).error).toBe(
      'Missing required parameter: text',
    );
    expect((await tool(provider, 'mem0_delete', '{}')).error).toBe('Missing required parameter: memory_id');
    expect((await tool(provider, 'mem0_forget', {})).error).toBe('Unknown tool: mem0_forget');
  });

  it('§3.8.27 shutdown closes the backend and is safe to call twice', async () => {
    const fake = await platformFake();
    const provider = new Mem0Provider(platformSettings(fake));
    await provider.initialize('s1', initContext(tempHome()));
    provider.syncTurn('I like jazz records from the sixties.', 'ok');
    await provider.shutdown({ timeoutMs: 1000 });
    await provider.shutdown({ timeoutMs: 1000 });
    expect(fake.state.memories.map((m) => m.memory)).toEqual(['I like jazz records from the sixties.']);
    const before = fake.requests.length;
    expect((await tool(provider, 'mem0_search', { query: 'jazz' })).error).toBe(
      'Mem0 backend not initialized: shut down.',
    );
    provider.syncTurn('more', 'more');
    expect(await provider.prefetch('jazz')).toBe('');
    expect(fake.requests.length).toBe(before);
  });
});

describe('§3.8 circuit breaker (injected clock)', () => {
  async function failingProvider() {
    const fake = await platformFake();
    const clock = new ManualClock();
    const provider = await openProvider(platformSettings(fake, { clock }));
    const searches = () => fake.requestsTo('POST /v3/memories/search/').length;
    const failSearches = (count: number) =>
      fake.fail({ type: 'status', status: 500, count, path: '/v3/memories/search/' });
    return { fake, clock, provider, searches, failSearches };
  }

  it('§3.8.9 opens after 5 consecutive failures, blocks for 120 s, then lets a call through', async () => {
    const { clock, provider, searches, failSearches } = await failingProvider();
    failSearches(5);
    for (let i = 0; i < 5; i++)
      expect((await tool(provider, 'mem0_search', { query: 'tea' })).error).toMatch(/^Search failed/);
    expect(provider.health()?.status).toBe('down');
    expect((await tool(provider, 'mem0_search', { query: 'tea' })).error).toBe(
      'Mem0 temporarily unavailable (multiple consecutive failures). Will retry automatically.',
    );
    expect(searches()).toBe(5);
    await clock.advance(119_999);
    await tool(provider, 'mem0_search', { query: 'tea' });
    expect(searches()).toBe(5);
    await clock.advance(1);
    expect(await tool(provider, 'mem0_search', { query: 'tea' })).toEqual({
      result: 'No relevant memories found.',
    });
    expect(searches()).toBe(6);
    expect(provider.health()).toBeNull();
  });

  it('§3.8.10 a success resets the failure counter', async () => {
    const { provider, searches, failSearches } = await failingProvider();
    failSearches(4);
    for (let i = 0; i < 4; i++) await tool(provider, 'mem0_search', { query: 'tea' });
    await tool(provider, 'mem0_search', { query: 'tea' }); // succeeds
    failSearches(4);
    for (let i = 0; i < 4; i++) await tool(provider, 'mem0_search', { query: 'tea' });
    await tool(provider, 'mem0_search', { query: 'tea' });
    expect(searches()).toBe(10);
    expect(provider.health()).toBeNull();
  });

  it('§3.8.11 a 404 from update returns "Memory not found: <id>" and does not count', async () => {
    const { fake, provider } = await failingProvider();
    const unknown = '00000000-0000-4000-8000-00000000abcd';
    for (let i = 0; i < 6; i++) {
      expect((await tool(provider, 'mem0_update', { memory_id: unknown, text: 'x' })).error).toBe(
        `Memory not found: ${unknown}`,
      );
    }
    expect((await tool(provider, 'mem0_delete', { memory_id: 'not-a-uuid' })).error).toBe(
      'Memory not found: not-a-uuid',
    );
    expect(fake.requestsTo('PUT /v1/memories/:id/')).toHaveLength(6);
    expect(provider.health()).toBeNull();
  });

  it('§3.8.12 a client error on add does count toward the breaker', async () => {
    const { fake, provider } = await failingProvider();
    fake.fail({ type: 'status', status: 400, count: 5, path: '/v3/memories/add/' });
    for (let i = 0; i < 5; i++)
      expect((await tool(provider, 'mem0_add', { content: 'x y z' })).error).toMatch(/^Failed to store/);
    expect(provider.health()?.status).toBe('down');
    expect((await tool(provider, 'mem0_add', { content: 'x y z' })).error).toMatch(/temporarily unavailable/);
    expect(fake.requestsTo('POST /v3/memories/add/')).toHaveLength(5);
  });

  it('§3.8.13 while open, tools answer "temporarily unavailable"; sync and prefetch make no calls', async () => {
    const { fake, provider, failSearches } = await failingProvider();
    failSearches(5);
    for (let i = 0; i < 5; i++) await tool(provider, 'mem0_search', { query: 'tea' });
    const before = fake.requests.length;
    provider.syncTurn('I love oolong tea.', 'ok');
    provider.onTurnStart(2, 'oolong');
    expect(await provider.prefetch('oolong')).toBe('');
    for (const [name, args] of [
      ['mem0_search', { query: 'tea' }],
      ['mem0_add', { content: 'tea' }],
      ['mem0_update', { memory_id: 'a', text: 'b' }],
      ['mem0_delete', { memory_id: 'a' }],
    ] as const) {
      expect((await tool(provider, name, args)).error).toMatch(/temporarily unavailable/);
    }
    await provider.idle();
    expect(fake.requests.length).toBe(before);
  });
});
