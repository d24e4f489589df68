import { ManualClock, MemoryManager, silentLogger } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { Mem0Provider } from '../src';
import { platformFake, platformSettings, serverFake, serverSettings, tempHome, until } from './helpers';

async function managed(provider: Mem0Provider) {
  const memory = new MemoryManager({ logger: silentLogger });
  memory.addProvider(provider);
  await memory.initializeAll('s1', { hermesHome: tempHome(), platform: 'cli', env: {} });
  return memory;
}

describe('mem0 hot path', () => {
  it('initialize returns while the Platform ping hangs; nothing waits on it', async () => {
    const fake = await platformFake();
    fake.fail({ type: 'timeout', path: '/v1/ping/' });
    const provider = new Mem0Provider(platformSettings(fake));
    const memory = await managed(provider);
    await until(() => fake.hanging === 1, 'the hung ping');
    expect(JSON.parse(await memory.handleToolCall('mem0_search', { query: 'tea' }))).toEqual({
      result: 'No relevant memories found.',
    });
    await memory.shutdownAll();
  });

  it('after turn 1, prefetch never waits: a held search does not hold the turn; the previous turn recall is served', async () => {
    const fake = await platformFake();
    const clock = new ManualClock();
    const provider = new Mem0Provider(platformSettings(fake, { clock }));
    const memory = await managed(provider);
    await memory.handleToolCall('mem0_add', { content: 'The user is training for the Porto marathon.' });
    // turn 1: nothing prepared, the search is answered within the budget
    await memory.onTurnStart(1, 'marathon training plan');
    expect(await memory.prefetchAll('marathon training plan')).toContain('Porto marathon');
    // turn 2: its search is held; prefetch answers anyway, with nothing (no stale turn-1 repeat)
    const release = fake.hold('POST /v3/memories/search/');
    await memory.onTurnStart(2, 'marathon shoes');
    await until(() => fake.heldRequests() === 1, 'the held search');
    expect(await memory.prefetchAll('marathon shoes')).toBe('');
    expect(fake.heldRequests()).toBe(1);
    // the held search finishes while the model answers; turn 3 is served it without waiting
    release();
    await provider.idle();
    const release3 = fake.hold('POST /v3/memories/search/');
    await memory.onTurnStart(3, 'what pace should I run');
    await until(() => fake.heldRequests() === 1, 'the held turn-3 search');
    expect(await memory.prefetchAll('what pace should I run')).toContain('Porto marathon');
    release3();
    await memory.shutdownAll();
  });
});

describe('mem0 recall without onTurnStart', () => {
  it('a host that never calls onTurnStart still gets recall, one turn behind, never waiting after turn 1', async () => {
    const fake = await platformFake();
    const provider = new Mem0Provider(platformSettings(fake));
    const memory = await managed(provider);
    await memory.handleToolCall('mem0_add', { content: 'The user grows chillies on the balcony.' });
    expect(await memory.prefetchAll('chillies balcony')).toContain('grows chillies'); // turn 1 waits
    const release = fake.hold('POST /v3/memories/search/');
    expect(await memory.prefetchAll('balcony chillies harvest')).toBe(''); // started, not awaited
    await until(() => fake.heldRequests() === 1, 'the held search');
    release();
    await provider.idle();
    expect(await memory.prefetchAll('something else entirely')).toContain('grows chillies');
    await provider.idle();
    expect(fake.requestsTo('POST /v3/memories/search/')).toHaveLength(3);
    await memory.shutdownAll();
  });
});

const FAULTS = [
  { type: 'status', status: 503, retryAfter: 1 },
  { type: 'status', status: 500 },
  { type: 'reset' },
  { type: 'malformed' },
  { type: 'truncated' },
] as const;

describe('mem0 under backend faults (both backends)', () => {
  for (const kind of ['platform', 'selfhosted'] as const) {
    it(`${kind}: tools answer JSON, sync and prefetch return, the breaker opens and closes on the clock`, async () => {
      const fake = kind === 'platform' ? await platformFake() : await serverFake();
      const clock = new ManualClock();
      const settings =
        kind === 'platform' ? platformSettings(fake, { clock }) : serverSettings(fake, { clock });
      // self-hosted retries (2 per call) back off on the clock: let them through without sleeping
      const provider = new Mem0Provider({ ...settings });
      const memory = await managed(provider);
      let turn = 0;
      for (const fault of FAULTS) {
        fake.fail({ ...fault, count: 3 });
        const answers = await Promise.all([
          runWithClock(clock, () => memory.handleToolCall('mem0_search', { query: 'tea' })),
          runWithClock(clock, () => memory.handleToolCall('mem0_add', { content: 'Likes tea.' })),
        ]);
        for (const answer of answers) expect(() => JSON.parse(answer)).not.toThrow();
        await memory.onTurnStart(++turn, 'tea');
        expect(typeof (await memory.prefetchAll('tea'))).toBe('string');
        memory.syncAll('I drink tea daily.', 'ok');
        // The turn's write and any redelivery it starts settle before the next fault is injected.
        await runWithClock(clock, () => provider.idle(60_000));
        await runWithClock(clock, () => provider.idle(60_000));
        fake.clearFaults();
      }
      // a hung backend: the calls are abandoned at their deadline (the SDK cannot cancel)
      fake.fail({ type: 'timeout', count: 10 });
      const hung = memory.handleToolCall('mem0_search', { query: 'tea' });
      await until(() => fake.hanging >= 1, 'a hung request');
      await clock.advance(30_000);
      expect(JSON.parse(await hung).error).toMatch(/timed out/);
      fake.clearFaults();
      // five counted failures open the breaker; after the cooldown a call goes through again
      fake.fail({ type: 'status', status: 500, count: 100 });
      for (let i = 0; i < 6; i++)
        await runWithClock(clock, () => memory.handleToolCall('mem0_search', { query: 'x' }));
      expect(provider.health()?.status).toBe('down');
      expect(memory.getProviderHealth('mem0')?.status).toBe('down');
      fake.clearFaults();
      await clock.advance(120_000);
      expect(JSON.parse(await memory.handleToolCall('mem0_search', { query: 'tea' })).error).toBeUndefined();
      // The breaker closed: the writes the outage left on disk go out in the background.
      await runWithClock(clock, () => provider.idle(60_000));
      expect(provider.writesOnDisk).toBe(0);
      expect(provider.health()).toBeNull();
      await memory.shutdownAll();
    });
  }
});

/** Run `work` while advancing the manual clock, so retry backoffs elapse without real sleeping. */
async function runWithClock<T>(clock: ManualClock, work: () => Promise<T>): Promise<T> {
  let done = false;
  const running = work().finally(() => {
    done = true;
  });
  for (let i = 0; i < 10_000 && !done; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (clock.nextTimerAt !== undefined && clock.nextTimerAt - clock.now() < 10_000) {
      await clock.advance(clock.nextTimerAt - clock.now());
    }
  }
  return running;
}
