import { ManualClock, MemoryManager } from '@hermes-memory/core';
import { collectLogs } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import { HindsightProvider } from '../src';
import { fake, home, json, KEY, retains, started } from './helpers';

const RECALL = 'POST /v1/default/banks/:bank/memories/recall';
const RETAIN = 'POST /v1/default/banks/:bank/memories';

/** Run `work` while advancing the manual clock, so retry backoffs and deadlines elapse without sleeping. */
async function runWithClock<T>(clock: ManualClock, work: () => Promise<T>): Promise<T> {
  let done = false;
  const running = work().finally(() => {
    done = true;
  });
  for (let i = 0; i < 10_000 && !done; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    const next = clock.nextTimerAt;
    if (next !== undefined && next - clock.now() <= 30_000) await clock.advance(next - clock.now());
  }
  return running;
}

const FAULTS = [
  ['a 503 with Retry-After', { type: 'status', status: 503, retryAfter: 1 }],
  ['a 500', { type: 'status', status: 500 }],
  ['a connection reset', { type: 'reset' }],
  ['a malformed body', { type: 'malformed' }],
  ['a truncated body', { type: 'truncated' }],
  ['a hung service', { type: 'timeout' }],
] as const;

describe('hindsight under faults', () => {
  it('a fault run through MemoryManager: no turn over its budget, tools always JSON, every turn stored once the service is back', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const logs = collectLogs();
    const hermesHome = home();
    const provider = new HindsightProvider(
      { apiKey: KEY, apiURL: server.url, timeout: 5, clock, recallTypes: ['world'] },
      { hermesHome, env: { HOME: hermesHome } },
    );
    const PREFETCH_BUDGET = 300;
    const memory = new MemoryManager({
      logger: logs.logger,
      externalPrefetchTimeoutMs: PREFETCH_BUDGET,
      toolCallTimeoutMs: 1500,
    });
    memory.addProvider(provider);
    await memory.initializeAll('fault-session', { hermesHome, platform: 'cli', env: { HOME: hermesHome } });
    let turn = 0;
    const said: string[] = [];
    for (const [name, fault] of FAULTS) {
      server.fail({ ...fault, count: 3 });
      await memory.onTurnStart(++turn, `question ${turn}`);
      const t0 = Date.now();
      const text = await memory.prefetchAll(`question ${turn}`);
      expect(typeof text, name).toBe('string');
      expect(Date.now() - t0, `${name}: prefetch`).toBeLessThan(PREFETCH_BUDGET + 700);
      const t1 = Date.now();
      const message = `Fact number ${turn} is ${name.replaceAll(' ', '-')}.`;
      memory.syncAll(message, 'Noted.');
      said.push(message);
      expect(Date.now() - t1, `${name}: syncAll`).toBeLessThan(50);
      memory.queuePrefetchAll(`question ${turn}`);
      for (const tool of ['hindsight_recall', 'hindsight_reflect', 'hindsight_retain'] as const) {
        const args = tool === 'hindsight_retain' ? { content: `Tool fact ${turn}.` } : { query: 'fact' };
        const answer = await runWithClock(clock, () => memory.handleToolCall(tool, args));
        expect(() => JSON.parse(answer), `${name}: ${tool}`).not.toThrow();
      }
      await runWithClock(clock, async () => {
        await memory.flushPending();
        await provider.idle();
      });
      server.clearFaults();
    }
    // The service is back: the next turn's retain carries every turn a fault kept from the session document.
    memory.syncAll('Fact after the storm.', 'Noted.');
    said.push('Fact after the storm.');
    await runWithClock(clock, async () => {
      await memory.flushPending();
      await provider.idle();
    });
    const stored = server.state.memories.filter((m) => m.type === 'world').map((m) => m.text);
    for (const message of said) expect(stored, message).toContain(message);
    expect(logs.contains(KEY)).toBe(false);
    expect(JSON.stringify(server.requests)).not.toContain(KEY);
    await memory.shutdownAll();
  });

  it('retries a 503 with Retry-After for reads and idempotent async retains, but not a 500 for a synchronous retain', async () => {
    const server = await fake();
    const clock = new ManualClock(0);
    const { provider } = await started(server, { clock }, { sessionId: 'retry-1' });
    server.fail({ type: 'status', status: 503, retryAfter: 1, route: RECALL });
    const answer = await runWithClock(clock, () =>
      provider.handleToolCall('hindsight_recall', { query: 'x' }),
    );
    expect(json(answer).result).toBe('No relevant memories found.');
    expect(server.requestsTo(RECALL).map((r) => r.status)).toEqual([503, 200]);
    expect(clock.now()).toBeGreaterThanOrEqual(1000);

    server.fail({ type: 'status', status: 500, count: 2, route: RETAIN });
    provider.syncTurn('Retried with the same operation id.', 'Ok.');
    await runWithClock(clock, () => provider.idle());
    const sent = retains(server);
    expect(sent).toHaveLength(3);
    expect(new Set(sent.map((r) => r.operation_id)).size).toBe(1);
    expect(
      server.state.memories.filter(
        (m) => m.type === 'world' && m.text === 'Retried with the same operation id.',
      ),
    ).toHaveLength(1);

    server.fail({ type: 'status', status: 500, route: RETAIN });
    const failed = json(await provider.handleToolCall('hindsight_retain', { content: 'One copy only.' }));
    expect(failed.error).toMatch(
      /^Failed to store memory: Hindsight: POST \/v1\/default\/banks\/hermes\/memories failed with HTTP 500/,
    );
    expect(retains(server)).toHaveLength(4);
    expect(provider.health()?.status).not.toBe('ok');
  });

  it('FastAPI errors read well: a 422 names the field, a {detail} string is quoted', async () => {
    const server = await fake();
    const { provider } = await started(server);
    const bad = json(
      await provider.handleToolCall('hindsight_retain', { content: 'x', occurred_at: 'not a date' }),
    );
    expect(bad.error).toMatch(/HTTP 422: body\.items\.0\.timestamp: Input should be a valid datetime/);
    server.fail({ type: 'status', status: 403, body: JSON.stringify({ detail: 'Bank is read-only' }) });
    expect(json(await provider.handleToolCall('hindsight_recall', { query: 'x' })).error).toMatch(
      /HTTP 403: Bank is read-only/,
    );
  });

  it('tools answer JSON for malformed arguments and unknown tools', async () => {
    const server = await fake();
    const { provider } = await started(server);
    for (const schema of provider.getToolSchemas()) {
      for (const args of [
        '{not json',
        '[1,2]',
        42,
        null,
        { content: 7, query: {} },
        { tags: 'not-a-list', content: 'x' },
      ]) {
        expect(typeof JSON.parse(await provider.handleToolCall(schema.name, args))).toBe('object');
      }
    }
    expect(json(await provider.handleToolCall('hindsight_nope', {})).error).toMatch(/Unknown tool/);
  });

  it('a hung service: recall_sync prefetch keeps the manager budget; tools time out as JSON; shutdown keeps its deadline', async () => {
    const server = await fake();
    const { provider } = await started(server, { recallSync: true, timeout: 1 }, { sessionId: 'hung-1' });
    server.fail({ type: 'timeout', count: 100 });
    const t0 = Date.now();
    expect(await provider.prefetch('where is the lighthouse', { signal: AbortSignal.timeout(200) })).toBe('');
    expect(Date.now() - t0).toBeLessThan(700);
    const t1 = Date.now();
    const result = json(
      await provider.handleToolCall(
        'hindsight_reflect',
        { query: 'x' },
        { signal: AbortSignal.timeout(300) },
      ),
    );
    expect(result.error).toMatch(/^Failed to reflect/);
    expect(Date.now() - t1).toBeLessThan(1000);
    provider.syncTurn('A turn the hung service will not get.', 'Indeed.');
    const t2 = Date.now();
    await provider.shutdown({ timeoutMs: 300 });
    expect(Date.now() - t2).toBeLessThan(1000);
    server.clearFaults();
  });

  it('a hung service through MemoryManager: shutdown abandons the stuck retain within its own deadline, so the manager never reports it timed out', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const logs = collectLogs();
    const hermesHome = home();
    const provider = new HindsightProvider(
      { apiKey: KEY, apiURL: server.url, timeout: 30, clock, recallTypes: ['world'] },
      { hermesHome, env: { HOME: hermesHome } },
    );
    const memory = new MemoryManager({ logger: logs.logger, clock, shutdownTimeoutMs: 5000 });
    memory.addProvider(provider);
    await memory.initializeAll('hung-shutdown', { hermesHome, platform: 'cli', env: { HOME: hermesHome } });
    server.fail({ type: 'timeout', route: RETAIN, count: 100 });
    memory.syncAll('A turn the hung service will not get.', 'Indeed.');
    // The turn is on disk first (real I/O, which this test's jumping clock would count as hung).
    while (provider.turnsOnDisk === 0) await new Promise((resolve) => setImmediate(resolve));
    await provider.journaled();
    const state = await runWithClock(clock, () => memory.shutdownAll());
    expect(state.timedOutProviders).toEqual([]);
    expect(logs.messages().join('\n')).not.toMatch(/shutdown failed/);
    expect(logs.messages().join('\n')).toMatch(/abandoning 1 pending retain/);
    server.clearFaults();
  });

  it('the SDK calls the global fetch as it is at call time (observable, fault-injectable)', async () => {
    const server = await fake();
    const { provider } = await started(server);
    const original = globalThis.fetch;
    const seen: string[] = [];
    globalThis.fetch = (input, init) => {
      seen.push(input instanceof Request ? `${input.method} ${input.url}` : String(input));
      return original(input, init);
    };
    try {
      await provider.handleToolCall('hindsight_recall', { query: 'observed' });
    } finally {
      globalThis.fetch = original;
    }
    expect(seen).toEqual([`POST ${server.url}/v1/default/banks/hermes/memories/recall`]);
    const headers = server.requestsTo(RECALL)[0]?.headers ?? {};
    expect(String(headers['user-agent'])).toMatch(/^hindsight-client-typescript\/0\.9\.1/);
    expect(headers.authorization).not.toContain(KEY);
  });

  it('the API key never reaches errors, logs or the fake’s recordings', async () => {
    const server = await fake();
    const { provider, logs } = await started(server, {}, { sessionId: 'secret-1' });
    server.fail({ type: 'status', status: 401, body: JSON.stringify({ detail: `bad key ${KEY}` }) });
    const result = await provider.handleToolCall('hindsight_recall', { query: 'x' });
    expect(result).toMatch(/HTTP 401/);
    expect(result).not.toContain(KEY);
    server.fail({ type: 'status', status: 500, count: 10, body: JSON.stringify({ detail: `boom ${KEY}` }) });
    provider.syncTurn('A message for the failing service.', 'Reply.');
    await provider.idle();
    expect(logs.contains(/Hindsight retain failed/)).toBe(true);
    expect(logs.contains(KEY)).toBe(false);
    expect(JSON.stringify(server.requests)).not.toContain(KEY);
  });

  it('a self-hosted server without auth: no Authorization header is sent', async () => {
    const server = await fake({ apiKey: null });
    const hermesHome = home();
    const provider = new HindsightProvider(
      { mode: 'local_external', apiURL: server.url },
      { hermesHome, env: { HOME: hermesHome } },
    );
    expect(provider.isAvailable()).toBe(true);
    provider.initialize('local-1', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      logger: collectLogs().logger,
      env: { HOME: hermesHome },
    });
    expect(
      json(await provider.handleToolCall('hindsight_retain', { content: 'Self-hosted fact.' })).result,
    ).toBe('Memory stored successfully.');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    await provider.shutdown();
  });
});
