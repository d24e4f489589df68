/**
 * A session's ingest is an upsert by its id (decision 0932): one that failed and is sent again
 * later holds older turns, so it must never replace a newer ingest of the session that went
 * through meanwhile — dropped when the newer one holds its turns (the host's whole transcript),
 * merged with it when not (buffered turns) — in the same run and after a restart (outbox replay).
 * Driven through the official SDK against the shipped fake.
 */
import { describe, expect, it } from 'vitest';
import { supermemoryWritesOnDisk } from '../src/outbox';
import { fake, home, ingests, NO_BREAKER, started, stored, transcript } from './helpers';

describe('supermemory: the newest ingest of a session wins', () => {
  it('a failed session-end ingest sent again after a newer one went through is dropped: the document keeps every turn', async () => {
    const server = await fake();
    const { provider } = await started(server, NO_BREAKER, { sessionId: 's-1' });
    provider.syncTurn('user turn 1', 'reply 1');
    provider.syncTurn('user turn 2', 'reply 2');
    server.fail({ type: 'status', status: 500, count: 100_000, path: '/v4/conversations' });
    await provider.onSessionEnd(transcript(2)); // ingest A (turns 1..2) fails
    expect(ingests(server)).toEqual([]);
    server.clearFaults();
    provider.syncTurn('user turn 3', 'reply 3');
    await provider.onSessionEnd(transcript(3)); // ingest B (turns 1..3) goes through
    await provider.idle();
    expect(stored(server, 's-1')).toEqual(['user turn 1', 'user turn 2', 'user turn 3']);
    expect(ingests(server)).toEqual([['s-1', ['user turn 1', 'user turn 2', 'user turn 3']]]);
    expect(provider.writesOnDisk).toBe(0);
  });

  it('buffered turns: the failed older ingest is merged with the newer one, in order, and both leave the outbox', async () => {
    const server = await fake();
    const { provider } = await started(server, NO_BREAKER, { sessionId: 's-1' });
    provider.syncTurn('user turn 1', 'reply 1');
    provider.syncTurn('user turn 2', 'reply 2');
    server.fail({ type: 'status', status: 500, count: 100_000, path: '/v4/conversations' });
    await provider.onSessionEnd([]); // A: turns 1..2, fails
    server.clearFaults();
    provider.syncTurn('user turn 3', 'reply 3');
    provider.syncTurn('user turn 4', 'reply 4');
    await provider.onSessionEnd([]); // B: turns 3..4, goes through
    await provider.idle();
    const all = ['user turn 1', 'user turn 2', 'user turn 3', 'user turn 4'];
    expect(stored(server, 's-1')).toEqual(all);
    expect(ingests(server)).toEqual([
      ['s-1', ['user turn 3', 'user turn 4']],
      ['s-1', all],
    ]);
    expect(server.state.documents.find((d) => d.customId === 's-1')?.messages?.map((m) => m.content)).toEqual(
      [
        'user turn 1',
        'reply 1',
        'user turn 2',
        'reply 2',
        'user turn 3',
        'reply 3',
        'user turn 4',
        'reply 4',
      ],
    );
    expect(provider.writesOnDisk).toBe(0);
    // Another ingest going through sends nothing of s-1 again.
    provider.onSessionSwitch('s-2', {});
    provider.syncTurn('user turn 5', 'reply 5');
    await provider.onSessionEnd([]);
    await provider.idle();
    expect(ingests(server).filter(([id]) => id === 's-1')).toHaveLength(2);
  });

  it('after a restart: the replay of the earlier run failed, the resumed session ended and went through — the replay is not sent over it', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, NO_BREAKER, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    server.fail({ type: 'status', status: 500, count: 100_000, path: '/v4/conversations' });
    await a.provider.onSessionEnd(transcript(2));
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(2);
    server.clearFaults();

    // The next start resumes s-1; its replay of turns 1..2 is refused once.
    server.fail({ type: 'status', status: 422, count: 1, path: '/v4/conversations' });
    const b = await started(server, NO_BREAKER, { sessionId: 's-1', hermesHome });
    await b.provider.idle();
    expect(ingests(server)).toEqual([]);
    expect(b.provider.writesOnDisk).toBe(2);
    b.provider.syncTurn('user turn 3', 'reply 3');
    await b.provider.onSessionEnd(transcript(3));
    await b.provider.idle();
    const all = ['user turn 1', 'user turn 2', 'user turn 3'];
    expect(stored(server, 's-1')).toEqual(all);
    expect(ingests(server)).toEqual([['s-1', all]]);
    expect(b.provider.writesOnDisk).toBe(0);
    await b.provider.shutdown({ timeoutMs: 5_000 });
    // A third start finds nothing to replay.
    const c = await started(server, NO_BREAKER, { sessionId: 's-2', hermesHome });
    await c.provider.idle();
    expect(ingests(server)).toEqual([['s-1', all]]);
    expect(stored(server, 's-1')).toEqual(all);
  });

  it('after a restart, buffered turns: the replayed turns are merged with the newer ingest of the resumed session', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, NO_BREAKER, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    server.fail({ type: 'status', status: 500, count: 100_000, path: '/v4/conversations' });
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(1);
    server.clearFaults();

    server.fail({ type: 'status', status: 422, count: 1, path: '/v4/conversations' });
    const b = await started(server, NO_BREAKER, { sessionId: 's-1', hermesHome });
    await b.provider.idle();
    b.provider.syncTurn('user turn 2', 'reply 2');
    await b.provider.onSessionEnd([]);
    await b.provider.idle();
    expect(stored(server, 's-1')).toEqual(['user turn 1', 'user turn 2']);
    expect(ingests(server)).toEqual([
      ['s-1', ['user turn 2']],
      ['s-1', ['user turn 1', 'user turn 2']],
    ]);
    expect(b.provider.writesOnDisk).toBe(0);
  });
});
