/**
 * An ingest of buffered turns alone (session switch, shutdown, a session end without the host's
 * messages) never replaces a fuller ingest of its session that the service took from this process:
 * it goes out as that ingest's messages, then the buffered turns (decision 0933, a departure from
 * the reference, which sends the buffered turns alone). Driven through the official SDK against the
 * shipped fake.
 */
import { describe, expect, it } from 'vitest';
import { supermemoryWritesOnDisk } from '../src/outbox';
import type { SupermemoryProvider } from '../src/provider';
import { fake, home, ingests, NO_BREAKER, started, stored, transcript, turns } from './helpers';

/** The three ways buffered turns alone are ingested. */
const PARTIAL_INGESTS: Array<[string, (provider: SupermemoryProvider) => Promise<unknown>]> = [
  ['shutdown', (p) => p.shutdown({ timeoutMs: 5_000 })],
  ['session switch', async (p) => (p.onSessionSwitch('s-2', {}), p.idle())],
  ['session end without messages', (p) => p.onSessionEnd([])],
];

describe('supermemory: a partial ingest never replaces a fuller one of its session', () => {
  it.each(PARTIAL_INGESTS)(
    'whole transcript 1..3 taken, turns 4..5 buffered, %s: the document holds 1..5',
    async (_label, partial) => {
      const server = await fake();
      const hermesHome = home();
      const { provider } = await started(server, NO_BREAKER, { sessionId: 's-1', hermesHome });
      for (const n of [1, 2, 3]) provider.syncTurn(`user turn ${n}`, `reply ${n}`);
      await provider.onSessionEnd(transcript(3));
      expect(stored(server, 's-1')).toEqual(turns(1, 3));
      // The session goes on after its end (resumed in the same process).
      provider.syncTurn('user turn 4', 'reply 4');
      provider.syncTurn('user turn 5', 'reply 5');
      await partial(provider);
      expect(stored(server, 's-1')).toEqual(turns(1, 5));
      expect(
        server.state.documents.find((d) => d.customId === 's-1')?.messages?.map((m) => m.content),
      ).toEqual(transcript(5).map((m) => m.content));
      expect(ingests(server)).toEqual([
        ['s-1', turns(1, 3)],
        ['s-1', turns(1, 5)],
      ]);
      expect(provider.writesOnDisk).toBe(0);
      // The document journaled when the session went on is crossed off with the turns.
      await provider.journaled();
      expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
    },
  );

  it('buffered after buffered: each partial ingest holds every earlier one, so the document grows', async () => {
    const server = await fake();
    const { provider } = await started(server, NO_BREAKER, { sessionId: 's-1' });
    provider.syncTurn('user turn 1', 'reply 1');
    await provider.onSessionEnd([]);
    provider.syncTurn('user turn 2', 'reply 2');
    await provider.onSessionEnd([]);
    provider.syncTurn('user turn 3', 'reply 3');
    await provider.shutdown({ timeoutMs: 5_000 });
    expect(ingests(server)).toEqual([
      ['s-1', turns(1, 1)],
      ['s-1', turns(1, 2)],
      ['s-1', turns(1, 3)],
    ]);
    const last = server.requestsTo('/v4/conversations').at(-1)?.body as { metadata: Record<string, unknown> };
    expect(last.metadata).toMatchObject({ partial: true, message_count: 6 });
  });

  it('a failed ingest re-sent at shutdown goes first, then the turns buffered after it, in capture order', async () => {
    const server = await fake();
    const { provider } = await started(server, NO_BREAKER, { sessionId: 's-1' });
    provider.syncTurn('user turn 1', 'reply 1');
    provider.syncTurn('user turn 2', 'reply 2');
    server.fail({ type: 'status', status: 500, count: 100_000, path: '/v4/conversations' });
    await provider.onSessionEnd([]); // turns 1..2 fail
    server.clearFaults();
    provider.syncTurn('user turn 3', 'reply 3');
    provider.syncTurn('user turn 4', 'reply 4');
    await provider.shutdown({ timeoutMs: 5_000 }); // re-sends 1..2, then ingests 3..4 over it
    expect(ingests(server)).toEqual([
      ['s-1', turns(1, 2)],
      ['s-1', turns(1, 4)],
    ]);
    expect(stored(server, 's-1')).toEqual(turns(1, 4));
  });

  it('another session’s ingest is not merged in: a switch to s-2 and back ingests each session’s own turns', async () => {
    const server = await fake();
    const { provider } = await started(server, NO_BREAKER, { sessionId: 's-1' });
    provider.syncTurn('user turn 1', 'reply 1');
    await provider.onSessionEnd(transcript(1));
    provider.onSessionSwitch('s-2', {});
    provider.syncTurn('user turn 2', 'reply 2');
    provider.onSessionSwitch('s-1', {});
    await provider.idle();
    expect(stored(server, 's-2')).toEqual(['user turn 2']);
    expect(stored(server, 's-1')).toEqual(['user turn 1']);
  });

  it('across a restart: the session’s document is journaled when the session goes on, so the next start merges turns 4..5 onto it', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, NO_BREAKER, { sessionId: 's-1', hermesHome });
    for (const n of [1, 2, 3]) a.provider.syncTurn(`user turn ${n}`, `reply ${n}`);
    await a.provider.onSessionEnd(transcript(3));
    a.provider.syncTurn('user turn 4', 'reply 4');
    a.provider.syncTurn('user turn 5', 'reply 5');
    // The service is down at shutdown: turns 4..5 stay on disk, with what the document holds.
    server.fail({ type: 'status', status: 503, count: 100_000, path: '/v4/conversations' });
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(2); // two turns: the document journaled beside them is not one
    expect(stored(server, 's-1')).toEqual(turns(1, 3));
    server.clearFaults();

    const b = await started(server, NO_BREAKER, { sessionId: 's-9', hermesHome });
    expect(b.provider.writesOnDisk).toBe(2); // turns: the document is not one
    await b.provider.idle();
    expect(stored(server, 's-1')).toEqual(turns(1, 5));
    expect(ingests(server)).toEqual([
      ['s-1', turns(1, 3)],
      ['s-1', turns(1, 5)],
    ]);
    expect(b.provider.writesOnDisk).toBe(0);
    await b.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
  });

  it('across a restart, a journaled document with no turn of its session left to send is crossed off, not sent', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, NO_BREAKER, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await a.provider.onSessionEnd(transcript(1));
    server.fail({ type: 'status', status: 503, count: 100_000, path: '/v4/conversations' });
    a.provider.syncTurn('user turn 2', 'reply 2'); // journals the document [1], then turn 2
    a.provider.onSessionSwitch('s-2', {});
    a.provider.syncTurn('user turn 9', 'reply 9');
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(2); // turns 2 and 9 (the document of s-1 is not a turn)
    server.clearFaults();
    // The next start holds one turn at most: the oldest (turn 2 of s-1) is dropped.
    const b = await started(
      server,
      { ...NO_BREAKER, heldLimits: { turns: 1, chars: 1_000_000 } },
      { sessionId: 's-3', hermesHome },
    );
    await b.provider.idle();
    expect(ingests(server)).toEqual([
      ['s-1', turns(1, 1)],
      ['s-2', ['user turn 9']],
    ]);
    expect(stored(server, 's-1')).toEqual(turns(1, 1));
    await b.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
  });
});
