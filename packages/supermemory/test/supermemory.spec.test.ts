import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatRecallBlock,
  relativeTime,
  resolveSupermemoryConfig,
  SupermemoryProvider,
  saveSupermemoryJson,
} from '../src';
import { FAKE_NOW, fake, home, json, KEY, sent, started } from './helpers';

describe('supermemory checklist (hermes-plugins-b §3.9)', () => {
  it('§3.9.1 container tag precedence env → config → hermes; {identity} substituted, then sanitised', async () => {
    const server = await fake();
    const dir = home();
    fs.writeFileSync(
      path.join(dir, 'supermemory.json'),
      JSON.stringify({ container_tag: 'hermes-{identity}' }),
    );
    const fromFile = new SupermemoryProvider({}, { hermesHome: dir, env: { SUPERMEMORY_API_KEY: KEY } });
    await fromFile.initialize('s', {
      hermesHome: dir,
      platform: 'cli',
      agentContext: 'primary',
      agentIdentity: 'coder',
      logger: undefined as never,
      env: { SUPERMEMORY_API_KEY: KEY, SUPERMEMORY_BASE_URL: server.url },
    });
    expect(fromFile.containerTag).toBe('hermes_coder');
    await fromFile.initialize('s', {
      hermesHome: dir,
      platform: 'cli',
      agentContext: 'primary',
      logger: undefined as never,
      env: { SUPERMEMORY_API_KEY: KEY },
    });
    expect(fromFile.containerTag).toBe('hermes_default');
    const env = { SUPERMEMORY_API_KEY: KEY, SUPERMEMORY_CONTAINER_TAG: 'env-override!!' };
    await fromFile.initialize('s', {
      hermesHome: dir,
      platform: 'cli',
      agentContext: 'primary',
      logger: undefined as never,
      env,
    });
    expect(fromFile.containerTag).toBe('env_override');
    const bare = new SupermemoryProvider({ apiKey: KEY }, { env: {} });
    expect(bare.containerTag).toBe('hermes');
    const junk = new SupermemoryProvider({ apiKey: KEY, containerTag: '--__--' }, { env: {} });
    expect(junk.containerTag).toBe('hermes');
  });

  it('§3.9.2 every SDK call carries x-sm-source: hermes, is not retried by the SDK, and times out after api_timeout', async () => {
    const server = await fake();
    const { provider } = await started(server, { apiTimeout: 0.5 });
    await provider.handleToolCall('supermemory_search', { query: 'anything' });
    await provider.handleToolCall('supermemory_profile', {});
    for (const request of server.requests) {
      expect(request.headers['x-sm-source']).toBe('hermes');
      expect(request.headers.authorization).not.toContain(KEY);
    }
    // A 400 (not retryable) reaches the service once: neither the SDK nor we repeat it.
    server.fail({ type: 'status', status: 400, route: 'POST /v4/search' });
    const before = server.requestsTo('/v4/search').length;
    const failed = json(await provider.handleToolCall('supermemory_search', { query: 'x' }));
    expect(failed.error).toMatch(/^Search failed: .*HTTP 400/);
    expect(server.requestsTo('/v4/search').length).toBe(before + 1);
    // A hung service: the call ends after api_timeout (0.5 s, clamped minimum) per attempt.
    server.fail({ type: 'timeout', count: 5, route: 'POST /v3/documents' });
    const started_ = Date.now();
    const hung = json(
      await provider.handleToolCall('supermemory_store', { content: 'A durable fact is here.' }),
    );
    expect(hung.error).toMatch(/^Failed to store memory: .*timed out after 500 ms/);
    expect(Date.now() - started_).toBeLessThan(2000);
    server.clearFaults();
    expect(resolveSupermemoryConfig({}, { file: { api_timeout: 99 } }).apiTimeout).toBe(15);
    expect(resolveSupermemoryConfig({}, { file: { api_timeout: 0.01 } }).apiTimeout).toBe(0.5);
    expect(resolveSupermemoryConfig({}, { file: { api_timeout: 'soon' } }).apiTimeout).toBe(5);
  });

  it('§3.9.3 every written document carries metadata.sm_source = "hermes"; legacy source becomes type', async () => {
    const server = await fake();
    const { provider } = await started(server);
    await provider.handleToolCall('supermemory_store', {
      content: 'The user has a dog named Rex.',
      metadata: { source: 'legacy_note' },
    });
    await provider.handleToolCall('supermemory_store', {
      content: 'The user likes green tea.',
      metadata: { source: 'x', type: 'kept' },
    });
    provider.onMemoryWrite('add', 'user', 'Prefers metric units.');
    provider.syncTurn('We planned the garden layout today together.', 'Noted, the garden layout is planned.');
    await provider.onSessionEnd([]);
    const bodies = [...server.requestsTo('/v3/documents'), ...server.requestsTo('/v4/conversations')].map(
      (r) => r.body as { metadata: Record<string, unknown> },
    );
    expect(bodies.length).toBe(4);
    for (const body of bodies) {
      expect(body.metadata.sm_source).toBe('hermes');
      expect(body.metadata).not.toHaveProperty('source');
    }
    expect(bodies[0]?.metadata.type).toBe('legacy_note');
    expect(bodies[1]?.metadata.type).toBe('kept');
  });

  it('§3.9.4 prefetch makes one profile call with the query cut to 200 characters and returns the block or ""', async () => {
    const server = await fake();
    const { provider } = await started(server);
    expect(await provider.prefetch('What about my garden plans?')).toBe('');
    await provider.handleToolCall('supermemory_store', { content: 'The user grows tomatoes in the garden.' });
    const long = `garden ${'x'.repeat(300)}`;
    const before = server.requestsTo('/v4/profile').length;
    provider.onTurnStart(2, long);
    await provider.idle();
    const block = await provider.prefetch(long);
    const calls = server.requestsTo('/v4/profile').slice(before);
    expect(calls.length).toBe(1);
    expect(sent(calls[0]).q).toHaveLength(200);
    expect(block).toMatch(/^<supermemory-context>\n[\s\S]*tomatoes[\s\S]*<\/supermemory-context>$/);
    expect(await provider.prefetch('   ')).toBe('');
  });

  it('§3.9.5 profile sections only on turn ≤1 or every profile_frequency turns; memories show age and percent', () => {
    const profile = {
      static: ['Lives in Lisbon'],
      dynamic: ['Planning a trip'],
      results: [
        {
          id: 'm1',
          memory: 'Booked a flight to Oslo',
          similarity: 0.873,
          updatedAt: new Date(FAKE_NOW - 3 * 3600_000).toISOString(),
          metadata: null,
        },
      ],
    };
    const withProfile = formatRecallBlock(profile, { withProfile: true, max: 10, now: FAKE_NOW }).text;
    expect(withProfile).toContain('## User Profile (Persistent)\n- Lives in Lisbon');
    expect(withProfile).toContain('## Recent Context\n- Planning a trip');
    expect(withProfile).toContain('## Relevant Memories\n- [3h ago] [87%] Booked a flight to Oslo');
    const without = formatRecallBlock(profile, { withProfile: false, max: 10, now: FAKE_NOW }).text;
    expect(without).not.toContain('User Profile');
    expect(without).toContain('Relevant Memories');
    expect(relativeTime(new Date(FAKE_NOW - 10 * 60_000).toISOString(), FAKE_NOW)).toBe('just now');
    expect(relativeTime(new Date(FAKE_NOW - 45 * 60_000).toISOString(), FAKE_NOW)).toBe('45m ago');
    expect(relativeTime(new Date(FAKE_NOW - 2 * 86400_000).toISOString(), FAKE_NOW)).toBe('2d ago');
    expect(relativeTime('2026-01-05T00:00:00Z', FAKE_NOW)).toBe('05 Jan');
    expect(relativeTime('2024-01-05T00:00:00Z', FAKE_NOW)).toBe('05 Jan 2024');
  });

  it('§3.9.5 the provider includes the profile on turn 1, omits it on turn 2 and brings it back at the frequency', async () => {
    const server = await fake();
    const { provider } = await started(server, { profileFrequency: 3 });
    await provider.handleToolCall('supermemory_store', { content: 'The user keeps bees on the roof.' });
    const at = async (turn: number) => {
      provider.onTurnStart(turn, 'tell me about the bees');
      await provider.idle();
      return provider.prefetch('tell me about the bees');
    };
    expect(await at(1)).toContain('## User Profile (Persistent)');
    const second = await at(2);
    expect(second).not.toContain('## User Profile');
    expect(second).toContain('## Relevant Memories');
    expect(await at(3)).toContain('## User Profile (Persistent)');
  });

  it('§3.9.6 cross-list dedupe keeps the first occurrence; each list capped at max_recall_results', () => {
    const hit = (memory: string) => ({
      id: memory,
      memory,
      similarity: 0.5,
      updatedAt: undefined,
      metadata: null,
    });
    const block = formatRecallBlock(
      {
        static: ['A', 'B', 'C'],
        dynamic: ['A', 'D', 'E', 'F'],
        results: [hit('B'), hit('D'), hit('G'), hit('H'), hit('I')],
      },
      { withProfile: true, max: 2, now: FAKE_NOW },
    ).text;
    expect(block).toContain('## User Profile (Persistent)\n- A\n- B\n\n');
    expect(block).toContain('## Recent Context\n- D\n- E\n\n');
    expect(block).toContain('## Relevant Memories\n- [50%] G\n- [50%] H\n');
  });

  it('§3.9.7 syncTurn strips injected context blocks and buffers turns without network I/O', async () => {
    const server = await fake();
    const { provider } = await started(server);
    const before = server.requests.length;
    provider.syncTurn(
      '<supermemory-context>\nold recall\n</supermemory-context>\n  What is for dinner?  ',
      'Pasta. <supermemory-containers>a, b</supermemory-containers>',
    );
    provider.syncTurn('ok', 'sure');
    expect(server.requests.length).toBe(before);
    expect(provider.bufferedTurns).toBe(2);
    expect(provider.pendingWork).toBe(0);
    await provider.onSessionEnd([]);
    const body = server.requestsTo('/v4/conversations')[0]?.body as { messages: { content: string }[] };
    expect(body.messages.map((m) => m.content)).toEqual(['What is for dinner?', 'Pasta.', 'ok', 'sure']);
  });

  it('§3.9.8 session end posts one /v4/conversations ingest and clears the buffer; a single short message is skipped', async () => {
    const server = await fake();
    const { provider } = await started(server, {}, { sessionId: 'sess-42' });
    provider.syncTurn('I moved to Porto last month.', 'Welcome to Porto!');
    await provider.onSessionEnd([
      { role: 'system', content: 'You are Hermes.' },
      { role: 'user', content: 'I moved to Porto last month.' },
      { role: 'assistant', content: 'Welcome to Porto!' },
      { role: 'tool', content: '{"ok":true}' },
      { role: 'user', content: '   ' },
    ]);
    const ingests = server.requestsTo('/v4/conversations');
    expect(ingests.length).toBe(1);
    expect(ingests[0]?.body).toEqual({
      conversationId: 'sess-42',
      messages: [
        { role: 'user', content: 'I moved to Porto last month.' },
        { role: 'assistant', content: 'Welcome to Porto!' },
      ],
      containerTags: ['hermes'],
      metadata: { type: 'full_session', session_id: 'sess-42', message_count: 2, sm_source: 'hermes' },
    });
    expect(provider.bufferedTurns).toBe(0);
    await provider.shutdown();
    expect(server.requestsTo('/v4/conversations').length).toBe(1);

    const other = await started(server, {}, { sessionId: 'short' });
    await other.provider.onSessionEnd([{ role: 'user', content: 'hi there' }]);
    expect(server.requestsTo('/v4/conversations').length).toBe(1);
  });

  it('§3.9.9 session switch flushes the buffer under the old session id with partial = !reset', async () => {
    const server = await fake();
    const { provider } = await started(server, {}, { sessionId: 'old-1' });
    provider.syncTurn('Remember the blue notebook.', 'I will.');
    provider.onSessionSwitch('new-2', { reset: false });
    provider.syncTurn('Second session starts here.', 'Hello again.');
    provider.onSessionSwitch('new-3', { reset: true });
    provider.onSessionSwitch('new-4', { reset: true });
    await provider.idle();
    const bodies = server.requestsTo('/v4/conversations').map((r) => sent(r));
    expect(bodies.map((b) => [b.conversationId, b.metadata.partial, b.metadata.message_count])).toEqual([
      ['old-1', true, 2],
      ['new-2', false, 2],
    ]);
  });

  it('§3.9.10 shutdown flushes any leftover buffer with partial: true', async () => {
    const server = await fake();
    const { provider, logs } = await started(server, {}, { sessionId: 'crash-1' });
    provider.syncTurn('An unfinished session about sailing.', 'Sailing noted.');
    await provider.shutdown({ timeoutMs: 2000 });
    const body = sent(server.requestsTo('/v4/conversations')[0]);
    expect(body.conversationId).toBe('crash-1');
    expect(body.metadata).toMatchObject({ type: 'full_session', partial: true, message_count: 2 });
    expect(logs.contains('buffered turn(s)')).toBe(true);
  });

  it.each(['cron', 'flush', 'subagent'] as const)(
    '§3.9.11 writes (capture, ingest, mirror, and the store/forget tools — decision 0930) are disabled for agent_context %s; reads are unaffected',
    async (agentContext) => {
      const server = await fake();
      const writer = await started(server);
      await writer.provider.handleToolCall('supermemory_store', { content: 'Reads still work here.' });
      const { provider } = await started(server, {}, { agentContext });
      provider.syncTurn('A long enough user message here.', 'And a reply.');
      provider.onMemoryWrite('add', 'memory', 'Something to mirror.');
      await provider.onSessionEnd([{ role: 'user', content: 'A long enough user message here.' }]);
      const refused = json(
        await provider.handleToolCall('supermemory-save', { content: 'Not from a subagent.' }),
      );
      expect(refused.error).toMatch(/read-only/);
      expect(json(await provider.handleToolCall('supermemory_forget', { query: 'reads' })).error).toMatch(
        /read-only/,
      );
      await provider.shutdown();
      expect(server.requestsTo('/v3/documents').length).toBe(1);
      expect(server.requestsTo('/v4/conversations').length).toBe(0);
      expect(json(await provider.handleToolCall('supermemory_search', { query: 'reads work' })).error).toBe(
        'Supermemory is not configured',
      );
      const { provider: reader } = await started(server, {}, { agentContext });
      expect(json(await reader.handleToolCall('supermemory_search', { query: 'reads work' })).count).toBe(1);
      expect(json(await reader.handleToolCall('supermemory_profile', {})).static_count).toBe(1);
      reader.onTurnStart(1, 'reads work');
      await reader.idle();
      expect(await reader.prefetch('reads work')).toContain('Reads still work here.');
    },
  );

  it('§3.9.12 onMemoryWrite mirrors only add, as an explicit_memory document', async () => {
    const server = await fake();
    const { provider } = await started(server);
    provider.onMemoryWrite('add', 'user', 'Name is Ada.');
    provider.onMemoryWrite('replace', 'user', 'Name is Ada L.', { previousContent: 'Name is Ada.' } as never);
    provider.onMemoryWrite('remove', 'user', 'Name is Ada L.');
    provider.onMemoryWrite('add', 'memory', '   ');
    await provider.idle();
    const docs = server.requestsTo('/v3/documents').map((r) => sent(r));
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({
      content: 'Name is Ada.',
      containerTags: ['hermes'],
      metadata: { target: 'user', type: 'explicit_memory', sm_source: 'hermes' },
    });
    expect(docs[0]?.entityContext).toMatch(/store less/);
  });

  it('§3.9.13 eight tool schemas (4 snake + 4 kebab aliases); aliases dispatch to the same handlers', async () => {
    const server = await fake();
    const { provider } = await started(server);
    const names = provider
      .getToolSchemas()
      .map((s) => s.name)
      .sort();
    expect(names).toEqual(
      [
        'supermemory_store',
        'supermemory-save',
        'supermemory_search',
        'supermemory-search',
        'supermemory_forget',
        'supermemory-forget',
        'supermemory_profile',
        'supermemory-profile',
      ].sort(),
    );
    const saved = json(
      await provider.handleToolCall('supermemory-save', { content: 'Uses vim keybindings.' }),
    );
    expect(saved.saved).toBe(true);
    const found = json(await provider.handleToolCall('supermemory-search', { query: 'vim' }));
    expect(found.count).toBe(1);
    expect(json(await provider.handleToolCall('supermemory-profile', {})).static_count).toBe(1);
    expect(json(await provider.handleToolCall('supermemory-forget', { query: 'vim' })).success).toBe(true);
  });

  it('§3.9.14 store returns {saved, id, preview} with an 80-character preview; the category sets type', async () => {
    const server = await fake();
    const { provider } = await started(server);
    const long =
      `The user decided the team is going with Postgres for the ledger ${'and more detail '.repeat(5)}`.trim();
    const result = json(await provider.handleToolCall('supermemory_store', { content: long }));
    expect(result).toEqual({ saved: true, id: expect.any(String), preview: `${long.slice(0, 80)}...` });
    const cases: Array<[string, string]> = [
      ['I prefer dark roast coffee.', 'preference'],
      ['We decided on weekly releases.', 'decision'],
      ['The server is in Frankfurt.', 'fact'],
      ['Call mom.', 'other'],
    ];
    for (const [content] of cases) await provider.handleToolCall('supermemory_store', { content });
    const types = server
      .requestsTo('/v3/documents')
      .slice(1)
      .map((r) => sent(r).metadata.type);
    expect(types).toEqual(cases.map(([, type]) => type));
    expect(json(await provider.handleToolCall('supermemory_store', { content: 'Short.' })).preview).toBe(
      'Short.',
    );
  });

  it('§3.9.15 search clamps limit 1–20 (default 5) and reports integer similarity percent', async () => {
    const server = await fake();
    const { provider } = await started(server);
    await provider.handleToolCall('supermemory_store', { content: 'Rust and Go are favourite languages.' });
    const found = json(await provider.handleToolCall('supermemory_search', { query: 'rust languages' }));
    const first = (found.results as Record<string, unknown>[])[0];
    expect(Number.isInteger(first?.similarity)).toBe(true);
    expect(first).toMatchObject({ id: expect.any(String), content: 'Rust and Go are favourite languages.' });
    await provider.handleToolCall('supermemory_search', { query: 'x', limit: 500 });
    await provider.handleToolCall('supermemory_search', { query: 'x', limit: -3 });
    await provider.handleToolCall('supermemory_search', { query: 'x' });
    const limits = server
      .requestsTo('/v4/search')
      .slice(1)
      .map((r) => sent(r).limit);
    expect(limits).toEqual([20, 1, 5]);
  });

  it('§3.9.16 forget by id or best-match query, with the exact messages for no match and a missing id', async () => {
    const server = await fake();
    const { provider } = await started(server);
    expect(json(await provider.handleToolCall('supermemory_forget', {})).error).toBe(
      'Provide either id or query',
    );
    await provider.handleToolCall('supermemory_store', {
      content: 'The wifi password hint is the cat name.',
    });
    const memoryId = server.state.memories[0]?.id;
    expect(json(await provider.handleToolCall('supermemory_forget', { id: memoryId }))).toEqual({
      forgotten: true,
      id: memoryId,
    });
    await provider.handleToolCall('supermemory_store', { content: 'Standup is at nine every weekday.' });
    const byQuery = json(await provider.handleToolCall('supermemory_forget', { query: 'standup weekday' }));
    expect(byQuery).toEqual({
      success: true,
      message: 'Forgot: "Standup is at nine every weekday."',
      id: expect.any(String),
    });
    expect(json(await provider.handleToolCall('supermemory_forget', { query: 'standup' }))).toEqual({
      success: false,
      message: 'No matching memory found to forget.',
    });
    // A hit the service returns without an id.
    server.state.memories.push({
      ...(server.state.memories[0] as (typeof server.state.memories)[0]),
      id: '',
      memory: 'anonymous note',
      forgotten: false,
    });
    expect(json(await provider.handleToolCall('supermemory_forget', { query: 'anonymous' }))).toEqual({
      success: false,
      message: 'Best matching memory has no id.',
    });
  });

  it('§3.9.17 profile returns formatted sections with static and dynamic counts', async () => {
    const server = await fake();
    const { provider } = await started(server, {}, { sessionId: 'p-1' });
    await provider.handleToolCall('supermemory_store', { content: 'Works as a nurse.' });
    await provider.onSessionEnd([
      { role: 'user', content: 'I am training for a half marathon.' },
      { role: 'assistant', content: 'Great goal!' },
    ]);
    const result = json(await provider.handleToolCall('supermemory_profile', { query: 'running' }));
    expect(result).toEqual({
      profile:
        '## User Profile (Persistent)\n- Works as a nurse.\n\n## Recent Context\n- I am training for a half marathon.',
      static_count: 1,
      dynamic_count: 1,
    });
  });

  it('§3.9.18 custom container mode adds container_tag to every tool, rejects unlisted tags; automatic paths use the primary', async () => {
    const server = await fake();
    const off = await started(server);
    for (const schema of off.provider.getToolSchemas())
      expect(schema.parameters.properties).not.toHaveProperty('container_tag');
    const { provider } = await started(server, {
      enableCustomContainerTags: true,
      customContainers: ['project-alpha', 'notes'],
      customContainerInstructions: 'Use project_alpha for work.',
    });
    for (const schema of provider.getToolSchemas()) {
      const described = (schema.parameters.properties as Record<string, { description: string }>)
        .container_tag;
      expect(described?.description).toContain('hermes, project_alpha, notes');
    }
    const stored = json(
      await provider.handleToolCall('supermemory_store', {
        content: 'Alpha ships in May.',
        container_tag: 'project_alpha',
      }),
    );
    expect(stored.container_tag).toBe('project_alpha');
    const refused = json(
      await provider.handleToolCall('supermemory_search', { query: 'x', container_tag: 'secret' }),
    );
    expect(refused.error).toBe(
      "Container tag 'secret' is not allowed. Allowed: hermes, project_alpha, notes",
    );
    expect(provider.systemPromptBlock()).toContain('hermes, project_alpha, notes');
    expect(provider.systemPromptBlock()).toContain('Use project_alpha for work.');
    provider.onMemoryWrite('add', 'memory', 'Mirror goes to the primary.');
    provider.syncTurn('A turn that goes to the primary container.', 'Yes.');
    await provider.onSessionEnd([]);
    provider.onTurnStart(1, 'alpha ships');
    await provider.idle();
    expect(sent(server.requestsTo('/v3/documents').at(-1)).containerTags).toEqual(['hermes']);
    expect(sent(server.requestsTo('/v4/conversations').at(-1)).containerTags).toEqual(['hermes']);
    expect(sent(server.requestsTo('/v4/profile').at(-1)).containerTag).toBe('hermes');
  });

  it('§3.9.19 supermemory.json is written 0600 with merge; numbers and booleans coerced and clamped', () => {
    const dir = home();
    const file = path.join(dir, 'supermemory.json');
    fs.writeFileSync(file, JSON.stringify({ custom_key: 'kept', auto_recall: false }));
    saveSupermemoryJson(dir, {
      container_tag: 'hermes-{identity}',
      max_recall_results: 7,
      api_key: 'never-here',
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const written = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(written).toEqual({
      auto_recall: false,
      container_tag: 'hermes-{identity}',
      custom_key: 'kept',
      max_recall_results: 7,
    });
    expect(Object.keys(written)).toEqual([...Object.keys(written)].sort());
    const config = resolveSupermemoryConfig(
      {},
      {
        file: {
          auto_recall: 'off',
          auto_capture: 'y',
          max_recall_results: 99,
          profile_frequency: 'often',
          search_mode: 'fuzzy',
          entity_context: 'e'.repeat(2000),
          custom_containers: ['a-b'],
          api_timeout: null,
        },
      },
    );
    expect(config).toMatchObject({
      autoRecall: false,
      autoCapture: true,
      maxRecallResults: 20,
      profileFrequency: 50,
      searchMode: 'hybrid',
      apiTimeout: 5,
      containerTag: 'hermes',
    });
    expect(config.entityContext).toHaveLength(1500);
    // BOM-tolerant; a corrupt file falls back to defaults.
    fs.writeFileSync(file, `\uFEFF${JSON.stringify({ search_mode: 'documents' })}`);
    const provider = new SupermemoryProvider({ apiKey: KEY }, { hermesHome: dir, env: {} });
    expect(provider.getToolSchemas()).toHaveLength(8);
    expect(
      resolveSupermemoryConfig({}, { file: JSON.parse(fs.readFileSync(file, 'utf8').slice(1)) }).searchMode,
    ).toBe('documents');
  });

  it('§3.9.19 search_mode from config reaches the client; invalid → hybrid', async () => {
    const server = await fake();
    const { provider } = await started(server, { searchMode: 'memories' });
    await provider.handleToolCall('supermemory_search', { query: 'x' });
    expect(sent(server.requestsTo('/v4/search').at(-1)).searchMode).toBe('memories');
    const { provider: other } = await started(server, { searchMode: 'nonsense' as never });
    await other.handleToolCall('supermemory_search', { query: 'x' });
    expect(sent(server.requestsTo('/v4/search').at(-1)).searchMode).toBe('hybrid');
  });

  it('§3.9.20 an unconfigured provider answers every tool with "Supermemory is not configured"', async () => {
    const dir = home();
    const provider = new SupermemoryProvider({}, { hermesHome: dir, env: {} });
    expect(provider.isAvailable()).toBe(false);
    expect(provider.unavailableReason()).toContain('SUPERMEMORY_API_KEY');
    await provider.initialize('s', {
      hermesHome: dir,
      platform: 'cli',
      agentContext: 'primary',
      logger: undefined as never,
      env: {},
    });
    for (const schema of provider.getToolSchemas()) {
      expect(json(await provider.handleToolCall(schema.name, { query: 'x', content: 'y' })).error).toBe(
        'Supermemory is not configured',
      );
    }
    expect(provider.systemPromptBlock()).toBe('');
    expect(await provider.prefetch('anything')).toBe('');
  });
});
