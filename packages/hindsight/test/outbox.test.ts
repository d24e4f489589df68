/**
 * Turns held during an outage survive the process (decision 0115): each turn is journaled under
 * HERMES_HOME/hindsight/outbox until the server holds it, and the next provider on the same home
 * retains what is left, once and in order, to the session document it belongs to. Driven through
 * the official SDK against the shipped fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '@hermes-memory/core';
import { providerCliTestContext, startChildWorker } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import hindsightCli from '../src/cli/index';
import { hindsightOutboxDir, hindsightTurnsOnDisk } from '../src/outbox';
import { type Fake, fake, home, KEY, openBreaker, pumped, retainedTurns, started } from './helpers';

const CHILD = new URL('./support/outage-child.ts', import.meta.url).pathname;

const userTurns = (server: Fake, doc: string) =>
  retainedTurns(server)
    .filter(([d]) => d === doc)
    .flatMap(([, turns]) => turns);

describe('hindsight outbox: held turns survive the process', () => {
  it('restart replays: turns held through an outage and a shutdown reach their session documents from the next start, once, in order', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const hermesHome = home();
    const a = await started(server, { clock, breakerCooldownMs: 60_000 }, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await pumped(clock, () => a.provider.idle());
    await openBreaker(server, a.provider, clock);
    a.provider.syncTurn('user turn 2', 'reply 2');
    a.provider.syncTurn('user turn 3', 'reply 3');
    a.provider.onSessionSwitch('s-2');
    a.provider.syncTurn('user turn 4', 'reply 4');
    await a.provider.journaled();
    expect(a.provider.health()?.reason).toMatch(/ 3 turn\(s\) wait on disk\.$/);
    await pumped(clock, () => a.provider.shutdown({ timeoutMs: 1_000 }));
    expect(a.logs.messages('warn').join('\n')).toMatch(
      /3 turn\(s\) not retained stay on disk .* retained at the next start/,
    );
    expect(a.logs.messages().join('\n')).not.toMatch(/user turn|reply \d/);
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(3);
    // The user sees it: status counts them, doctor warns.
    const cli = providerCliTestContext(hindsightCli, { home: hermesHome, env: { HOME: hermesHome } }).ctx;
    expect((await hindsightCli.status!(cli)).details).toMatchObject({ waiting_on_disk: 3 });

    server.clearFaults();
    const b = await started(server, { clock }, { sessionId: 's-3', hermesHome });
    expect(b.logs.messages('info').join('\n')).toMatch(/3 turn\(s\) an earlier run could not retain/);
    await pumped(clock, () => b.provider.idle());
    expect(retainedTurns(server)).toEqual([
      ['s-1', ['User: user turn 1']],
      ['s-1', ['User: user turn 2', 'User: user turn 3']],
      ['s-2', ['User: user turn 4']],
    ]);
    b.provider.syncTurn('user turn 5', 'reply 5');
    await pumped(clock, () => b.provider.idle());
    await b.provider.journaled(); // real disk I/O: done before the clock is pumped
    await pumped(clock, () => b.provider.shutdown({ timeoutMs: 1_000 }));
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(0);
    expect((await hindsightCli.doctor!(cli)).map((c) => c.id)).not.toContain('outbox');
    // A third start sends nothing again.
    const c = await started(server, { clock }, { sessionId: 's-4', hermesHome });
    await pumped(clock, () => c.provider.idle());
    expect(userTurns(server, 's-1')).toEqual(['User: user turn 1', 'User: user turn 2', 'User: user turn 3']);
    expect(userTurns(server, 's-3')).toEqual(['User: user turn 5']);
  });

  it('adopted while the server is still down: retained in the same process at the next retain once it answers, in order, once', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const hermesHome = home();
    const a = await started(server, { clock, breakerCooldownMs: 60_000 }, { sessionId: 's-1', hermesHome });
    await openBreaker(server, a.provider, clock);
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    await a.provider.journaled();
    await pumped(clock, () => a.provider.shutdown({ timeoutMs: 1_000 }));
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(2);

    // The next start adopts them while the server still fails: the replay fails too.
    const b = await started(server, { clock, breakerCooldownMs: 60_000 }, { sessionId: 's-2', hermesHome });
    await pumped(clock, () => b.provider.idle());
    expect(retainedTurns(server)).toEqual([]);
    expect(b.provider.turnsOnDisk).toBe(2);
    // It answers again, later in the same process: the held replay goes first, then this session's.
    server.clearFaults();
    await clock.advance(60_000);
    b.provider.syncTurn('user turn 3', 'reply 3');
    await pumped(clock, () => b.provider.idle());
    expect(retainedTurns(server)).toEqual([
      ['s-1', ['User: user turn 1', 'User: user turn 2']],
      ['s-2', ['User: user turn 3']],
    ]);
    await b.provider.journaled(); // real disk I/O: done before the clock is pumped
    await pumped(clock, () => b.provider.shutdown({ timeoutMs: 1_000 }));
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(0);
    expect(userTurns(server, 's-1')).toEqual(['User: user turn 1', 'User: user turn 2']);
  });

  it('adopted while the server is down and the breaker opens: retained in the same process when the breaker closes, once', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const hermesHome = home();
    const a = await started(server, { clock, breakerCooldownMs: 60_000 }, { sessionId: 's-1', hermesHome });
    await openBreaker(server, a.provider, clock);
    a.provider.syncTurn('user turn 1', 'reply 1');
    await a.provider.journaled();
    await pumped(clock, () => a.provider.shutdown({ timeoutMs: 1_000 }));

    const b = await started(
      server,
      { clock, breakerCooldownMs: 60_000, breakerThreshold: 1 },
      { sessionId: 's-2', hermesHome },
    );
    await pumped(clock, () => b.provider.idle());
    expect(b.provider.health()?.status).toBe('down');
    expect(retainedTurns(server)).toEqual([]);
    server.clearFaults();
    await clock.advance(60_000);
    // Any request is the trial; it answers, the breaker closes and the held replay goes out.
    await pumped(clock, () => b.provider.handleToolCall('hindsight_recall', { query: 'c' }));
    await pumped(clock, () => b.provider.idle());
    expect(retainedTurns(server)).toEqual([['s-1', ['User: user turn 1']]]);
    await b.provider.journaled(); // real disk I/O: done before the clock is pumped
    await pumped(clock, () => b.provider.shutdown({ timeoutMs: 1_000 }));
    expect(userTurns(server, 's-1')).toEqual(['User: user turn 1']);
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(0);
  });

  it("re-initialized during an outage: the old session's held turns go out in this run once the server answers, once, in order, to their own bank and document", async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const hermesHome = home();
    const options = { clock, breakerCooldownMs: 60_000, bankIdTemplate: 'hermes-{session}' };
    const a = await started(server, options, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await pumped(clock, () => a.provider.idle());
    await openBreaker(server, a.provider, clock);
    a.provider.syncTurn('user turn 2', 'reply 2');
    a.provider.syncTurn('user turn 3', 'reply 3');
    // Initialized again at once (a new session, or the manager after a config change): the old
    // journal's writes are still queued, its lock still stands.
    a.provider.initialize('s-2', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      logger: a.logs.logger,
      env: { HOME: hermesHome },
    });
    expect(a.provider.turnsOnDisk).toBe(2);
    expect(a.logs.messages('info').join('\n')).toMatch(
      /: 2 turn\(s\) held before Hindsight was initialized again are on disk; they are sent once Hindsight answers\./,
    );
    // Still down: the replay fails and is held.
    await pumped(clock, () => a.provider.idle());
    expect(retainedTurns(server)).toEqual([['s-1', ['User: user turn 1']]]);
    server.clearFaults();
    await clock.advance(60_000);
    a.provider.syncTurn('user turn 4', 'reply 4');
    await pumped(clock, () => a.provider.idle());
    await a.provider.journaled(); // real disk I/O: done before the clock is pumped
    expect(retainedTurns(server)).toEqual([
      ['s-1', ['User: user turn 1']],
      ['s-1', ['User: user turn 2', 'User: user turn 3']],
      ['s-2', ['User: user turn 4']],
    ]);
    const banks = server
      .requestsTo('POST /v1/default/banks/:bank/memories')
      .filter((r) => r.status === 200)
      .map((r) => r.path.split('/')[4]);
    expect(banks).toEqual(['hermes-s-1', 'hermes-s-1', 'hermes-s-2']);
    expect(a.provider.turnsOnDisk).toBe(0);
    await pumped(clock, () => a.provider.shutdown({ timeoutMs: 1_000 }));
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(0);
    // Nothing is left for the next start, and nothing was sent twice.
    const b = await started(
      server,
      { clock, bankIdTemplate: 'hermes-{session}' },
      { sessionId: 's-3', hermesHome },
    );
    await pumped(clock, () => b.provider.idle());
    expect(userTurns(server, 's-1')).toEqual(['User: user turn 1', 'User: user turn 2', 'User: user turn 3']);
    expect(fs.readdirSync(hindsightOutboxDir(hermesHome)).filter((f) => f.endsWith('.lock'))).toHaveLength(1);
  });

  it('re-initialized while a retain is still queued: the turn goes out once, by the old retain or by the replay, never both', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const hermesHome = home();
    const a = await started(server, { clock }, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    // The retains are queued, the journal writes too: the new outbox takes both turns over and
    // replays them, while the old writer's retains still run.
    a.provider.initialize('s-2', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      logger: a.logs.logger,
      env: { HOME: hermesHome },
    });
    expect(a.provider.turnsOnDisk).toBe(2);
    a.provider.syncTurn('user turn 3', 'reply 3');
    await pumped(clock, () => a.provider.idle());
    expect(userTurns(server, 's-1')).toEqual(['User: user turn 1', 'User: user turn 2']);
    expect(userTurns(server, 's-2')).toEqual(['User: user turn 3']);
    expect(a.provider.turnsOnDisk).toBe(0);
    await a.provider.journaled(); // real disk I/O: done before the clock is pumped
    await pumped(clock, () => a.provider.shutdown({ timeoutMs: 1_000 }));
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(0);
  });

  it('re-initialized while a retain is queued, on a server that replaces documents (< 0.5.0): no turn is in two documents', async () => {
    const server = await fake({ apiVersion: '0.4.2' });
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const hermesHome = home();
    const a = await started(server, { clock }, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    a.provider.initialize('s-2', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      logger: a.logs.logger,
      env: { HOME: hermesHome },
    });
    await pumped(clock, () => a.provider.idle());
    // Each document is replaced whole by its next retain: what each holds is its last retain.
    const last = new Map(retainedTurns(server));
    const all = [...last.values()].flat();
    expect(all.filter((t) => t === 'User: user turn 1')).toHaveLength(1);
    expect(all.filter((t) => t === 'User: user turn 2')).toHaveLength(1);
    expect(a.provider.turnsOnDisk).toBe(0);
    await a.provider.journaled(); // real disk I/O: done before the clock is pumped
    await pumped(clock, () => a.provider.shutdown({ timeoutMs: 1_000 }));
  });

  it('re-initialized while a retain is queued and the server fails: the turns are held once, by the replay', async () => {
    const server = await fake();
    const clock = new ManualClock(Date.parse('2026-03-01T12:00:00Z'));
    const hermesHome = home();
    const options = { clock, breakerThreshold: 1, breakerCooldownMs: 60_000 };
    const a = await started(server, options, { sessionId: 's-1', hermesHome });
    server.fail({ type: 'status', status: 500, count: 100_000 });
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    a.provider.initialize('s-2', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      logger: a.logs.logger,
      env: { HOME: hermesHome },
    });
    await pumped(clock, () => a.provider.idle());
    // The old retains failed too; their turns are not held a second time beside the replay's.
    expect(a.provider.health()?.reason).toMatch(/ 2 turn\(s\) held for delivery\./);
    server.clearFaults();
    await clock.advance(60_000);
    a.provider.syncTurn('user turn 3', 'reply 3');
    await pumped(clock, () => a.provider.idle());
    expect(userTurns(server, 's-1')).toEqual(['User: user turn 1', 'User: user turn 2']);
    expect(userTurns(server, 's-2')).toEqual(['User: user turn 3']);
    await a.provider.journaled(); // real disk I/O: done before the clock is pumped
    await pumped(clock, () => a.provider.shutdown({ timeoutMs: 1_000 }));
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(0);
  });

  it('a journal from before turns named their bank is replayed to the bank in use', async () => {
    const server = await fake();
    const hermesHome = home();
    const dir = hindsightOutboxDir(hermesHome);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const turn = JSON.stringify([
      { role: 'user', content: 'User: old turn', timestamp: '2026-03-01T12:00:00+00:00' },
      { role: 'assistant', content: 'Assistant: old reply', timestamp: '2026-03-01T12:00:00+00:00' },
    ]);
    const line = {
      v: 1,
      put: '1-aaaaaaaaaaaa-0',
      at: 1,
      data: { sessionId: 's-0', parentSessionId: '', turn },
    };
    fs.writeFileSync(path.join(dir, '1-aaaaaaaaaaaa.0.jsonl'), `${JSON.stringify(line)}\n`, { mode: 0o600 });
    const b = await started(server, { bankIdTemplate: 'hermes-{session}' }, { sessionId: 's-1', hermesHome });
    await b.provider.idle();
    expect(retainedTurns(server)).toEqual([['s-0', ['User: old turn']]]);
    const [retain] = server.requestsTo('POST /v1/default/banks/:bank/memories');
    expect(retain?.path.split('/')[4]).toBe('hermes-s-1');
  });

  it('kill -9 mid-outage: every turn the killed agent had on disk is retained by the next start, once, in order', async () => {
    const server = await fake();
    const hermesHome = home();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    const child = startChildWorker(CHILD, {
      args: [hermesHome, server.url, KEY],
      execArgv: ['--import', 'tsx'],
    });
    await child.waitForLines(4, (line) => line.startsWith('held '));
    const exit = await child.kill('SIGKILL');
    expect(exit.signal ?? exit.code, exit.stderr.slice(-400)).toBe('SIGKILL');
    const held = child.lines.filter((l) => l.startsWith('held ')).length;
    expect(userTurns(server, 's-1')).toEqual([]);

    server.clearFaults();
    const b = await started(server, {}, { sessionId: 's-2', hermesHome });
    await b.provider.idle();
    const got = userTurns(server, 's-1');
    const confirmed = Array.from({ length: held }, (_, i) => `User: user turn ${i + 1}`);
    expect(got.slice(0, held)).toEqual(confirmed);
    expect(got.length - held).toBeLessThanOrEqual(1);
    expect(new Set(got).size).toBe(got.length);
  }, 30_000);

  it('two live agents on one home never retain the same held turn twice', async () => {
    const server = await fake();
    const hermesHome = home();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    const a = await started(server, { retainEveryNTurns: 5 }, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await a.provider.journaled();
    server.clearFaults();
    // b starts while a runs (and holds turn 1): it must not take a's turn.
    const b = await started(server, {}, { sessionId: 's-2', hermesHome });
    expect(b.provider.turnsOnDisk).toBe(0);
    b.provider.syncTurn('user turn 2', 'reply 2');
    await b.provider.idle();
    await a.provider.shutdown({ timeoutMs: 5_000 });
    await b.provider.shutdown({ timeoutMs: 5_000 });
    expect(userTurns(server, 's-1')).toEqual(['User: user turn 1']);
    expect(userTurns(server, 's-2')).toEqual(['User: user turn 2']);
    expect(hindsightTurnsOnDisk(hermesHome)).toBe(0);
  });

  it('the outbox is private: folder 0700, journal and lock 0600', async () => {
    const server = await fake();
    const hermesHome = home();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    const a = await started(server, { retainEveryNTurns: 5 }, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await a.provider.journaled();
    const dir = hindsightOutboxDir(hermesHome);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(dir);
    expect(files.some((f) => f.endsWith('.jsonl'))).toBe(true);
    for (const f of files) expect(fs.statSync(path.join(dir, f)).mode & 0o777, f).toBe(0o600);
    server.clearFaults();
  });
});
