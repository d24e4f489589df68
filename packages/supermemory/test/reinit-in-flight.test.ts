/**
 * Initialized again while an ingest is still in flight (the service holds the request): the new
 * state's writes wait until the old queue has finished, so the late old ingest never lands after
 * a newer one of its session, and its turns — taken over by the new outbox — are not sent again
 * once it went through. The old queue's mirrored memory writes still go out (they are not
 * journaled). Driven through the official SDK against the shipped fake, which holds the request.
 */
import { describe, expect, it } from 'vitest';
import { supermemoryWritesOnDisk } from '../src/outbox';
import { fake, home, ingests, type Started, started, stored, transcript, turns } from './helpers';

/** A long client timeout: the held request is released by the test, never timed out. */
const SLOW_OK = { apiTimeout: 60, breakerThreshold: 1000 };

describe('supermemory: re-initialized with an ingest in flight', () => {
  const reinit = (provider: Started['provider'], logs: Started['logs'], hermesHome: string) =>
    provider.initialize('s-1', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      logger: logs.logger,
      env: {},
    });

  it('nothing of the new state goes out before the old ingest answered: it lands first, is not sent again, and the old mirror write still goes out', async () => {
    const server = await fake();
    const hermesHome = home();
    const { provider, logs } = await started(server, SLOW_OK, { sessionId: 's-1', hermesHome });
    for (const n of [1, 2, 3]) provider.syncTurn(`user turn ${n}`, `reply ${n}`);
    await provider.journaled();
    const first = server.holdIngest();
    const endA = provider.onSessionEnd(transcript(3)); // ingest A (1..3): held by the service
    await first.arrived;
    provider.onMemoryWrite('add', 'memory', 'The user drinks green tea every morning'); // queued behind A
    // Whatever ingest comes next is held too: sent before A answered, it would be caught here first.
    const next = server.holdIngest();

    // Initialized again, resuming s-1: the new outbox takes over turns 1..3 (A has not answered).
    await reinit(provider, logs, hermesHome);
    expect(provider.writesOnDisk).toBe(3);
    provider.syncTurn('user turn 4', 'reply 4');
    provider.syncTurn('user turn 5', 'reply 5');
    const endB = provider.onSessionEnd(transcript(5)); // ingest B (1..5)
    first.release(); // A is stored and answered only now
    await endA;
    await next.arrived;
    expect(stored(server, 's-1')).toEqual(turns(1, 3));
    next.release();
    await endB;
    await provider.idle();

    expect(stored(server, 's-1')).toEqual(turns(1, 5));
    // A, then B: the turns the new outbox took over were not sent again once A went through.
    expect(ingests(server)).toEqual([
      ['s-1', turns(1, 3)],
      ['s-1', turns(1, 5)],
    ]);
    expect(server.state.documents.filter((d) => d.type === 'text').map((d) => d.content)).toEqual([
      'The user drinks green tea every morning',
    ]);
    expect(provider.writesOnDisk).toBe(0);
    await provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
  });

  it('the old ingest refused late: its turns, taken over by the new outbox, go out after it, then the newer turns over them', async () => {
    const server = await fake();
    const hermesHome = home();
    const { provider, logs } = await started(server, SLOW_OK, { sessionId: 's-1', hermesHome });
    for (const n of [1, 2, 3]) provider.syncTurn(`user turn ${n}`, `reply ${n}`);
    await provider.journaled();
    const held = server.holdIngest();
    const endA = provider.onSessionEnd([]); // ingest A (buffered 1..3): held by the service
    await held.arrived;
    await reinit(provider, logs, hermesHome);
    provider.syncTurn('user turn 4', 'reply 4');
    provider.syncTurn('user turn 5', 'reply 5');
    const endB = provider.onSessionEnd([]); // buffered 4..5
    held.release(422); // A refused: nothing stored
    await Promise.all([endA, endB]);
    await provider.idle();
    expect(stored(server, 's-1')).toEqual(turns(1, 5));
    expect(ingests(server)).toEqual([
      ['s-1', turns(1, 3)],
      ['s-1', turns(1, 5)],
    ]);
    expect(provider.writesOnDisk).toBe(0);
  });
});
