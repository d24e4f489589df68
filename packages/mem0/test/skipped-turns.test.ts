/**
 * Turns skipped behind a stuck write (§3.8.19: skipped, not queued) are journaled like every
 * accepted write; once that write ended and Mem0 answers, this run sends them from the journal in
 * the background, in order, once — never on `syncTurn`'s path. What a shutdown leaves goes with
 * the next start; the cap on waiting writes still bounds them. Official SDK, Platform fake,
 * injected clock.
 */
import { createRecordingLogger, ManualClock } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { Mem0Provider } from '../src';
import { mem0WritesOnDisk } from '../src/outbox';
import { MAX_WAITING_WRITES } from '../src/provider';
import { initContext, PLATFORM_KEY, platformFake, platformSettings, tempHome, until } from './helpers';

const ADD = 'POST /v3/memories/add/';
type Fake = Awaited<ReturnType<typeof platformFake>>;

/** The first message of every add request the fake received (answered or not), in arrival order. */
const requested = (fake: Fake) =>
  fake.requestsTo(ADD).map((r) => (r.body as { messages: Array<{ content: string }> }).messages[0]!.content);
/** The first message of each add Mem0 accepted, in arrival order. */
const stored = (fake: Fake) =>
  fake
    .requestsTo(ADD)
    .filter((r) => r.status === 200)
    .map((r) => (r.body as { messages: Array<{ content: string }> }).messages[0]!.content);
const turn = (n: number) => `user turn ${n} is about tea.`;

async function start(fake: Fake, home = tempHome(), clock = new ManualClock()) {
  const provider = new Mem0Provider(platformSettings(fake, { clock }));
  await provider.initialize('s1', initContext(home));
  return { provider, clock, home };
}

/** Turn 1's add held at the fake; turn 2 skipped after its 5 s wait; `more` later turns skipped at once. */
async function stuckWithSkippedTurns(fake: Fake, more: number) {
  const started = await start(fake);
  const release = fake.hold(ADD);
  started.provider.syncTurn(turn(1), 'ok');
  await until(() => fake.heldRequests() === 1, 'the held add');
  started.provider.syncTurn(turn(2), 'ok');
  await started.clock.advance(5000);
  for (let n = 3; n < 3 + more; n++) started.provider.syncTurn(turn(n), 'ok');
  await until(() => started.provider.skippedTurns === 1 + more, 'the skipped turns');
  return { ...started, release };
}

