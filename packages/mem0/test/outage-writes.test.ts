import { createRecordingLogger, ManualClock } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { Mem0Provider } from '../src';
import { initContext, platformFake, platformSettings, tempHome, until } from './helpers';

/**
 * Writes under an outage and at the end of the process. Mem0 holds nothing (a write is one request;
 * the reference holds nothing either), so what matters is that no accepted write is lost silently:
 * each one Mem0 never confirmed is counted, shown by `health()`, and told at shutdown.
 */
async function outageProvider() {
  const fake = await platformFake();
  const clock = new ManualClock();
  const logger = createRecordingLogger();
  const provider = new Mem0Provider(platformSettings(fake, { clock }));
  await provider.initialize('s1', initContext(tempHome(), { logger }));
  const adds = () => fake.requestsTo('POST /v3/memories/add/').length;
  const warnings = () => logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
  return { fake, clock, logger, provider, adds, warnings };
}

describe('mem0 writes under outage and shutdown (§3.8.13, §3.8.19)', () => {
  it('turns and mirrored writes the backend refuses (503) are counted, in health() and at shutdown', async () => {
    const { fake, provider, warnings } = await outageProvider();
    fake.fail({ type: 'status', status: 503, count: 1000, path: '/v3/memories/add/' });
    provider.syncTurn('I drink oolong tea every morning.', 'Noted.');
    provider.syncTurn('My sister lives in Lisbon.', 'Noted.');
    provider.onMemoryWrite('add', 'user', 'Prefers short answers.');
    await provider.idle();
    // The writes behind the failed one wait for it (in order): only it is tried, once per write at most.
    const tried = fake.requestsTo('POST /v3/memories/add/').map((r) => JSON.stringify(r.body));
    expect(tried.length).toBeGreaterThanOrEqual(2);
    expect(tried.length).toBeLessThanOrEqual(3);
    expect(tried.every((body) => body.includes('oolong'))).toBe(true);
    expect(provider.undeliveredWrites).toBe(3);
    const health = provider.health();
    expect(health?.status).toBe('degraded');
    expect(health?.reason).toMatch(/last 3 write\(s\) were not delivered \(memory write: .*503/);
    expect(health?.reason).toMatch(/3 write\(s\) not delivered to Mem0 since start/);
    await provider.shutdown({ timeoutMs: 1000 });
    expect(
      warnings().some((w) => /Mem0: 3 write\(s\) accepted this session were not delivered/.test(w)),
    ).toBe(true);
  });

  it('a write Mem0 confirms again clears degraded; the failed one, then sent from the journal, leaves the count', async () => {
    const { fake, provider, warnings } = await outageProvider();
    fake.fail({ type: 'status', status: 503, count: 1, path: '/v3/memories/add/' });
    provider.syncTurn('I drink oolong tea every morning.', 'Noted.');
    await provider.idle();
    expect(provider.health()?.status).toBe('degraded');
    expect(provider.undeliveredWrites).toBe(1);
    provider.syncTurn('My sister lives in Lisbon.', 'Noted.');
    await provider.idle();
    expect(provider.health()).toBeNull();
    expect([provider.undeliveredWrites, provider.writesOnDisk]).toEqual([0, 0]);
    await provider.shutdown({ timeoutMs: 1000 });
    expect(warnings().filter((w) => /were not delivered/.test(w))).toHaveLength(0);
  });

  it('turns refused while the breaker is open are counted too (no request is made)', async () => {
    const { fake, provider, adds } = await outageProvider();
    fake.fail({ type: 'status', status: 503, count: 1000, path: '/v3/memories/search/' });
    for (let i = 0; i < 5; i++) await provider.handleToolCall('mem0_search', { query: 'tea' });
    expect(provider.health()?.status).toBe('down');
    const before = adds();
    provider.syncTurn('I drink oolong tea every morning.', 'Noted.');
    provider.onMemoryWrite('add', 'memory', 'The deploy runs on Fridays.');
    await provider.idle();
    expect(adds()).toBe(before);
    expect(provider.undeliveredWrites).toBe(2);
    expect(provider.health()?.reason).toMatch(/2 write\(s\) not delivered to Mem0 since start/);
    await provider.shutdown({ timeoutMs: 1000 });
  });

  it('a hung backend: skipped turns and the write abandoned at shutdown are in the warning', async () => {
    const { fake, clock, provider, adds, warnings } = await outageProvider();
    fake.fail({ type: 'timeout', count: 1000, path: '/v3/memories/add/' });
    provider.syncTurn('I drink oolong tea every morning.', 'Noted.');
    await until(() => fake.hanging >= 1, 'the first add to hang');
    provider.syncTurn('My sister lives in Lisbon.', 'Noted.');
    // The second turn waits 5 s for the first write, then is skipped (§3.8.19), not queued.
    await until(() => clock.nextTimerAt !== undefined, 'the skip timer');
    await clock.advance(5000);
    await until(() => provider.undeliveredWrites === 1, 'the skipped turn');
    expect(provider.health()?.reason).toMatch(/turn skipped: the previous write was still running/);
    expect(adds()).toBe(1);
    const shutdown = provider.shutdown({ timeoutMs: 1000 });
    await until(() => clock.nextTimerAt !== undefined, 'the shutdown wait');
    await clock.advance(1000);
    await shutdown;
    expect(
      warnings().some((w) =>
        /Mem0: 2 write\(s\) accepted this session were not delivered \(1 abandoned in flight at shutdown/.test(
          w,
        ),
      ),
    ).toBe(true);
  });
});

describe('mem0 redelivers within the run once Mem0 is reachable again (decision 0910)', () => {
  const sentTexts = (fake: Awaited<ReturnType<typeof platformFake>>) =>
    fake
      .requestsTo('POST /v3/memories/add/')
      .map((r) =>
        ((r.body as { messages: { content: string }[] }).messages ?? []).map((m) => m.content).join(' | '),
      );

  it('down → writes fail → up: a later write sends the journaled ones, in order, each once, then itself; the journal empties', async () => {
    const { fake, provider } = await outageProvider();
    fake.fail({ type: 'status', status: 503, count: 1000, path: '/v3/memories/add/' });
    provider.syncTurn('Turn A: I drink oolong tea.', 'Noted.');
    await provider.idle();
    provider.syncTurn('Turn B: my sister lives in Lisbon.', 'Noted.');
    await provider.idle();
    provider.onMemoryWrite('add', 'user', 'Write C: prefers short answers.');
    await provider.idle();
    expect(provider.writesOnDisk).toBe(3);
    expect(provider.health()?.status).toBe('degraded');
    const failed = sentTexts(fake).length;
    fake.clearFaults();
    provider.syncTurn('Turn D: the deploy runs on Fridays.', 'Noted.');
    await provider.idle();
    const after = sentTexts(fake).slice(failed);
    // Turn D is newer than the journaled writes: it goes after them, never before.
    expect(after.map((t) => t.slice(0, 7))).toEqual(['Turn A:', 'Turn B:', 'Write C', 'Turn D:']);
    expect(provider.writesOnDisk).toBe(0);
    await provider.journaled();
    expect(provider.health()).toBeNull();
    // Nothing is sent again: another success finds nothing waiting.
    provider.syncTurn('Turn E: likes hiking.', 'Noted.');
    await provider.idle();
    expect(sentTexts(fake).slice(failed)).toHaveLength(5);
    // Delivered after all: no longer counted as undelivered.
    expect(provider.undeliveredWrites).toBe(0);
    await provider.shutdown({ timeoutMs: 1000 });
  });

  it('writes refused while the breaker is open go out once it closes (a search went through), off the caller', async () => {
    const { fake, clock, provider, adds } = await outageProvider();
    fake.fail({ type: 'status', status: 503, count: 1000, path: '/v3/memories/search/' });
    for (let i = 0; i < 5; i++) await provider.handleToolCall('mem0_search', { query: 'tea' });
    expect(provider.health()?.status).toBe('down');
    provider.syncTurn('Turn A: I drink oolong tea.', 'Noted.');
    provider.onMemoryWrite('add', 'memory', 'Write B: the deploy runs on Fridays.');
    await provider.idle();
    expect([adds(), provider.writesOnDisk]).toEqual([0, 2]);
    fake.clearFaults();
    await clock.advance(120_000);
    expect(JSON.parse(await provider.handleToolCall('mem0_search', { query: 'tea' })).error).toBeUndefined();
    await provider.idle();
    expect(sentTexts(fake).map((t) => t.slice(0, 7))).toEqual(['Turn A:', 'Write B']);
    expect(provider.writesOnDisk).toBe(0);
    expect(provider.pendingWork).toBe(0);
    await provider.shutdown({ timeoutMs: 1000 });
  });
});
