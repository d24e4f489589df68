/**
 * What Supermemory holds undelivered is bounded (decision 0115): a long outage keeps the newest
 * turns within `heldLimits`; the oldest are dropped, counted (one warning per outage, the total in
 * health()), crossed off the outbox and never replayed. Official SDK against the shipped fake.
 */
import { describe, expect, it } from 'vitest';
import { supermemoryWritesOnDisk } from '../src/outbox';
import { fake, home, ingests, started } from './helpers';

describe('supermemory held cap', () => {
  it('a long outage keeps the newest turns within heldLimits: the oldest are dropped, counted, crossed off and never replayed', async () => {
    const server = await fake();
    const hermesHome = home();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    const a = await started(
      server,
      { heldLimits: { turns: 3, chars: 1_000_000 }, breakerThreshold: 1 },
      { sessionId: 's-1', hermesHome },
    );
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    a.provider.onSessionSwitch('s-2', {});
    await a.provider.idle(); // the ingest of s-1 failed: its turns wait in the outbox
    for (let i = 3; i <= 5; i++) a.provider.syncTurn(`user turn ${i}`, `reply ${i}`);
    expect(a.provider.heldDropped).toBe(2);
    expect(a.provider.bufferedTurns).toBe(3);
    await a.provider.journaled();
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(3);
    a.provider.syncTurn('user turn 6', 'reply 6');
    expect(a.provider.heldDropped).toBe(3);
    expect(a.provider.bufferedTurns).toBe(3);
    const warnings = a.logs.messages('warn').filter((m) => /exceed 3 turns/.test(m));
    expect(warnings).toHaveLength(1);
    expect(a.provider.health()?.reason).toMatch(/3 held turn\(s\) dropped/);
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(3);
    expect(ingests(server)).toEqual([]);

    server.clearFaults();
    const b = await started(server, {}, { sessionId: 's-3', hermesHome });
    await b.provider.idle();
    expect(ingests(server)).toEqual([['s-2', ['user turn 4', 'user turn 5', 'user turn 6']]]);
    expect(b.provider.writesOnDisk).toBe(0);
  });

  it('adopted turns count against the cap of the process that adopts them: the oldest beyond it are not sent', async () => {
    const server = await fake();
    const hermesHome = home();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    const a = await started(server, {}, { sessionId: 's-1', hermesHome });
    for (let i = 1; i <= 4; i++) a.provider.syncTurn(`user turn ${i}`, `reply ${i}`);
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(4);

    server.clearFaults();
    const b = await started(
      server,
      { heldLimits: { turns: 2, chars: 1_000_000 } },
      { sessionId: 's-2', hermesHome },
    );
    expect(b.provider.heldDropped).toBe(2);
    await b.provider.idle();
    expect(ingests(server)).toEqual([['s-1', ['user turn 3', 'user turn 4']]]);
    await b.provider.journaled();
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
    expect(b.logs.messages('info').join('\n')).toMatch(/reachable again; 2 held turn\(s\) were dropped/);
  });

  it('the character limit bounds the buffer too during an outage: the newest turns that fit are kept', async () => {
    const server = await fake();
    const hermesHome = home();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    const a = await started(
      server,
      { heldLimits: { turns: 100, chars: 30 }, breakerThreshold: 1 },
      { sessionId: 's-1', hermesHome },
    );
    a.provider.syncTurn('eeeeeeeeee', 'ffffffffff');
    a.provider.onSessionSwitch('s-2', {});
    await a.provider.idle(); // the failed ingest opens the breaker
    a.provider.syncTurn('aaaaaaaaaa', 'bbbbbbbbbb');
    a.provider.syncTurn('cccccccccc', 'dddddddddd');
    expect(a.provider.bufferedTurns).toBe(1);
    expect(a.provider.heldDropped).toBe(2);
    await a.provider.shutdown({ timeoutMs: 5_000 });
    server.clearFaults();
    const b = await started(server, {}, { sessionId: 's-3', hermesHome });
    await b.provider.idle();
    expect(ingests(server)).toEqual([['s-2', ['cccccccccc']]]);
  });

  it('a long session while Supermemory answers keeps every turn for its ingest: nothing dropped, no warning', async () => {
    const server = await fake();
    const a = await started(server, { heldLimits: { turns: 2, chars: 30 } }, { sessionId: 's-1' });
    for (let i = 1; i <= 5; i++) a.provider.syncTurn(`user turn ${i}`, `reply ${i}`);
    expect(a.provider.bufferedTurns).toBe(5);
    expect(a.provider.heldDropped).toBe(0);
    await a.provider.onSessionEnd([]);
    expect(ingests(server)).toEqual([['s-1', [1, 2, 3, 4, 5].map((i) => `user turn ${i}`)]]);
    expect(a.logs.messages('warn')).toEqual([]);
  });
});
