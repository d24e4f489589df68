import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PREAMBLE,
  HindsightProvider,
  NO_MEMORIES,
  profileConfigPath,
  resolveBankId,
  SAVING_STATUS,
  saveHindsightConfig,
} from '../src';
import { body, fake, home, json, KEY, retains, started } from './helpers';

const OFFSET_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
const RECALL = 'POST /v1/default/banks/:bank/memories/recall';
const STATUS = 'GET /v1/default/banks/:bank/operations/:operation';

/** Let the writer and background recall finish (real time: the fake answers at once). */
async function settle(provider: HindsightProvider): Promise<void> {
  await provider.idle();
}

/** Advance a manual clock in steps until `done()` or the step budget runs out. */
async function advanceUntil(clock: ManualClock, done: () => boolean, stepMs = 500, steps = 60) {
  for (let i = 0; i < steps && !done(); i++) await clock.advance(stepMs);
}

describe('hindsight acceptance (hermes-plugins-b §1.9)', () => {
  it('§1.9.1 isAvailable: cloud needs a key or a URL, local_external always; never a network call', async () => {
    const server = await fake();
    const dir = home();
    const make = (
      options: ConstructorParameters<typeof HindsightProvider>[0],
      env: Record<string, string> = {},
    ) => new HindsightProvider(options, { hermesHome: dir, env: { HOME: dir, ...env } });
    expect(make({ apiKey: KEY }).isAvailable()).toBe(true);
    expect(make({ apiURL: server.url }).isAvailable()).toBe(true);
    expect(make({}, { HINDSIGHT_API_KEY: 'from-dotenv' }).isAvailable()).toBe(true);
    expect(make({}, { HINDSIGHT_API_URL: server.url }).isAvailable()).toBe(true);
    const none = make({});
    expect(none.isAvailable()).toBe(false);
    expect(none.unavailableReason()).toMatch(/HINDSIGHT_API_KEY/);
    expect(make({ mode: 'local_external' }).isAvailable()).toBe(true);
    expect(server.requests).toHaveLength(0);
  });

  it('§1.9.2 bank id from the template, sanitised; empty placeholders collapse; a bad template falls back', async () => {
    expect(resolveBankId('user-{user}', 'hermes', { user: 'josh@example.com' }).bankId).toBe(
      'user-josh-example-com',
    );
    expect(resolveBankId('hermes-{user}', 'hermes', {}).bankId).toBe('hermes');
    expect(resolveBankId('{profile}__{platform}', 'x', { profile: '__a b__', platform: 'cli' }).bankId).toBe(
      'a-b_cli',
    );
    const bad = resolveBankId('team-{nope}', 'fallback', { user: 'u' });
    expect(bad.bankId).toBe('fallback');
    expect(bad.warning).toMatch(/unknown placeholder/);
    expect(resolveBankId('', 'static', { user: 'u' }).bankId).toBe('static');

    const server = await fake();
    const { provider } = await started(
      server,
      { bankIdTemplate: 'user-{user}' },
      { userId: 'josh@example.com' },
    );
    expect(provider.bankId).toBe('user-josh-example-com');
    expect(
      json(await provider.handleToolCall('hindsight_retain', { content: 'Josh likes tea.' })).result,
    ).toBe('Memory stored successfully.');
    expect(server.requestsTo('/memories')[0]?.path).toBe('/v1/default/banks/user-josh-example-com/memories');
    const { provider: fallback, logs } = await started(server, {
      bankIdTemplate: 'x-{bogus}',
      bankId: 'static',
    });
    expect(fallback.bankId).toBe('static');
    expect(logs.contains(/Invalid bank_id_template/)).toBe(true);
  });

  it('§1.9.3 three tools in hybrid and tools mode, none in context mode', async () => {
    const server = await fake();
    const names = (p: HindsightProvider) => p.getToolSchemas().map((s) => s.name);
    for (const memoryMode of ['hybrid', 'tools'] as const) {
      const { provider } = await started(server, { memoryMode });
      expect(names(provider)).toEqual(['hindsight_retain', 'hindsight_recall', 'hindsight_reflect']);
    }
    const { provider } = await started(server, { memoryMode: 'context' });
    expect(provider.getToolSchemas()).toEqual([]);
    expect(json(await provider.handleToolCall('hindsight_recall', { query: 'x' })).error).toMatch(
      /Unknown tool/,
    );
    const retain = (await started(server)).provider.getToolSchemas()[0];
    expect(Object.keys(retain?.parameters.properties as object)).toEqual([
      'content',
      'context',
      'tags',
      'occurred_at',
    ]);
    expect(JSON.stringify(retain?.parameters)).toMatch(/event/);
  });

  it('§1.9.4 hindsight_retain sends one item (content, metadata, ISO timestamp with offset, context, tags); bank and async only at call level', async () => {
    const server = await fake();
    const { provider } = await started(server, { retainTags: 'team,hermes' }, { sessionId: 's-4' });
    const result = json(
      await provider.handleToolCall('hindsight_retain', {
        content: 'The user prefers window seats.',
        context: 'user preference',
        tags: ['travel', 'team'],
      }),
    );
    expect(result).toEqual({ result: 'Memory stored successfully.' });
    const [sent] = retains(server);
    expect(sent?.items).toHaveLength(1);
    const item = sent?.items[0];
    expect(item?.content).toBe('The user prefers window seats.');
    expect(item?.context).toBe('user preference');
    expect(item?.tags).toEqual(['team', 'hermes', 'travel']);
    expect(item?.timestamp).toMatch(OFFSET_ISO);
    expect(Object.values(item?.metadata ?? {}).every((v) => typeof v === 'string')).toBe(true);
    expect(item?.metadata.session_id).toBe('s-4');
    expect(item).not.toHaveProperty('bank_id');
    expect(item).not.toHaveProperty('async');
    expect(item).not.toHaveProperty('retain_async');
    expect(sent?.async).toBe(false);
    expect(server.requestsTo('/memories')[0]?.path).toBe('/v1/default/banks/hermes/memories');
    expect(json(await provider.handleToolCall('hindsight_retain', {})).error).toBe(
      'Missing required parameter: content',
    );
  });

  it('§1.9.5 occurred_at overrides the item timestamp; a blank one is ignored', async () => {
    const server = await fake();
    const { provider } = await started(server);
    await provider.handleToolCall('hindsight_retain', {
      content: 'Flew to Lisbon.',
      occurred_at: '2026-08-20T14:30:00+02:00',
    });
    await provider.handleToolCall('hindsight_retain', { content: 'Likes jazz.', occurred_at: '   ' });
    const [first, second] = retains(server);
    expect(first?.items[0]?.timestamp).toBe('2026-08-20T14:30:00+02:00');
    expect(second?.items[0]?.timestamp).toMatch(OFFSET_ISO);
    expect(server.state.memories.find((m) => m.text === 'Flew to Lisbon.')?.occurredAt).toBe(
      '2026-08-20T14:30:00+02:00',
    );
  });

  it('§1.9.6 hindsight_recall returns numbered lines or the no-memories string, with budget, max_tokens, types, tags', async () => {
    const server = await fake();
    const { provider } = await started(server);
    expect(json(await provider.handleToolCall('hindsight_recall', { query: 'lighthouse' }))).toEqual({
      result: NO_MEMORIES,
    });
    const defaults = body(server.requestsTo(RECALL)[0]);
    expect(defaults).toMatchObject({
      query: 'lighthouse',
      budget: 'mid',
      max_tokens: 4096,
      types: ['observation'],
    });
    expect(defaults).not.toHaveProperty('tags');

    await provider.handleToolCall('hindsight_retain', { content: 'The lighthouse keeper is named Ada.' });
    await provider.handleToolCall('hindsight_retain', { content: 'Ada paints the lighthouse red.' });
    const found = json(await provider.handleToolCall('hindsight_recall', { query: 'lighthouse Ada' }));
    expect(found.result).toMatch(/^1\. .+\n2\. .+$/);

    const { provider: tagged } = await started(server, {
      recallTags: 'project-x',
      recallTagsMatch: 'all_strict',
      recallBudget: 'high',
      recallMaxTokens: 512,
      recallTypes: 'world,observation',
    });
    await tagged.handleToolCall('hindsight_recall', { query: 'anything' });
    expect(body(server.requestsTo(RECALL).at(-1))).toMatchObject({
      budget: 'high',
      max_tokens: 512,
      types: ['world', 'observation'],
      tags: ['project-x'],
      tags_match: 'all_strict',
    });
  });

  it('§1.9.7 hindsight_reflect returns the synthesis or the no-memories string', async () => {
    const server = await fake();
    const { provider } = await started(server, { recallBudget: 'low' });
    expect(json(await provider.handleToolCall('hindsight_reflect', { query: 'garden' }))).toEqual({
      result: NO_MEMORIES,
    });
    await provider.handleToolCall('hindsight_retain', { content: 'The user grows tomatoes in the garden.' });
    const answer = json(
      await provider.handleToolCall('hindsight_reflect', { query: 'what grows in the garden' }),
    );
    expect(answer.result).toMatch(/tomatoes/);
    expect(body(server.requestsTo('/reflect')[0])).toMatchObject({ query: 'garden', budget: 'low' });
    expect(json(await provider.handleToolCall('hindsight_reflect', { query: '' })).error).toBe(
      'Missing required parameter: query',
    );
  });

  it('§1.9.8 default prefetch serves the previous turn’s buffered recall with the header, once', async () => {
    const server = await fake();
    const { provider } = await started(server);
    provider.syncTurn('My sister Maya lives in Oslo.', 'Noted, Oslo.');
    provider.queuePrefetch('Where does Maya live?');
    await settle(provider);
    const before = server.requests.length;
    const block = await provider.prefetch('something else entirely');
    expect(server.requests.length).toBe(before);
    expect(block.startsWith(`${DEFAULT_PREAMBLE}\n\n- `)).toBe(true);
    expect(block).toMatch(/Maya lives in Oslo/);
    expect(await provider.prefetch('again')).toBe('');

    const { provider: custom } = await started(server, { recallPromptPreamble: '## Remembered' });
    custom.queuePrefetch('Maya Oslo');
    await settle(custom);
    custom.onTurnStart(1, 'x');
    expect(await custom.prefetch('x')).toMatch(/^## Remembered\n\n- /);
  });

  it('a host that never calls queuePrefetch still gets recall, one turn behind; after turn 1 prefetch never waits', async () => {
    const server = await fake();
    const clock = new ManualClock(0);
    const { provider } = await started(server, { clock, recallTypes: ['world'] });
    await provider.handleToolCall('hindsight_retain', { content: 'The lighthouse keeper is Ada.' });
    provider.onTurnStart(1, 'who keeps the lighthouse');
    expect(await provider.prefetch('who keeps the lighthouse')).toMatch(/Ada/); // turn 1 waits (bounded)
    server.fail({ type: 'timeout', route: RECALL });
    provider.onTurnStart(2, 'lighthouse keeper again');
    const t0 = Date.now();
    expect(await provider.prefetch('lighthouse keeper again')).toBe(''); // nothing ready: no wait
    expect(Date.now() - t0).toBeLessThan(100);
    expect(provider.pendingWork).toBe(1); // this turn's query is being recalled for the next one
    server.clearFaults();
    // The hung recall times out on the clock and its retry finds the fact.
    await advanceUntil(clock, () => provider.pendingWork === 0, 1000, 30);
    provider.onTurnStart(3, 'x');
    expect(await provider.prefetch('x')).toMatch(/Ada/);
  });

  it('§1.9.9 recall_sync recalls the current query live and never starts background work', async () => {
    const server = await fake();
    const { provider } = await started(server, { recallSync: true, recallTypes: ['world', 'observation'] });
    await provider.handleToolCall('hindsight_retain', { content: 'The cat is called Pixel.' });
    const before = server.requests.length;
    provider.queuePrefetch('what is the cat called');
    expect(provider.pendingWork).toBe(0);
    expect(server.requests.length).toBe(before);
    const block = await provider.prefetch('what is the cat called');
    expect(block).toMatch(/Pixel/);
    expect(body(server.requestsTo(RECALL).at(-1)).query).toBe('what is the cat called');
  });

  it('§1.9.10 the recall query is cut to 800 characters; errors give "" not exceptions', async () => {
    const server = await fake();
    const { provider } = await started(server, { recallSync: true });
    await provider.prefetch('x'.repeat(2000));
    expect(String(body(server.requestsTo(RECALL).at(-1)).query)).toHaveLength(800);
    server.fail({ type: 'status', status: 500, count: 5, route: RECALL });
    expect(await provider.prefetch('anything')).toBe('');
    server.fail({ type: 'malformed', route: RECALL });
    expect(await provider.prefetch('anything')).toBe('');
    server.clearFaults();

    const { provider: queued } = await started(server);
    server.fail({ type: 'reset', route: RECALL, count: 5 });
    queued.queuePrefetch('y'.repeat(900));
    await settle(queued);
    expect(await queued.prefetch('y')).toBe('');
  });

  describe('§1.9.11 background prefetch waits (bounded) for queued retains and async operations', () => {
    it('polls a pending operation until it completes, then recalls the new turn', async () => {
      const server = await fake({ pendingPolls: 3 });
      const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
      const { provider } = await started(server, { clock, recallTypes: ['world'] });
      provider.syncTurn('The boat is named Kestrel.', 'A fine name.');
      await provider.flush();
      expect(provider.pendingOperations).toHaveLength(1);
      expect(retains(server)[0]?.async).toBe(true);
      expect(retains(server)[0]?.operation_id).toMatch(/^[0-9a-f-]{36}$/);
      provider.queuePrefetch('What is the boat named?');
      await advanceUntil(clock, () => provider.pendingWork === 0);
      expect(server.requestsTo(STATUS).length).toBeGreaterThanOrEqual(3);
      expect(provider.pendingOperations).toHaveLength(0);
      provider.onTurnStart(1, 'next');
      expect(await provider.prefetch('next')).toMatch(/Kestrel/);
    });

    it('drops unresolved operations at the deadline and never polls them again', async () => {
      const server = await fake({ pendingPolls: 1_000_000 });
      const clock = new ManualClock(0);
      const { provider, logs } = await started(server, { clock, prefetchRetainDrainTimeout: 2 });
      provider.syncTurn('Slow write.', 'Indeed.');
      await provider.flush();
      provider.queuePrefetch('slow');
      await advanceUntil(clock, () => provider.pendingWork === 0, 500, 10);
      expect(provider.pendingWork).toBe(0);
      expect(clock.now()).toBeLessThanOrEqual(3000);
      expect(provider.pendingOperations).toHaveLength(0);
      expect(logs.contains(/not finished after 2 s/)).toBe(true);
      const polls = server.requestsTo(STATUS).length;
      provider.onTurnStart(2, 'x');
      provider.queuePrefetch('again');
      await advanceUntil(clock, () => provider.pendingWork === 0);
      expect(server.requestsTo(STATUS).length).toBe(polls);
    });

    it('treats 404 (evicted) as complete and a transient error as not yet', async () => {
      const server = await fake({ pendingPolls: 1, evictCompleted: true });
      const clock = new ManualClock(0);
      const { provider } = await started(server, { clock });
      provider.syncTurn('Evicted soon.', 'Ok.');
      await provider.flush();
      server.fail({ type: 'status', status: 503, route: STATUS });
      provider.queuePrefetch('evicted');
      await advanceUntil(clock, () => provider.pendingWork === 0);
      expect(server.requestsTo(STATUS).map((r) => r.status)).toEqual([503, 200, 404]);
      expect(provider.pendingOperations).toHaveLength(0);
    });

    it('waits for the writer to send a queued retain first; retain_async off tracks no operation', async () => {
      const server = await fake();
      const { provider } = await started(server, { retainAsync: false, recallTypes: ['world'] });
      provider.syncTurn('The key is under the blue pot.', 'Got it.');
      provider.queuePrefetch('where is the key');
      await settle(provider);
      expect(provider.pendingOperations).toHaveLength(0);
      expect(retains(server)[0]?.async).toBe(false);
      const order = server.requests.map((r) => r.route);
      expect(order.indexOf('POST /v1/default/banks/:bank/memories')).toBeLessThan(order.indexOf(RECALL));
      provider.onTurnStart(1, 'x');
      expect(await provider.prefetch('x')).toMatch(/blue pot/);
    });
  });

  it('§1.9.12 recallStatus reports the count, resets on an empty turn, obeys the indicator switch; reflect counts 0', async () => {
    const server = await fake();
    const { provider } = await started(server, { recallTypes: ['world'] });
    expect(provider.recallStatus()).toBeNull();
    await provider.handleToolCall('hindsight_retain', { content: 'Rex is a dog.' });
    await provider.handleToolCall('hindsight_retain', { content: 'Rex likes the park.' });
    provider.queuePrefetch('Rex');
    await settle(provider);
    await provider.prefetch('Rex');
    expect(provider.recallStatus()).toEqual({ providerLabel: 'Hindsight', count: 2, glyph: '👁️' });
    provider.onTurnStart(2, 'x');
    await provider.prefetch('nothing queued');
    expect(provider.recallStatus()).toBeNull();

    const { provider: quiet } = await started(server, {
      recallIndicator: false,
      recallSync: true,
      recallTypes: ['world'],
    });
    expect(await quiet.prefetch('Rex')).not.toBe('');
    expect(quiet.recallStatus()).toBeNull();

    const { provider: reflecting } = await started(server, { prefetchMethod: 'reflect', recallSync: true });
    expect(await reflecting.prefetch('Rex park')).toMatch(/From memory/);
    expect(reflecting.recallStatus()).toEqual({ providerLabel: 'Hindsight', count: 0, glyph: '👁️' });
  });

  it('§1.9.13 syncTurn buffers and retains every N turns: a JSON array of [user, assistant] pairs with prefixes and shared timestamps', async () => {
    const server = await fake();
    const { provider } = await started(
      server,
      { retainEveryNTurns: 2 },
      { env: { HINDSIGHT_RETAIN_USER_PREFIX: 'Josh' } },
    );
    provider.syncTurn('First question', 'First answer');
    await settle(provider);
    expect(retains(server)).toHaveLength(0);
    provider.syncTurn('Second question', 'Second answer');
    await settle(provider);
    expect(retains(server)).toHaveLength(1);
    const turns = JSON.parse(retains(server)[0]?.items[0]?.content ?? '[]') as Array<
      Array<{ role: string; content: string; timestamp: string }>
    >;
    expect(turns).toHaveLength(2);
    expect(turns.map((t) => t.map((m) => [m.role, m.content]))).toEqual([
      [
        ['user', 'Josh: First question'],
        ['assistant', 'Assistant: First answer'],
      ],
      [
        ['user', 'Josh: Second question'],
        ['assistant', 'Assistant: Second answer'],
      ],
    ]);
    for (const [user, assistant] of turns) {
      expect(user?.timestamp).toMatch(OFFSET_ISO);
      expect(assistant?.timestamp).toBe(user?.timestamp);
    }
    expect(retains(server)[0]?.items[0]?.metadata.message_count).toBe('4');
  });

  describe('§1.9.14 one document per session', () => {
    it('server ≥ 0.5.0: document id = session id, update_mode "append", only the new turns', async () => {
      const server = await fake({ apiVersion: '0.5.6' });
      const { provider } = await started(server, {}, { sessionId: 'sess-14' });
      provider.syncTurn('Turn one.', 'Reply one.');
      provider.syncTurn('Turn two.', 'Reply two.');
      await settle(provider);
      const [a, b] = retains(server).map((r) => r.items[0]);
      expect(a?.document_id).toBe('sess-14');
      expect(b?.document_id).toBe('sess-14');
      expect(a?.update_mode).toBe('append');
      expect(JSON.parse(a?.content ?? '')).toHaveLength(1);
      expect(b?.content).toMatch(/Turn two/);
      expect(b?.content).not.toMatch(/Turn one/);
      expect(server.state.documents.find((d) => d.id === 'sess-14')?.contents).toHaveLength(2);
      expect(server.requestsTo('/version')).toHaveLength(1);
    });

    it('older server: a per-process document id, the whole session resent, no update_mode', async () => {
      const server = await fake({ apiVersion: '0.4.2' });
      const { provider, logs } = await started(server, {}, { sessionId: 'sess-old' });
      provider.syncTurn('Turn one.', 'Reply one.');
      provider.syncTurn('Turn two.', 'Reply two.');
      await settle(provider);
      const [a, b] = retains(server).map((r) => r.items[0]);
      expect(a?.document_id).toMatch(/^sess-old-\d{8}_\d{6}_\d{6}$/);
      expect(b?.document_id).toBe(a?.document_id);
      expect(a).not.toHaveProperty('update_mode');
      expect(JSON.parse(b?.content ?? '')).toHaveLength(2);
      // The replaced document holds the whole session: nothing lost.
      expect(server.state.documents[0]?.contents.join('')).toMatch(/Turn one[\s\S]*Turn two/);
      expect(logs.contains(KEY)).toBe(false);

      // A resumed session in another process mints a distinct document.
      const { provider: resumed } = await started(server, {}, { sessionId: 'sess-old' });
      resumed.syncTurn('Turn three.', 'Reply three.');
      await settle(resumed);
      expect(retains(server).at(-1)?.items[0]?.document_id).not.toBe(a?.document_id);
    });

    it('a version probe that fails keeps the whole session on one (per-process) document', async () => {
      const server = await fake({ apiVersion: '0.5.6' });
      const { provider } = await started(server, { retainAsync: false }, { sessionId: 'sess-p' });
      server.fail({ type: 'status', status: 500, route: 'GET /version' });
      provider.syncTurn('Turn one.', 'Reply one.');
      provider.syncTurn('Turn two.', 'Reply two.');
      await settle(provider);
      const [a, b] = retains(server).map((r) => r.items[0]);
      expect(a?.document_id).toMatch(/^sess-p-/);
      expect(b?.document_id).toBe(a?.document_id);
      expect(JSON.parse(b?.content ?? '')).toHaveLength(2);
      expect(server.state.documents).toHaveLength(1);
      // A new session asks again (the answer is cached once the server gave one).
      provider.onSessionSwitch('sess-q', {});
      provider.syncTurn('Turn three.', 'Reply three.');
      await settle(provider);
      expect(retains(server).at(-1)?.items[0]).toMatchObject({
        document_id: 'sess-q',
        update_mode: 'append',
      });
    });

    it('a failed append is resent with the next turn (the watermark moves only on success)', async () => {
      const server = await fake();
      const { provider } = await started(server, { retainAsync: false }, { sessionId: 'sess-r' });
      server.fail({ type: 'status', status: 500, route: 'POST /v1/default/banks/:bank/memories' });
      provider.syncTurn('Lost?', 'No.');
      await settle(provider);
      provider.syncTurn('Second.', 'Yes.');
      await settle(provider);
      const last = retains(server).at(-1)?.items[0];
      expect(JSON.parse(last?.content ?? '')).toHaveLength(2);
      expect(server.state.documents[0]?.contents.join('')).toMatch(/Lost\?[\s\S]*Second/);
    });
  });

  it('§1.9.15 lineage tags merge with configured tags; metadata holds only populated fields', async () => {
    const server = await fake();
    const { provider } = await started(
      server,
      { retainTags: '["team", "hermes"]' },
      { sessionId: 'child', parentSessionId: 'parent-1', userId: 'u-7', chatType: 'dm' },
    );
    provider.syncTurn('Hello there.', 'Hi.');
    await settle(provider);
    const item = retains(server)[0]?.items[0];
    expect(item?.tags).toEqual(['team', 'hermes', 'session:child', 'parent:parent-1']);
    expect(Object.keys(item?.metadata ?? {}).sort()).toEqual(
      ['chat_type', 'message_count', 'platform', 'retained_at', 'session_id', 'turn_index', 'user_id'].sort(),
    );
    expect(item?.metadata.retained_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(item?.metadata).not.toHaveProperty('source');
    expect(item?.context).toBe('conversation between Hermes Agent and the User');

    const { provider: sourced } = await started(server, {}, { env: { HINDSIGHT_RETAIN_SOURCE: 'hermes' } });
    sourced.syncTurn('Tagged.', 'Yes.');
    await settle(sourced);
    expect(retains(server).at(-1)?.items[0]?.metadata.source).toBe('hermes');
  });

  it('§1.9.16 retains run one at a time, in order, on one writer; a failing retain does not stop later ones', async () => {
    const server = await fake();
    const { provider, logs } = await started(server, { retainAsync: false }, { sessionId: 'w-16' });
    server.fail({ type: 'status', status: 400, route: 'POST /v1/default/banks/:bank/memories' });
    for (let i = 1; i <= 4; i++) provider.syncTurn(`Message ${i}.`, `Reply ${i}.`);
    expect(provider.pendingWork).toBe(4);
    await settle(provider);
    expect(retains(server)).toHaveLength(4);
    expect(logs.contains(/Hindsight retain failed: .*HTTP 400/)).toBe(true);
    // In order: each request's newest turn is the next message.
    const newest = retains(server).map((r) => {
      const turns = JSON.parse(r.items[0]?.content ?? '[]') as Array<Array<{ content: string }>>;
      return turns.at(-1)?.[0]?.content;
    });
    expect(newest).toEqual(['User: Message 1.', 'User: Message 2.', 'User: Message 3.', 'User: Message 4.']);
    // Two providers on one bank in one process never retain at the same time either.
    const { provider: other } = await started(server, { retainAsync: false }, { sessionId: 'w-16b' });
    provider.syncTurn('A.', 'a');
    other.syncTurn('B.', 'b');
    await Promise.all([settle(provider), settle(other)]);
    expect(server.state.documents.map((d) => d.id).sort()).toEqual(['w-16', 'w-16b']);
  });

  it('§1.9.17 a session switch flushes buffered turns to the old document, then mints a new one', async () => {
    const server = await fake({ apiVersion: '0.4.0' });
    const { provider } = await started(server, { retainEveryNTurns: 3 }, { sessionId: 'old' });
    provider.syncTurn('Buffered one.', 'Ok.');
    provider.syncTurn('Buffered two.', 'Ok.');
    provider.onSessionSwitch('new', { parentSessionId: 'old', reset: true });
    provider.syncTurn('New session turn.', 'Ok.');
    provider.syncTurn('x', 'y');
    provider.syncTurn('z', 'w');
    await settle(provider);
    const [flush, next] = retains(server).map((r) => r.items[0]);
    expect(flush?.document_id).toMatch(/^old-/);
    expect(flush?.tags).toEqual(['session:old']);
    expect(JSON.parse(flush?.content ?? '')).toHaveLength(2);
    expect(next?.document_id).toMatch(/^new-/);
    expect(next?.tags).toEqual(['session:new', 'parent:old']);
    expect(JSON.parse(next?.content ?? '')).toHaveLength(3);
    expect(provider.onSessionSwitch('   ', {})).toBeUndefined();
  });

  it('§1.9.18 shutdown drains the writer within its deadline, joins prefetch, closes, and drops later turns', async () => {
    const server = await fake();
    const { provider } = await started(server, { retainAsync: false }, { sessionId: 's-18' });
    provider.syncTurn('Before shutdown.', 'Ok.');
    provider.queuePrefetch('before');
    await provider.shutdown({ timeoutMs: 5000 });
    expect(retains(server)).toHaveLength(1);
    expect(provider.pendingWork).toBe(0);
    provider.syncTurn('After shutdown.', 'Dropped.');
    expect(provider.pendingWork).toBe(0);
    expect(json(await provider.handleToolCall('hindsight_recall', { query: 'x' })).error).toMatch(
      /not configured/,
    );
    expect(retains(server)).toHaveLength(1);

    const hung = await fake();
    const { provider: stuck } = await started(hung, {}, { sessionId: 's-18b' });
    hung.fail({ type: 'timeout', count: 100 });
    stuck.syncTurn('Never delivered.', 'Ok.');
    const t0 = Date.now();
    await stuck.shutdown({ timeoutMs: 300 });
    expect(Date.now() - t0).toBeLessThan(1500);
  });

  it('§1.9.19 "saving to memory…" shows only when a retain is dispatched', async () => {
    const server = await fake();
    const { provider, statuses } = await started(server, { retainEveryNTurns: 2 });
    provider.syncTurn('one', 'a');
    expect(statuses).toEqual([]);
    provider.syncTurn('two', 'b');
    expect(statuses).toEqual([SAVING_STATUS]);
    expect(SAVING_STATUS).toBe('👁️ Hindsight — saving to memory…');
    const { provider: off, statuses: none } = await started(server, { retainIndicator: false });
    off.syncTurn('one', 'a');
    const { provider: manual, statuses: none2 } = await started(server, { autoRetain: false });
    manual.syncTurn('one', 'a');
    expect([...none, ...none2]).toEqual([]);
    const { provider: throwing } = await started(server, {
      onStatus: () => {
        throw new Error('status line broke');
      },
    });
    expect(() => throwing.syncTurn('one', 'a')).not.toThrow();
    await settle(throwing);
    expect(retains(server).length).toBeGreaterThanOrEqual(2);
  });

  it('§1.9.20 config.json is written 0600 and merged; profile file → legacy file → env; a corrupt file falls through', () => {
    const hermesHome = home();
    const userHome = home();
    const env = {
      HOME: userHome,
      HINDSIGHT_API_KEY: 'env-key',
      HINDSIGHT_BANK_ID: 'env-bank',
      HINDSIGHT_TIMEOUT: '33',
    };
    const make = () => new HindsightProvider({}, { hermesHome, env });
    // Env only.
    expect(make().settings).toMatchObject({
      source: 'env',
      bankId: 'env-bank',
      timeout: 33,
      apiKey: 'env-key',
    });
    // Legacy ~/.hindsight/config.json wins over env (its own keys; the key still comes from env).
    fs.mkdirSync(path.join(userHome, '.hindsight'), { recursive: true });
    fs.writeFileSync(
      path.join(userHome, '.hindsight', 'config.json'),
      JSON.stringify({ banks: { hermes: { bankId: 'legacy-bank', budget: 'high' } } }),
    );
    expect(make().settings).toMatchObject({
      source: 'legacy',
      bankId: 'legacy-bank',
      recallBudget: 'high',
      apiKey: 'env-key',
    });
    // The profile file wins over both, written 0600 and merged.
    saveHindsightConfig(hermesHome, { bank_id: 'profile-bank', api_key: 'never-written' });
    saveHindsightConfig(hermesHome, { memory_mode: 'tools' });
    const file = profileConfigPath(hermesHome);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      bank_id: 'profile-bank',
      memory_mode: 'tools',
    });
    expect(make().settings).toMatchObject({ source: 'profile', bankId: 'profile-bank', memoryMode: 'tools' });
    // A corrupt profile file falls through to the legacy one (with a warning), and is never overwritten.
    fs.writeFileSync(file, '{not json');
    const fallen = make().settings;
    expect(fallen.source).toBe('legacy');
    expect(fallen.warnings.join('\n')).toMatch(/not valid JSON/);
    expect(() => saveHindsightConfig(hermesHome, { bank_id: 'x' })).toThrow(/Refusing to overwrite/);
    // Invalid integers fall back to the default with a warning.
    const bad = new HindsightProvider(
      {},
      { hermesHome: home(), env: { HOME: home(), HINDSIGHT_TIMEOUT: 'soon' } },
    ).settings;
    expect(bad.timeout).toBe(120);
    expect(bad.warnings.join('\n')).toMatch(/Invalid integer Hindsight setting timeout/);
  });

  it('embedded mode is out of scope: local_embedded (and the legacy "local") is unavailable with a reason (decision 0951)', () => {
    for (const mode of ['local_embedded', 'local']) {
      const dir = home();
      fs.mkdirSync(path.join(dir, 'hindsight'));
      fs.writeFileSync(path.join(dir, 'hindsight', 'config.json'), JSON.stringify({ mode }));
      const provider = new HindsightProvider({}, { hermesHome: dir, env: { HOME: dir } });
      expect(provider.isAvailable()).toBe(false);
      expect(provider.unavailableReason()).toMatch(/local_external/);
    }
  });
});
