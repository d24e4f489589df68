import { ManualClock } from '@hermes-memory/core';
import { collectLogs } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

const tick = () => new Promise((resolve) => setImmediate(resolve));
async function until(condition: () => boolean, rounds = 500): Promise<void> {
  for (let i = 0; i < rounds && !condition(); i++) await tick();
  expect(condition()).toBe(true);
}

describe('honcho under faults', () => {
  it('a 429 with Retry-After is retried after the server-given delay (injected clock), then succeeds', async () => {
    const clock = new ManualClock();
    rig = await startRig({ clock });
    const provider = rig.provider();
    await rig.init(provider);
    await provider.idle();
    rig.fake.fail({
      type: 'status',
      status: 429,
      retryAfter: 7,
      route: 'GET /v3/workspaces/:workspace/peers/:peer/card',
    });
    const answer = provider.handleToolCall('honcho_profile', {});
    const cards = () => rig.fake.requestsTo('GET /v3/workspaces/:workspace/peers/:peer/card');
    await until(() => cards().length === 1);
    await clock.advance(6_999);
    expect(cards()).toHaveLength(1);
    await clock.advance(1);
    expect(JSON.parse(await answer).result).toBe('No profile facts available yet.');
    expect(cards()).toHaveLength(2);
  });

  it('"turn" mode loses no write: a failed flush keeps the turn, the next flush sends it first, in order', async () => {
    rig = await startRig();
    const provider = rig.provider({ writeFrequency: 'turn' });
    await rig.init(provider);
    rig.fake.fail({ type: 'status', status: 500, path: '/messages' });
    await provider.syncTurn('first turn', 'first reply'); // resolves: never throws into the agent
    expect(rig.fake.messages(WORKSPACE, 'demo')).toEqual([]);
    await provider.syncTurn('second turn', 'second reply');
    expect(rig.fake.messages(WORKSPACE, 'demo').map((m) => m.content)).toEqual([
      'first turn',
      'first reply',
      'second turn',
      'second reply',
    ]);
  });

  it('malformed bodies, resets and hangs: prefetch stays in budget, tools answer JSON errors, health says so, the key never leaks', async () => {
    rig = await startRig();
    const logs = collectLogs();
    // Each fault's own error is asserted here; the breaker that would open on them has its own tests.
    const provider = rig.provider(
      { firstTurnBaseWait: 0.2, firstTurnDialecticWait: 0.2 },
      { breakerThreshold: 1000 },
    );
    await rig.init(provider, 's', { logger: logs.logger });
    await provider.idle();
    for (const fault of [
      { type: 'malformed' },
      { type: 'reset' },
      { type: 'status', status: 500 },
    ] as const) {
      rig.fake.fail({ ...fault, count: 20 });
      const out = JSON.parse(await provider.handleToolCall('honcho_search', { query: 'anything' }));
      expect(out.error).toMatch(
        /^Honcho honcho_search failed: Honcho: POST \/v3\/workspaces\/hermes\/(peers\/alice\/)?search/,
      );
      rig.fake.clearFaults();
    }
    rig.fake.fail({ type: 'timeout', count: 50 });
    provider.onTurnStart(1, 'x');
    const started = performance.now();
    expect(await provider.prefetch('what do I like?')).toBe('');
    expect(performance.now() - started).toBeLessThan(200 + 500);
    expect(provider.health()?.status).toMatch(/degraded|down/);
    const everything = [
      JSON.stringify(rig.fake.requests),
      logs.messages().join('\n'),
      JSON.stringify(provider.health()),
    ].join('\n');
    expect(everything).not.toContain(API_KEY);
    expect(rig.fake.requests.every((r) => r.headers.authorization === 'Bearer [redacted]')).toBe(true);
  }, 30_000); // 5xx and resets of reads are retried with real backoff (0.5 s, 1 s) before the tool gives up
});

describe('honcho init retries', () => {
  it('a failed session init is not restarted by every hook: later turns start no requests for INIT_RETRY_MS', async () => {
    rig = await startRig();
    rig.fake.fail({ type: 'status', status: 401, count: 1000 });
    const provider = rig.provider({ writeFrequency: 'session' });
    await rig.init(provider);
    await provider.idle();
    const after = rig.fake.requests.length;
    expect(after).toBeGreaterThan(0);
    for (let turn = 1; turn <= 5; turn++) {
      provider.onTurnStart(turn, 'q');
      await provider.prefetch('what do I like?');
      provider.queuePrefetch('what do I like?');
      await provider.syncTurn('hello there', 'hi');
    }
    await provider.idle();
    expect(rig.fake.requests.length).toBe(after);
    expect(provider.health()?.status).toBe('degraded');
  });
});
