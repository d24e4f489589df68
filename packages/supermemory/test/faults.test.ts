import { ManualClock, MemoryManager } from '@hermes-memory/core';
import { collectLogs } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import { SupermemoryProvider } from '../src';
import { FAKE_NOW, fake, home, json, KEY, started } from './helpers';

// A failing service never stops the agent: every hook keeps its budget, tools answer JSON, the
// session ingest is retried within its deadline, and the key reaches no log or error.
describe('supermemory under faults', () => {
  it('retries a 503 with Retry-After for reads and the session ingest, and not a 500 for a new document', async () => {
    const server = await fake();
    const { provider } = await started(server, {}, { sessionId: 'retry-1' });
    server.fail({ type: 'status', status: 503, retryAfter: 0, route: 'POST /v4/search' });
    expect(json(await provider.handleToolCall('supermemory_search', { query: 'anything' })).count).toBe(0);
    expect(server.requestsTo('/v4/search').map((r) => r.status)).toEqual([503, 200]);

    server.fail({ type: 'status', status: 503, retryAfter: 0, count: 2, route: 'POST /v4/conversations' });
    provider.syncTurn('We talked about the lighthouse keeper.', 'Yes, the keeper.');
    await provider.onSessionEnd([]);
    expect(server.requestsTo('/v4/conversations').map((r) => r.status)).toEqual([503, 503, 200]);
    expect(server.state.documents.some((d) => d.customId === 'retry-1')).toBe(true);

    // A 500 on a write may have been acted on: not repeated (no duplicate document).
    server.fail({ type: 'status', status: 500, route: 'POST /v3/documents' });
    const failed = json(await provider.handleToolCall('supermemory_store', { content: 'One copy only.' }));
    expect(failed.error).toMatch(
      /^Failed to store memory: Supermemory: POST \/v3\/documents failed with HTTP 500/,
    );
    expect(server.requestsTo('/v3/documents')).toHaveLength(1);
    expect(provider.health()?.status).not.toBe('healthy');
  });

  it.each([
    ['a connection reset', { type: 'reset' as const }],
    ['a malformed body', { type: 'malformed' as const }],
    ['a 502', { type: 'status' as const, status: 502 }],
  ])('every tool answers JSON on %s', async (_name, fault) => {
    const server = await fake();
    const { provider, logs } = await started(server);
    for (const [tool, args] of [
      ['supermemory_store', { content: 'A fact worth keeping.' }],
      ['supermemory_search', { query: 'fact' }],
      ['supermemory_forget', { query: 'fact' }],
      ['supermemory_profile', {}],
    ] as const) {
      server.fail({ ...fault, count: 3 });
      const result = json(await provider.handleToolCall(tool, args));
      expect(result.error, `${tool}: ${JSON.stringify(result)}`).toMatch(/failed|Failed/);
      server.clearFaults();
    }
    expect(logs.contains(KEY)).toBe(false);
  });

  it('tools answer JSON for malformed arguments', async () => {
    const server = await fake();
    const { provider } = await started(server);
    for (const schema of provider.getToolSchemas()) {
      for (const args of [
        '{not json',
        '[1,2]',
        42,
        null,
        { content: 7, query: {} },
        { limit: 'many', query: 'x' },
      ]) {
        const result = JSON.parse(await provider.handleToolCall(schema.name, args));
        expect(typeof result).toBe('object');
      }
    }
    expect(json(await provider.handleToolCall('supermemory_nope', {})).error).toMatch(/Unknown tool/);
  });

  it('a hung service: prefetch keeps the manager budget, tools time out as JSON, shutdown keeps its deadline', async () => {
    const server = await fake();
    const { provider } = await started(server, { apiTimeout: 0.5 }, { sessionId: 'hung-1' });
    server.fail({ type: 'timeout', count: 100 });
    const t0 = Date.now();
    expect(await provider.prefetch('where is the lighthouse', { signal: AbortSignal.timeout(200) })).toBe('');
    expect(Date.now() - t0).toBeLessThan(700);
    const t1 = Date.now();
    const result = json(
      await provider.handleToolCall('supermemory_profile', {}, { signal: AbortSignal.timeout(300) }),
    );
    expect(result.error).toMatch(/^Profile failed/);
    expect(Date.now() - t1).toBeLessThan(1000);
    provider.syncTurn('A turn the hung service will not get.', 'Indeed.');
    const t2 = Date.now();
    await provider.shutdown({ timeoutMs: 300 });
    expect(Date.now() - t2).toBeLessThan(1000);
    server.clearFaults();
  });

  it('the SDK calls the global fetch as it is at call time (observable, fault-injectable)', async () => {
    const server = await fake();
    const { provider } = await started(server);
    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = (input, init) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return original(input, init);
    };
    try {
      await provider.handleToolCall('supermemory_search', { query: 'observed' });
    } finally {
      globalThis.fetch = original;
    }
    expect(seen).toEqual([`${server.url}/v4/search`]);
  });

  it('the API key never reaches errors, logs or the fake’s recordings', async () => {
    const server = await fake();
    const { provider, logs } = await started(server, {}, { sessionId: 'secret-1' });
    server.fail({ type: 'status', status: 401, body: JSON.stringify({ error: `bad key ${KEY}` }) });
    const result = await provider.handleToolCall('supermemory_search', { query: 'x' });
    expect(result).not.toContain(KEY);
    server.fail({ type: 'status', status: 500, count: 5, body: JSON.stringify({ error: `boom ${KEY}` }) });
    provider.syncTurn('A message long enough to be ingested.', 'Reply.');
    await provider.onSessionEnd([]);
    expect(logs.contains(KEY)).toBe(false);
    expect(logs.contains(/session ingest failed/)).toBe(true);
    expect(JSON.stringify(server.requests)).not.toContain(KEY);
  });
});