describe('mem0: turns skipped behind a stuck write are sent once it ended (§3.8.19)', () => {
  it('§3.8.19 a stuck write that fails: the skipped turns wait until Mem0 answers again, then go out with it, before the newer turn, once', async () => {
    const fake = await platformFake();
    const { provider, clock } = await start(fake);
    fake.fail({ type: 'timeout', count: 1, path: '/v3/memories/add/' });
    provider.syncTurn(turn(0), 'ok');
    await until(() => fake.hanging >= 1, 'the first add to hang');
    for (let n = 1; n <= 3; n++) provider.syncTurn(turn(n), 'ok');
    await clock.advance(5000);
    await until(() => provider.skippedTurns === 3, 'the skipped turns');
    // The stuck add reaches its 30 s deadline: it failed, so nothing is sent on its heels.
    await clock.advance(25_000);
    await until(() => provider.undeliveredWrites === 4, 'the failed add');
    await provider.idle();
    expect(requested(fake)).toEqual([turn(0)]);
    expect(provider.writesOnDisk).toBe(4);
    // Turn 4 is newer than everything waiting: it goes last, behind the failed write and the
    // skipped turns, never before them (Mem0 would judge an older fact against a newer one).
    provider.syncTurn(turn(4), 'ok');
    await until(() => provider.writesOnDisk === 0, 'the journal to empty');
    await provider.idle();
    expect(stored(fake)).toEqual([turn(0), turn(1), turn(2), turn(3), turn(4)]);
    expect(requested(fake).slice(1)).toEqual([turn(0), turn(1), turn(2), turn(3), turn(4)]);
    expect([provider.undeliveredWrites, provider.skippedTurns]).toEqual([0, 3]);
    expect(provider.health()).toBeNull();
    await provider.shutdown({ timeoutMs: 1000 });
  });

  it('§3.8.19 a stuck write then shutdown: the skipped turns stay in the journal and the next start sends them once', async () => {
    const fake = await platformFake();
    const a = await stuckWithSkippedTurns(fake, 1);
    expect(requested(fake)).toEqual([turn(1)]);
    const stopping = a.provider.shutdown({ timeoutMs: 1000 });
    await a.clock.advance(1000);
    await stopping;
    // The held add was abandoned at shutdown; the run sends nothing after it, whatever happens.
    a.release();
    await until(() => fake.heldRequests() === 0, 'the released add');
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(requested(fake)).toEqual([turn(1)]);
    expect(mem0WritesOnDisk(a.home)).toBe(3);

    const b = await start(fake, a.home);
    await until(() => b.provider.writesOnDisk === 0, 'the earlier run sent');
    await b.provider.idle();
    // Turn 1 was abandoned in flight (at least once: it may be sent again); turns 2 and 3, once.
    expect(requested(fake).filter((t) => t !== turn(1))).toEqual([turn(2), turn(3)]);
    expect(requested(fake).slice(-3)).toEqual([turn(1), turn(2), turn(3)]);
    await b.provider.shutdown({ timeoutMs: 1000 });
    expect(mem0WritesOnDisk(a.home)).toBe(0);
    const c = await start(fake, a.home);
    await c.provider.idle();
    expect(requested(fake).filter((t) => t !== turn(1))).toEqual([turn(2), turn(3)]);
    await c.provider.shutdown({ timeoutMs: 1000 });
  });

  it('§3.8.19 skipped turns delivered within the run are crossed off: a restart sends none of them again', async () => {
    const fake = await platformFake();
    const a = await stuckWithSkippedTurns(fake, 1);
    a.release();
    await until(() => a.provider.writesOnDisk === 0, 'the skipped turns delivered');
    await a.provider.shutdown({ timeoutMs: 1000 });
    expect(stored(fake)).toEqual([turn(1), turn(2), turn(3)]);
    expect(mem0WritesOnDisk(a.home)).toBe(0);
    const b = await start(fake, a.home);
    await b.provider.idle();
    await b.provider.shutdown({ timeoutMs: 1000 });
    expect(requested(fake)).toEqual([turn(1), turn(2), turn(3)]);
  });

  it(`§3.8.19 skipped turns stay bounded: past ${MAX_WAITING_WRITES} waiting the oldest drop (counted); the rest go out in order, once`, async () => {
    const fake = await platformFake();
    const total = MAX_WAITING_WRITES + 3;
    const { provider, release } = await stuckWithSkippedTurns(fake, total - 2);
    // Turns 1 (in flight), 2 and 3 left the journal over the cap.
    expect(provider.writesOnDisk).toBe(MAX_WAITING_WRITES);
    expect(provider.health()?.reason).toMatch(/3 older one\(s\) dropped over the cap of 1000/);
    expect(requested(fake)).toEqual([turn(1)]);
    release();
    await until(() => provider.writesOnDisk === 0, 'the skipped turns delivered', 200_000);
    await provider.idle();
    const expected = Array.from({ length: total - 3 }, (_, i) => turn(i + 4));
    expect(stored(fake)).toEqual([turn(1), ...expected]);
    // The two dropped skipped turns were never delivered: still counted, and told.
    expect(provider.undeliveredWrites).toBe(2);
    await provider.shutdown({ timeoutMs: 1000 });
  });
});

