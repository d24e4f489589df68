/**
 * Writes OpenViking neither stored nor held (decision 0982 holds what the open breaker refuses):
 * a turn taken while the server is known to be down, a mirrored memory write that failed, and the
 * held turns a shutdown leaves behind. None may be lost silently: each is counted, shown by
 * `health()` and told at shutdown. Over the real wire protocol against the shipped fake.
 */
import type { ManualClock } from '@hermes-memory/core';
import { describe, expect, it } from 'vitest';
import { advanceUntil, initContext, type Rig, rigPerTest } from './test-support/rig';
import { openvikingTurnsOnDisk } from './sessions/outbox';
import { TOOL_NAMES } from './tools';

const open = rigPerTest();

async function settled<T>(r: Rig, work: Promise<T>): Promise<T> {
  let done = false;
  const running = work.finally(() => {
    done = true;
  });
  await advanceUntil(r.clock as ManualClock, () => done, { stepMs: 1_000 });
  return running;
}

const notDelivered = (r: Rig) => r.logs.messages('warn').filter((m) => /were not delivered/.test(m));

describe('openviking writes under outage and shutdown', () => {
  it('a turn while the server is known to be down is counted, in health() and at shutdown', async () => {
    const r = await open();
    r.backend.fail({ type: 'status', status: 503, count: 100_000 });
    const second = await r.open({ sessionId: 's2' });
    await settled(r, second.idle());
    second.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    await settled(r, second.idle());
    expect(second.undeliveredWrites).toBe(1);
    expect(second.health()?.reason).toMatch(
      /the last 1 write\(s\) were not delivered \(turn not taken: the OpenViking server is not connected\)/,
    );
    await settled(r, second.shutdown({ timeoutMs: 1000 }));
    expect(notDelivered(r).some((m) => /^OpenViking: 1 write\(s\) accepted this session/.test(m))).toBe(true);
  });

  it('a failed memory mirror is counted until a write goes through; the total is told at shutdown', async () => {
    const r = await open();
    r.backend.fail({ type: 'status', status: 500, count: 100 });
    r.provider.onMemoryWrite('add', 'user', 'Prefers tea to coffee.');
    await settled(r, r.provider.idle());
    r.backend.clearFaults();
    expect(r.provider.undeliveredWrites).toBe(1);
    expect(r.provider.health()?.status).toMatch(/degraded|down/);
    expect(r.provider.health()?.reason).toMatch(
      /the last 1 write\(s\) were not delivered \(memory user write: /,
    );
    r.provider.onMemoryWrite('add', 'memory', 'The deploy runs on Fridays.');
    await settled(r, r.provider.idle());
    expect(r.provider.health()?.reason ?? '').not.toMatch(/were not delivered/);
    await settled(r, r.provider.shutdown({ timeoutMs: 1000 }));
    expect(notDelivered(r)).toEqual([
      expect.stringMatching(/^OpenViking: 1 write\(s\) accepted this session were not delivered \(0 held/),
    ]);
  });

  it('turns held while the breaker is open are in the shutdown total (they die with the process)', async () => {
    const r = await open();
    r.backend.fail({ type: 'status', status: 500, count: 100_000 });
    for (const query of ['first question', 'second question', 'third question'])
      await settled(r, r.provider.handleToolCall(TOOL_NAMES.search, { query }));
    expect(r.provider.health()?.status).toBe('down');
    r.provider.syncTurn('The lighthouse is painted red.', 'Noted.');
    r.provider.syncTurn('The keeper rows to town on Sundays.', 'Noted.');
    await settled(r, r.provider.shutdown({ timeoutMs: 1000 }));
    expect(
      notDelivered(r).some((m) => /^OpenViking: 2 write\(s\) accepted .*\(2 held turn\(s\)/.test(m)),
    ).toBe(true);
  });
});

describe('openviking redelivers within the run (decision 0982)', () => {
  it('turns not taken while the server was down go out once it reconnects, in order, each once; nothing waits on disk', async () => {
    const r = await open();
    r.backend.fail({ type: 'status', status: 503, count: 100_000 });
    const second = await r.open({ sessionId: 's2' });
    await settled(r, second.idle());
    second.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    second.syncTurn('Her boat is called Tern.', 'Noted.');
    await settled(r, second.idle());
    expect([second.undeliveredWrites, second.turnsOnDisk]).toEqual([2, 2]);
    r.backend.clearFaults();
    await (r.clock as ManualClock).advance(30_000);
    // A reconnect (here through a search) sends what was left, in the background.
    await settled(r, second.handleToolCall(TOOL_NAMES.search, { query: 'lighthouse' }));
    await settled(r, second.idle());
    const texts = (r.backend.state.sessions.s2?.messages ?? []).map((m) => JSON.stringify(m.parts));
    expect(texts.filter((t) => t.includes('Ada'))).toHaveLength(1);
    expect(texts.filter((t) => t.includes('Tern'))).toHaveLength(1);
    expect(texts.findIndex((t) => t.includes('Ada'))).toBeLessThan(
      texts.findIndex((t) => t.includes('Tern')),
    );
    expect(second.turnsOnDisk).toBe(0);
    expect(second.health()?.reason ?? '').not.toMatch(/were not delivered/);
    // Delivered after all: they leave the count the shutdown warning tells.
    expect(second.undeliveredWrites).toBe(0);
    // Another stored turn sends nothing again.
    second.syncTurn('Ada keeps bees too.', 'Noted.');
    await settled(r, second.idle());
    const again = (r.backend.state.sessions.s2?.messages ?? []).map((m) => JSON.stringify(m.parts));
    expect(again.filter((t) => t.includes('Ada is') || t.includes('called Ada'))).toHaveLength(1);
    expect(again.filter((t) => t.includes('Tern'))).toHaveLength(1);
    await settled(r, second.shutdown({ timeoutMs: 1000 }));
  });

  it('a session ended while its turns waited is committed once they went out, after them, exactly once', async () => {
    const r = await open();
    r.backend.fail({ type: 'status', status: 503, count: 100_000 });
    const second = await r.open({ sessionId: 's2' });
    await settled(r, second.idle());
    second.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    second.syncTurn('Her boat is called Tern.', 'Noted.');
    // The session ends while the server is down: nothing to commit yet, the commit waits for its turns.
    await settled(r, second.onSessionEnd([]));
    second.onSessionSwitch('s3', {});
    await settled(r, second.idle());
    r.backend.clearFaults();
    await (r.clock as ManualClock).advance(30_000);
    await settled(r, second.handleToolCall(TOOL_NAMES.search, { query: 'lighthouse' }));
    await settled(r, second.idle());
    expect(sessionLog(r, 's2')).toEqual(['batch: Ada', 'batch: Tern', 'commit']);
    expect(r.backend.state.sessions.s2).toMatchObject({ commits: 1, archived: 4, messages: [] });
    expect(second.turnsOnDisk).toBe(0);
    // Later traffic (a stored turn, a reconnect) commits it no second time.
    second.syncTurn('The keeper of s3 likes tea.', 'Noted.');
    await settled(r, second.idle());
    await settled(r, second.shutdown({ timeoutMs: 1000 }));
    expect(sessionLog(r, 's2')).toEqual(['batch: Ada', 'batch: Tern', 'commit']);
  });

  it('a turn that failed before its session ended is sent again with the next stored turn, and only then is the session committed', async () => {
    const r = await open();
    // The server answers, but refuses this one turn every way it is tried (structured, plain,
    // retried, one message at a time); a refusal is not an outage, so the breaker stays closed.
    r.backend.fail({ type: 'status', status: 422, count: 3, path: '/messages/batch' });
    r.backend.fail({ type: 'status', status: 422, count: 1, path: '/messages' });
    r.provider.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    await settled(r, r.provider.idle());
    expect(r.provider.undeliveredWrites).toBe(1);
    expect(r.provider.health()?.status).not.toBe('down');
    // The session ends: committing now would latch it before the failed turn is in it.
    await settled(r, r.provider.onSessionEnd([]));
    expect(sessionLog(r, 's1')).toEqual([]);
    r.provider.onSessionSwitch('s2', {});
    r.provider.syncTurn('Her boat is called Tern.', 'Noted.');
    await settled(r, r.provider.idle());
    expect(sessionLog(r, 's1')).toEqual(['batch: Ada', 'commit']);
    expect(r.backend.state.sessions.s1).toMatchObject({ commits: 1, messages: [] });
    expect(r.provider.turnsOnDisk).toBe(0);
    r.provider.syncTurn('Tern has a red sail.', 'Noted.');
    await settled(r, r.provider.idle());
    expect(sessionLog(r, 's1')).toEqual(['batch: Ada', 'commit']);
  });

  it('a turn the server refuses again when it is sent again is dropped: it no longer holds its session commit back nor comes back', async () => {
    // The server refuses any write holding this text, every time (a 422 no retry changes).
    const poison = (q: { method: string; path: string; body: unknown }) =>
      q.method === 'POST' && !q.path.endsWith('/commit') && JSON.stringify(q.body ?? '').includes('Ada')
        ? { type: 'status' as const, status: 422 }
        : null;
    const r = await open({ fake: { server: { faultFor: poison } } });
    r.provider.syncTurn('The lamp is green.', 'Noted.');
    r.provider.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    await settled(r, r.provider.idle());
    await settled(r, r.provider.onSessionEnd([]));
    r.provider.onSessionSwitch('s2', {});
    // The next stored turn sends the failed one again; refused again, it goes and s1 is committed.
    r.provider.syncTurn('Her boat is called Tern.', 'Noted.');
    await settled(r, r.provider.idle());
    expect(sessionLog(r, 's1')).toEqual(['batch: green', 'commit']);
    // Never delivered: it stays in the count.
    expect(r.provider.undeliveredWrites).toBe(1);
    expect(r.logs.messages('warn')).toContainEqual(
      expect.stringMatching(
        /^OpenViking: a turn of s1 was refused again \(.*422.*\); it is dropped, not retried\.$/,
      ),
    );
    const tries = r.backend.requests.length;
    r.provider.syncTurn('Tern has a red sail.', 'Noted.');
    await settled(r, r.provider.idle());
    // Only the new turn went out (no third try), and nothing waits on disk for the next start.
    expect(r.backend.requests.slice(tries).map((q) => q.params.sid)).toEqual(['s2']);
    expect(r.provider.turnsOnDisk).toBe(0);
  });

  it.each([
    [500, 'a server error on a POST (not retryable as a request, yet not a refusal)'],
    [401, 'a credential the user fixes before the next start'],
  ])(
    'a turn that fails again with HTTP %i when it is sent again is kept, not dropped (%s)',
    async (status) => {
      // The server fails every write holding this text, every way it is tried, until it is fixed.
      let broken = true;
      const faulty = (q: { method: string; path: string; body: unknown }) =>
        broken &&
        q.method === 'POST' &&
        !q.path.endsWith('/commit') &&
        JSON.stringify(q.body ?? '').includes('Ada')
          ? { type: 'status' as const, status }
          : null;
      const r = await open({ fake: { server: { faultFor: faulty } } });
      r.provider.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
      await settled(r, r.provider.idle());
      r.provider.syncTurn('Her boat is called Tern.', 'Noted.');
      await settled(r, r.provider.idle());
      // Sent again after the stored turn, it failed the same way: still undelivered, still on disk.
      expect(r.logs.messages('warn').filter((m) => /refused again/.test(m))).toEqual([]);
      expect(r.provider.turnsOnDisk).toBe(1);
      expect(r.provider.undeliveredWrites).toBe(1);
      // Fixed: the next stored turn sends it, once.
      broken = false;
      r.provider.syncTurn('Tern has a red sail.', 'Noted.');
      await settled(r, r.provider.idle());
      const texts = (r.backend.state.sessions.s1?.messages ?? []).map((m) => JSON.stringify(m.parts));
      expect(texts.filter((t) => t.includes('called Ada'))).toHaveLength(1);
      expect(r.provider.turnsOnDisk).toBe(0);
      await settled(r, r.provider.shutdown({ timeoutMs: 1000 }));
    },
  );

  it('a turn that fails again when it is sent again (a persistent 5xx) no longer holds its session commit back for the run; it stays on disk', async () => {
    // The server fails any write holding this text, every time, with a 500 (kept: not a refusal).
    const poison = (q: { method: string; path: string; body: unknown }) =>
      q.method === 'POST' && !q.path.endsWith('/commit') && JSON.stringify(q.body ?? '').includes('Ada')
        ? { type: 'status' as const, status: 500 }
        : null;
    const r = await open({ fake: { server: { faultFor: poison } } });
    r.provider.syncTurn('The lamp is green.', 'Noted.');
    r.provider.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    await settled(r, r.provider.idle());
    await settled(r, r.provider.onSessionEnd([]));
    r.provider.onSessionSwitch('s2', {});
    // The next stored turn sends the failed one again; failed again, s1 is committed without it.
    r.provider.syncTurn('Her boat is called Tern.', 'Noted.');
    await settled(r, r.provider.idle());
    expect(sessionLog(r, 's1')).toEqual(['batch: green', 'commit']);
    expect(r.provider.turnsOnDisk).toBe(1);
    expect(r.provider.undeliveredWrites).toBe(1);
    await settled(r, r.provider.shutdown({ timeoutMs: 1000 }));
  });

  it('a turn that failed once is sent again at shutdown while the server answers, then its session is committed', async () => {
    // This one turn fails every way it is tried the first time (a 500, not an outage); then the server takes it.
    const r = await open();
    r.backend.fail({ type: 'status', status: 500, count: 3, path: '/messages/batch' });
    r.backend.fail({ type: 'status', status: 500, count: 1, path: '/messages' });
    r.provider.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    await settled(r, r.provider.idle());
    expect([r.provider.undeliveredWrites, r.provider.turnsOnDisk]).toEqual([1, 1]);
    expect(sessionLog(r, 's1')).toEqual([]);
    await settled(r, r.provider.shutdown({ timeoutMs: 5000 }));
    expect(sessionLog(r, 's1')).toEqual(['batch: Ada', 'commit']);
    expect(openvikingTurnsOnDisk(r.home)).toBe(0);
  });

  it('initialized again while the server is down: the turns of before go out in this run once it answers, once, in order, then their session is committed', async () => {
    const r = await open();
    r.backend.fail({ type: 'status', status: 503, count: 100_000 });
    const second = await r.open({ sessionId: 's2' });
    await settled(r, second.idle());
    second.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    second.syncTurn('Her boat is called Tern.', 'Noted.');
    await settled(r, second.idle());
    expect(second.turnsOnDisk).toBe(2);
    // Initialized again (the manager after a config change): the old journal is taken over.
    await settled(r, second.initialize('s3', initContext(r.home, r.logs)));
    expect(second.turnsOnDisk).toBe(2);
    r.backend.clearFaults();
    await (r.clock as ManualClock).advance(30_000);
    await settled(r, second.handleToolCall(TOOL_NAMES.search, { query: 'lighthouse' }));
    await settled(r, second.idle());
    expect(sessionLog(r, 's2')).toEqual(['batch: Ada', 'batch: Tern', 'commit']);
    expect(second.turnsOnDisk).toBe(0);
    await settled(r, second.shutdown({ timeoutMs: 1000 }));
    expect(openvikingTurnsOnDisk(r.home)).toBe(0);
  });

  it('initialized again while a turn is being posted: it reaches its session once, not again from the taken-over journal', async () => {
    const r = await open({ realClock: true });
    // The server takes the turn, but answers late: the re-initialize comes while it is in flight.
    r.backend.fail({ type: 'delay', ms: 300, path: '/messages/batch' });
    r.provider.syncTurn('The lighthouse keeper is called Ada.', 'Noted.');
    await new Promise((resolve) => setImmediate(resolve));
    await r.provider.initialize('s2', initContext(r.home, r.logs));
    await r.provider.idle(5000);
    // The old post answered too (it was not awaited by this provider's idle).
    while (r.backend.requests.filter((q) => q.path.endsWith('/batch')).some((q) => q.status === undefined))
      await new Promise((resolve) => setTimeout(resolve, 20));
    await r.provider.idle(5000);
    expect(sessionLog(r, 's1').filter((e) => e === 'batch: Ada')).toHaveLength(1);
    expect(r.provider.turnsOnDisk).toBe(0);
    await r.provider.shutdown({ timeoutMs: 1000 });
  });
});

/** What reached `sid`, in order: each accepted batch by its first user text's last word, each commit. */
function sessionLog(r: Rig, sid: string): string[] {
  return r.backend.requests
    .filter((q) => q.params.sid === sid && q.status === 200 && q.method === 'POST')
    .map((q) => {
      if (q.path.endsWith('/commit')) return 'commit';
      const messages = (q.body as { messages?: Array<{ role: string; parts: Array<{ text?: string }> }> })
        .messages ?? [q.body as { role: string; parts: Array<{ text?: string }> }];
      const text = messages.find((m) => m.role === 'user')?.parts[0]?.text ?? '';
      return `${q.path.endsWith('/batch') ? 'batch' : 'message'}: ${/(\w+)\.?$/.exec(text)?.[1] ?? text}`;
    });
}