describe('supermemory circuit breaker (a dead service is not asked every turn)', () => {
  // 500 on a new document is not retried (it may have been acted on): one request, one failure.
  const failStore = async (provider: SupermemoryProvider, n: number) => {
    for (let i = 0; i < n; i++)
      expect(
        json(await provider.handleToolCall('supermemory_store', { content: `Fact ${i}.` })).error,
      ).toMatch(/^Failed to store memory/);
  };

  /**
   * Open the breaker, let the cooldown pass, and send a search that reaches the hung service as the
   * half-open trial; then abort that call's signal with `reason`.
   */
  const trialCutShort = async (sessionId: string, reason: unknown) => {
    const server = await fake();
    const clock = new ManualClock(FAKE_NOW);
    const { provider } = await started(server, { clock }, { sessionId });
    server.fail({ type: 'status', status: 500, count: 5, route: 'POST /v3/documents' });
    await failStore(provider, 5);
    expect(provider.health()).toMatchObject({ status: 'down', consecutiveFailures: 5 });

    await clock.advance(120_000);
    server.fail({ type: 'timeout', count: 1, route: 'POST /v4/search' });
    const sent = server.requests.length;
    const caller = new AbortController();
    const call = provider.handleToolCall('supermemory_search', { query: 'x' }, { signal: caller.signal });
    for (let i = 0; i < 200 && server.requests.length === sent; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(server.requests.length).toBe(sent + 1); // the trial reached the (hung) service
    caller.abort(reason);
    expect(json(await call).error).toMatch(/^Search failed/);
    return { provider, server };
  };

  it('opens after 5 failed requests: tools answer JSON, recall and writes send nothing until the cooldown; one trial then closes it', async () => {
    const server = await fake();
    const clock = new ManualClock(FAKE_NOW);
    const { provider, logs } = await started(server, { clock }, { sessionId: 'breaker-1' });
    server.fail({ type: 'status', status: 500, count: 5, route: 'POST /v3/documents' });
    await failStore(provider, 5);
    expect(provider.health()).toMatchObject({ status: 'down', consecutiveFailures: 5 });
    expect(provider.health()?.reason).toMatch(/paused after 5 consecutive failures; next try in 120 s/);
    expect(logs.contains(/pausing requests for 120 s/)).toBe(true);

    const before = server.requests.length;
    const refused = json(await provider.handleToolCall('supermemory_search', { query: 'anything' }));
    expect(refused.error).toMatch(/Supermemory is unavailable after 5 consecutive failures/);
    provider.onTurnStart(1, 'where did I leave the keys?');
    await provider.idle();
    expect(await provider.prefetch('where did I leave the keys?')).toBe('');
    provider.onMemoryWrite('add', 'user', 'Keys are in the blue bowl.');
    await provider.idle();
    expect(server.requests.length).toBe(before);

    // After the cooldown one trial goes out; the service answers, so requests resume.
    await clock.advance(120_000);
    expect(json(await provider.handleToolCall('supermemory_search', { query: 'keys' })).count).toBe(0);
    expect(server.requests.length).toBe(before + 1);
    expect(provider.health()?.status).not.toBe('down');
    expect(
      json(await provider.handleToolCall('supermemory_store', { content: 'Keys in the bowl.' })).saved,
    ).toBe(true);
  });

  it('a failed trial keeps it open for another cooldown', async () => {
    const server = await fake();
    const clock = new ManualClock(FAKE_NOW);
    const { provider } = await started(server, { clock, breakerThreshold: 2, breakerCooldownMs: 10_000 });
    server.fail({ type: 'status', status: 500, count: 3, route: 'POST /v3/documents' });
    await failStore(provider, 2);
    await clock.advance(10_000);
    await failStore(provider, 1); // the trial, failing
    expect(provider.health()).toMatchObject({ status: 'down' });
    const before = server.requests.length;
    await failStore(provider, 1); // refused without a request
    expect(server.requests.length).toBe(before);
    await clock.advance(10_000);
    expect(json(await provider.handleToolCall('supermemory_store', { content: 'Back.' })).saved).toBe(true);
  });

  it('a half-open trial its own caller aborted decides nothing: still not closed, the next request is the trial and a failing one reopens it', async () => {
    const { provider, server } = await trialCutShort('breaker-abort', new Error('the user pressed stop'));

    // No verdict yet: the next request is the trial again; it fails and reopens the breaker.
    server.fail({ type: 'status', status: 500, count: 5, route: 'POST /v3/documents' });
    const before = server.requests.length;
    await failStore(provider, 1);
    expect(server.requests.length).toBe(before + 1);
    // The five that opened it and the failed trial: the aborted one counted nothing.
    expect(provider.health()?.reason).toMatch(/paused after 6 consecutive failures; next try in 120 s/);
    const refused = json(await provider.handleToolCall('supermemory_search', { query: 'y' }));
    expect(refused.error).toMatch(/Supermemory is unavailable after 6 consecutive failures/);
    expect(server.requests.length).toBe(before + 1);
  });

  it('a half-open trial cut short by an AbortSignal.timeout() deadline counts like core’s: it reopens the breaker for a full cooldown', async () => {
    // What `AbortSignal.timeout()` aborts with: a deadline, not a caller that stopped.
    const { provider, server } = await trialCutShort(
      'breaker-deadline',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
    );
    const sent = server.requests.length;
    const refused = json(await provider.handleToolCall('supermemory_search', { query: 'y' }));
    expect(refused.error).toMatch(
      /Supermemory is unavailable after 6 consecutive failures; the next request goes out in 120 s\./,
    );
    expect(server.requests.length).toBe(sent);
    expect(provider.health()?.status).toBe('down');
  });

  it('client errors (the service answered) and our own aborts do not count; the connection probe ignores it', async () => {
    const server = await fake();
    const clock = new ManualClock(FAKE_NOW);
    const { provider } = await started(server, { clock, breakerThreshold: 2 });
    server.fail({ type: 'status', status: 400, count: 5, route: 'POST /v3/documents' });
    await failStore(provider, 5);
    server.fail({ type: 'timeout', count: 3, route: 'POST /v4/search' });
    for (let i = 0; i < 3; i++) {
      const stop = new AbortController();
      const call = provider.handleToolCall('supermemory_search', { query: 'x' }, { signal: stop.signal });
      stop.abort(new Error('the user pressed stop'));
      expect(json(await call).error).toMatch(/^Search failed/);
    }
    expect(provider.health()?.status).not.toBe('down');
    server.clearFaults();
    server.fail({ type: 'status', status: 500, count: 2, route: 'POST /v3/documents' });
    await failStore(provider, 2);
    expect(provider.health()).toMatchObject({ status: 'down' });
    expect((await provider.probe()).status).toBe('ok');
  });

  it('a hung service through MemoryManager: shutdown abandons the session ingest within its own deadline, so the manager never reports it timed out', async () => {
    const server = await fake();
    const clock = new ManualClock(FAKE_NOW);
    const logs = collectLogs();
    const hermesHome = home();
    const provider = new SupermemoryProvider(
      { apiKey: KEY, baseURL: server.url, apiTimeout: 30, retryBaseDelayMs: 0, clock },
      { hermesHome, env: {} },
    );
    const memory = new MemoryManager({ logger: logs.logger, clock, shutdownTimeoutMs: 5000 });
    memory.addProvider(provider);
    await memory.initializeAll('hung-shutdown', { hermesHome, platform: 'cli', env: {} });
    memory.syncAll('We talked about the lighthouse keeper.', 'Yes, the keeper.');
    // The turn is on disk first (real I/O, which this test's jumping clock would count as hung).
    while (provider.writesOnDisk === 0) await new Promise((resolve) => setImmediate(resolve));
    await provider.journaled();
    server.fail({ type: 'timeout', count: 100 });
    const shutdown = memory.shutdownAll();
    let done = false;
    void shutdown.finally(() => {
      done = true;
    });
    for (let i = 0; i < 2000 && !done; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      const next = clock.nextTimerAt;
      if (next !== undefined) await clock.advance(Math.max(0, next - clock.now()));
    }
    const state = await shutdown;
    expect(state.timedOutProviders).toEqual([]);
    expect(logs.messages().join('\n')).not.toMatch(/shutdown failed/);
    server.clearFaults();
  });
});
