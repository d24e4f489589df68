/**
 * Turns skipped behind a stuck write (§3.8.19: skipped, not queued) are journaled like every
 * accepted write; once that write ended and Mem0 answers, this run sends them from the journal in
 * the background, in order, once — never on `syncTurn`'s path. What a shutdown leaves goes with
 * the next start; the cap on waiting writes still bounds them. Official SDK, Platform fake,
 * injected clock.
 */
import { ManualClock } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { Mem0Provider } from '../src';
import { mem0WritesOnDisk } from '../src/outbox';
import { MAX_WAITING_WRITES } from '../src/provider';
import { initContext, platformFake, platformSettings, tempHome, until } from './helpers';

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
  it('§3.8.19 a stuck write that fails: the skipped turns wait until Mem0 answers again, then go out after it, in order, once', async () => {
    const fake = await platformFake();
    const { provider, clock } = await start(fake);
    fake.fail({ type: 'timeout', count: 1, path: '/v3/memories/add/' });
    provider.syncTurn(turn(1), 'ok');
    await until(() => fake.hanging >= 1, 'the first add to hang');
    provider.syncTurn(turn(2), 'ok');
    provider.syncTurn(turn(3), 'ok');
    await clock.advance(5000);
    await until(() => provider.skippedTurns === 2, 'the skipped turns');
    // Turn 1's add reaches its 30 s deadline: it failed, so nothing is sent on its heels.
    await clock.advance(25_000);
    await until(() => provider.undeliveredWrites === 3, 'the failed add');
    await provider.idle();
    expect(requested(fake)).toEqual([turn(1)]);
    expect(provider.writesOnDisk).toBe(3);
    // A later turn goes through: the failed write and the skipped turns follow it, oldest first.
    provider.syncTurn(turn(4), 'ok');
    await until(() => provider.writesOnDisk === 0, 'the journal to empty');
    await provider.idle();
    expect(stored(fake)).toEqual([turn(4), turn(1), turn(2), turn(3)]);
    expect([provider.undeliveredWrites, provider.skippedTurns]).toEqual([0, 2]);
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