describe('mem0: a late-delivered write is never overtaken by a newer one (decision 0910)', () => {
  it('a stuck write that succeeds: turn 4, arriving while the skipped turns are being sent, goes after them, each once', async () => {
    const fake = await platformFake();
    const { provider, clock } = await start(fake);
    const releaseStuck = fake.hold(ADD);
    provider.syncTurn(turn(0), 'ok');
    await until(() => fake.heldRequests() === 1, 'the held add');
    for (let n = 1; n <= 3; n++) provider.syncTurn(turn(n), 'ok');
    await clock.advance(5000);
    await until(() => provider.skippedTurns === 3, 'the skipped turns');
    // The stuck write goes through; the redelivery of turn 1 is held at the fake meanwhile.
    const releaseFirst = fake.hold(ADD);
    releaseStuck();
    await until(() => fake.heldRequests() === 1 && requested(fake).length === 2, 'turn 1 resent and held');
    provider.syncTurn(turn(4), 'ok');
    await provider.journaled();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    // syncTurn returned at once and sent nothing: turn 4 waits for the older turns.
    expect(requested(fake)).toEqual([turn(0), turn(1)]);
    releaseFirst();
    await until(() => provider.writesOnDisk === 0, 'the journal to empty');
    await provider.idle();
    expect(requested(fake)).toEqual([turn(0), turn(1), turn(2), turn(3), turn(4)]);
    expect(stored(fake)).toEqual([turn(0), turn(1), turn(2), turn(3), turn(4)]);
    expect([provider.undeliveredWrites, provider.skippedTurns]).toEqual([0, 3]);
    await provider.shutdown({ timeoutMs: 1000 });
  });

  it('a failed write goes out before the turn after it, which waits for it in the journal', async () => {
    const fake = await platformFake();
    const { provider } = await start(fake);
    fake.fail({ type: 'status', status: 503, count: 1, path: '/v3/memories/add/' });
    provider.syncTurn('I live in Paris.', 'ok');
    await provider.idle();
    expect(provider.undeliveredWrites).toBe(1);
    provider.syncTurn('I moved to Berlin.', 'ok');
    await until(() => provider.writesOnDisk === 0, 'the journal to empty');
    await provider.idle();
    expect(stored(fake)).toEqual(['I live in Paris.', 'I moved to Berlin.']);
    expect(requested(fake)).toEqual(['I live in Paris.', 'I live in Paris.', 'I moved to Berlin.']);
    expect([provider.undeliveredWrites, provider.health()]).toEqual([0, null]);
    await provider.shutdown({ timeoutMs: 1000 });
  });

  it('Mem0 still down: a turn behind the failed write is not sent, and is counted once the retry of the older one fails', async () => {
    const fake = await platformFake();
    const { provider } = await start(fake);
    fake.fail({ type: 'status', status: 503, count: 2, path: '/v3/memories/add/' });
    provider.syncTurn('I live in Paris.', 'ok');
    await provider.idle();
    provider.syncTurn('I moved to Berlin.', 'ok');
    await until(() => provider.undeliveredWrites === 2, 'the turn behind it counted');
    await provider.idle();
    // One request per turn, as before: the older write, tried again; the newer turn never went out.
    expect(requested(fake)).toEqual(['I live in Paris.', 'I live in Paris.']);
    expect(provider.health()?.reason).toMatch(
      /last 2 write\(s\) were not delivered \(turn: held behind an undelivered write \(.*503/,
    );
    provider.syncTurn('I work from home.', 'ok');
    await until(() => provider.writesOnDisk === 0, 'the journal to empty');
    await provider.idle();
    expect(stored(fake)).toEqual(['I live in Paris.', 'I moved to Berlin.', 'I work from home.']);
    expect(provider.undeliveredWrites).toBe(0);
    await provider.shutdown({ timeoutMs: 1000 });
  });

  it('a turn waiting behind an older write at shutdown is counted, stays on disk, and the next start sends both in order', async () => {
    const fake = await platformFake();
    const logger = createRecordingLogger();
    const home = tempHome();
    const clock = new ManualClock();
    const a = new Mem0Provider(platformSettings(fake, { clock }));
    await a.initialize('s1', initContext(home, { logger }));
    fake.fail({ type: 'status', status: 503, count: 1, path: '/v3/memories/add/' });
    a.syncTurn('I live in Paris.', 'ok');
    await a.idle();
    const release = fake.hold(ADD);
    a.syncTurn('I moved to Berlin.', 'ok');
    await until(() => fake.heldRequests() === 1, 'the older write resent and held');
    const stopping = a.shutdown({ timeoutMs: 1000 });
    await until(() => clock.nextTimerAt !== undefined, 'the shutdown wait');
    await clock.advance(1000);
    await stopping;
    const warned = logger.records.filter((r) => r.level === 'warn').map((r) => r.message);
    expect(warned.some((w) => /Mem0: 2 write\(s\) accepted this session were not delivered/.test(w))).toBe(
      true,
    );
    expect(mem0WritesOnDisk(home)).toBe(2);
    release();
    await until(() => fake.heldRequests() === 0, 'the released add');
    const b = await start(fake, home);
    await until(() => b.provider.writesOnDisk === 0, 'the earlier run sent');
    await b.provider.idle();
    // At least once: the add abandoned at shutdown is sent again, and the newer turn after it.
    expect(requested(fake).slice(-2)).toEqual(['I live in Paris.', 'I moved to Berlin.']);
    expect(requested(fake).filter((t) => t === 'I moved to Berlin.')).toHaveLength(1);
    // Sent late by the next start: each carries when it was accepted.
    const late = fake.requestsTo(ADD).slice(-2);
    expect(late.map((r) => typeof (r.body as { timestamp?: unknown }).timestamp)).toEqual([
      'number',
      'number',
    ]);
    await b.provider.shutdown({ timeoutMs: 1000 });
  });

  it('a write delivered late tells the Platform when it was accepted (timestamp); one sent on time does not', async () => {
    const fake = await platformFake();
    const t0 = Date.parse('2025-12-31T23:00:00Z');
    const { provider, clock } = await start(fake, tempHome(), new ManualClock(t0));
    fake.fail({ type: 'status', status: 503, count: 1, path: '/v3/memories/add/' });
    provider.syncTurn('I live in Paris.', 'ok');
    await provider.idle();
    await clock.advance(60_000);
    provider.syncTurn('I moved to Berlin.', 'ok');
    await until(() => provider.writesOnDisk === 0, 'the journal to empty');
    await provider.idle();
    provider.syncTurn('I work from home.', 'ok');
    await provider.idle();
    const stamps = fake.requestsTo(ADD).map((r) => (r.body as { timestamp?: unknown }).timestamp);
    expect(stamps).toEqual([undefined, t0 / 1000, t0 / 1000 + 60, undefined]);
    const recorded = (text: string) => fake.state.memories.find((m) => m.memory.includes(text))?.created_at;
    expect([recorded('Paris'), recorded('Berlin'), recorded('home')]).toEqual([
      '2025-12-31T23:00:00.000Z',
      '2025-12-31T23:01:00.000Z',
      '2026-01-01T00:00:00.000Z',
    ]);
    await provider.shutdown({ timeoutMs: 1000 });
  });

  it('the fake Platform refuses a timestamp that is not Unix seconds, as a 400', async () => {
    const fake = await platformFake();
    const res = await fetch(`${fake.url}/v3/memories/add/`, {
      method: 'POST',
      headers: { authorization: `Token ${PLATFORM_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        messages: [{ role: 'user', content: 'x.' }],
        user_id: 'u',
        timestamp: 'yesterday',
      }),
    });
    expect(res.status).toBe(400);
    expect(fake.state.memories).toHaveLength(0);
  });

  it('the breaker closing while an older write is still running sends nothing past it: a turn refused meanwhile goes after it', async () => {
    const fake = await platformFake();
    const clock = new ManualClock();
    const provider = new Mem0Provider(platformSettings(fake, { clock, breakerCooldownMs: 1000 }));
    await provider.initialize('s1', initContext(tempHome()));
    const release = fake.hold(ADD);
    provider.syncTurn('I live in Paris.', 'ok');
    await until(() => fake.heldRequests() === 1, 'the held add');
    // Searches fail meanwhile: the breaker opens, and the next turn is refused (journaled).
    fake.fail({ type: 'status', status: 503, count: 5, path: '/v3/memories/search/' });
    for (let i = 0; i < 5; i++) await provider.handleToolCall('mem0_search', { query: 'tea' });
    expect(provider.health()?.status).toBe('down');
    provider.syncTurn('I moved to Berlin.', 'ok');
    // The cooldown passes and a search goes through: the breaker closes with Paris still running.
    await clock.advance(1000);
    expect(JSON.parse(await provider.handleToolCall('mem0_search', { query: 'tea' })).error).toBeUndefined();
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(requested(fake)).toEqual(['I live in Paris.']);
    release();
    await until(() => provider.writesOnDisk === 0, 'the journal to empty');
    await provider.idle();
    expect(stored(fake)).toEqual(['I live in Paris.', 'I moved to Berlin.']);
    expect(provider.undeliveredWrites).toBe(0);
    await provider.shutdown({ timeoutMs: 1000 });
  });
});
