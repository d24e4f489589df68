/**
 * Writes held during an outage survive the process (decision 0115): what a provider could not
 * deliver is journaled under HERMES_HOME/honcho/outbox and the next provider on the same home
 * delivers it, once and in order, to the session it was written in. Driven through the real SDK
 * against the shipped fake with injected faults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '@hermes-memory/core';
import { collectLogs, providerCliTestContext, startChildWorker } from '@hermes-memory/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import honchoCli from '../src/cli/index';
import { honchoMessagesOnDisk, honchoOutboxDir } from '../src/session/outbox';
import { API_KEY, type Rig, startRig, WORKSPACE } from './harness';

let rig: Rig;
afterEach(async () => rig?.close());

// A real millisecond, not just a turn of the loop: the outbox's fsyncs are real disk I/O.
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

async function pumped<T>(clock: ManualClock, work: Promise<T>, rounds = 400): Promise<T> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  for (let i = 0; i < rounds && !done; i++) {
    for (let j = 0; j < 5 && !done; j++) await tick();
    if (!done) await clock.advance(1_000);
  }
  expect(done).toBe(true);
  return settled;
}

const stored = (session = 'demo') => rig.fake.messages(WORKSPACE, session).map((m) => m.content);
const turnTexts = (...ns: number[]) => ns.flatMap((n) => [`user turn ${n}`, `assistant reply ${n}`]);
const CHILD = new URL('./support/outage-child.ts', import.meta.url).pathname;

describe('honcho outbox: held writes survive the process', () => {
  it('restart replays: turns held through an outage and a shutdown reach the session from the next start, each once, in order', {
    timeout: 30_000,
  }, async () => {
    const clock = new ManualClock();
    rig = await startRig({ clock });
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    const logsA = collectLogs();
    const a = rig.provider({ writeFrequency: 'turn' }, { breakerCooldownMs: 60_000 });
    // The outage is there from the start: the session is never created on the server.
    await pumped(clock, rig.init(a, 'session-1', { logger: logsA.logger }));
    for (let n = 1; n <= 3; n++) await pumped(clock, a.syncTurn(`user turn ${n}`, `assistant reply ${n}`));
    expect(a.health()?.reason).toMatch(/ 6 message\(s\) wait on disk for delivery\.$/);
    await pumped(clock, a.shutdown({ timeoutMs: 1_000 }));
    expect(logsA.messages('warn').join('\n')).toMatch(
      /6 message\(s\) not delivered stay on disk .* are sent at the next start/,
    );
    // Nothing the user wrote reaches the log.
    expect(logsA.messages().join('\n')).not.toMatch(/user turn|assistant reply/);
    expect(honchoMessagesOnDisk(rig.home.path)).toBe(6);
    expect(rig.fake.messages(WORKSPACE, 'demo')).toEqual([]);
    // The user sees it: `hermes-memory honcho status` counts them, doctor warns.
    const cli = providerCliTestContext(honchoCli, { home: rig.home.path, env: { HOME: rig.home.path } }).ctx;
    expect((await honchoCli.status!(cli)).details).toMatchObject({ waitingOnDisk: 6 });
    expect(await honchoCli.doctor!(cli)).toContainEqual(
      expect.objectContaining({
        id: 'outbox',
        status: 'warn',
        detail: expect.stringMatching(/^6 message\(s\)/),
      }),
    );

    rig.fake.clearFaults();
    const logsB = collectLogs();
    // The next run works in another project: the replay still goes to the session it was written in.
    const b = rig.provider({ writeFrequency: 'turn' }, { cwd: '/srv/projects/other' });
    await pumped(clock, rig.init(b, 'session-2', { logger: logsB.logger }));
    expect(logsB.messages('info').join('\n')).toMatch(/6 message\(s\) an earlier run could not deliver/);
    await pumped(clock, b.idle());
    expect(stored('demo')).toEqual(turnTexts(1, 2, 3));
    expect(rig.fake.messages(WORKSPACE, 'demo').map((m) => m.peer_id)).toEqual([
      'alice',
      'hermes',
      'alice',
      'hermes',
      'alice',
      'hermes',
    ]);
    await pumped(clock, b.syncTurn('user turn 4', 'assistant reply 4'));
    expect(stored('other')).toEqual(turnTexts(4));
    await pumped(clock, b.shutdown({ timeoutMs: 1_000 }));
    expect(honchoMessagesOnDisk(rig.home.path)).toBe(0);
    expect((await honchoCli.doctor!(cli)).map((c) => c.id)).not.toContain('outbox');
    // A third start has nothing to send: each message went exactly once.
    const c = rig.provider({ writeFrequency: 'turn' });
    await pumped(clock, rig.init(c, 'session-3'));
    await pumped(clock, c.idle());
    expect(stored('demo')).toEqual(turnTexts(1, 2, 3));
  });

  it('kill -9 mid-outage: every turn the killed agent had on disk is delivered by the next start, once, in order', async () => {
    rig = await startRig();
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    const child = startChildWorker(CHILD, {
      args: [rig.home.path, rig.fake.url, API_KEY],
      execArgv: ['--import', 'tsx'],
    });
    await child.waitForLines(4, (line) => line.startsWith('held '));
    const exit = await child.kill('SIGKILL');
    expect(exit.signal ?? exit.code, exit.stderr.slice(-400)).toBe('SIGKILL');
    const held = child.lines.filter((l) => l.startsWith('held ')).length;
    expect(rig.fake.messages(WORKSPACE, 'demo')).toEqual([]);

    rig.fake.clearFaults();
    const b = rig.provider({ writeFrequency: 'turn' });
    await rig.init(b, 'session-2');
    await b.idle();
    for (let i = 0; i < 200 && stored().length < 2 * held; i++) await new Promise((r) => setTimeout(r, 5));
    const got = stored();
    // Every turn it confirmed, in order; at most the one it was writing when killed beyond that.
    expect(got.slice(0, 2 * held)).toEqual(turnTexts(...Array.from({ length: held }, (_, i) => i + 1)));
    expect(got.length - 2 * held).toBeLessThanOrEqual(2);
    expect(new Set(got).size).toBe(got.length);
  }, 30_000);

  it('two live agents on one home never deliver the same held message twice', async () => {
    rig = await startRig();
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    const a = rig.provider({ writeFrequency: 'session' });
    await rig.init(a, 'session-1');
    await a.syncTurn('user turn 1', 'assistant reply 1');
    rig.fake.clearFaults();
    // b starts while a still runs (and holds turn 1): it must not take a's messages.
    const logsB = collectLogs();
    const b = rig.provider({ writeFrequency: 'turn' }, { cwd: '/srv/projects/other' });
    await rig.init(b, 'session-2', { logger: logsB.logger });
    await b.idle();
    expect(logsB.messages().join('\n')).not.toMatch(/earlier run/);
    await b.syncTurn('user turn 2', 'assistant reply 2');
    await a.shutdown({ timeoutMs: 5_000 });
    await b.shutdown({ timeoutMs: 5_000 });
    expect(stored('demo')).toEqual(turnTexts(1));
    expect(stored('other')).toEqual(turnTexts(2));
    expect(honchoMessagesOnDisk(rig.home.path)).toBe(0);
  });

  it("initialize again closes the old writer's outbox (lock and handle) and the new one adopts its messages: delivered once, in order", async () => {
    rig = await startRig();
    const a = rig.provider({ writeFrequency: 'session' });
    await rig.init(a, 'session-1');
    await a.syncTurn('user turn 1', 'assistant reply 1');
    await a.syncTurn('user turn 2', 'assistant reply 2');
    for (let i = 0; i < 200 && honchoMessagesOnDisk(rig.home.path) < 4; i++) await tick();
    expect(honchoMessagesOnDisk(rig.home.path)).toBe(4);
    const logs = collectLogs();
    await rig.init(a, 'session-1', { logger: logs.logger });
    const locks = fs.readdirSync(honchoOutboxDir(rig.home.path)).filter((f) => f.endsWith('.lock'));
    expect(locks).toHaveLength(1);
    expect(logs.messages('info').join('\n')).toMatch(/4 message\(s\) an earlier run could not deliver/);
    await a.idle();
    await a.shutdown({ timeoutMs: 5_000 });
    expect(stored('demo')).toEqual(turnTexts(1, 2));
    expect(honchoMessagesOnDisk(rig.home.path)).toBe(0);
    expect(fs.readdirSync(honchoOutboxDir(rig.home.path))).toEqual([]);
  });

  it('initialize again while a send is in flight: the send completes after the re-initialize and the message is delivered once', async () => {
    rig = await startRig();
    const a = rig.provider({ writeFrequency: 'turn' });
    await rig.init(a, 'session-1');
    await a.idle();
    const release = rig.fake.holdWrites();
    const saving = a.syncTurn('user turn 1', 'assistant reply 1');
    for (let i = 0; i < 2000 && rig.fake.heldWrites() < 1; i++) await tick();
    expect(rig.fake.heldWrites()).toBe(1);
    // The journal has the turn, so the next outbox takes it over (in-process handover).
    for (let i = 0; i < 200 && honchoMessagesOnDisk(rig.home.path) < 2; i++) await tick();
    await rig.init(a, 'session-1');
    // The send of before is still held at the server: it is let through, and it succeeds.
    release();
    await saving;
    await a.idle();
    await a.syncTurn('user turn 2', 'assistant reply 2');
    await a.idle();
    await a.shutdown({ timeoutMs: 5_000 });
    expect(stored('demo')).toEqual(turnTexts(1, 2));
    // One write per turn, each answered: the held one was not aborted, nor sent again.
    const writes = rig.fake.requestsTo('POST /v3/workspaces/:workspace/sessions/:session/messages');
    expect(writes.map((r) => r.status)).toEqual([200, 200]);
    expect(honchoMessagesOnDisk(rig.home.path)).toBe(0);
  });

  it('the outbox is private: folder 0700, journal and lock 0600', async () => {
    rig = await startRig();
    rig.fake.fail({ type: 'status', status: 500, count: 100_000 });
    const a = rig.provider({ writeFrequency: 'session' });
    await rig.init(a, 'session-1');
    await a.syncTurn('user turn 1', 'assistant reply 1');
    for (let i = 0; i < 200 && honchoMessagesOnDisk(rig.home.path) < 2; i++) await tick();
    const dir = honchoOutboxDir(rig.home.path);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(dir);
    expect(files.some((f) => f.endsWith('.jsonl'))).toBe(true);
    expect(files.some((f) => f.endsWith('.lock'))).toBe(true);
    for (const f of files) expect(fs.statSync(path.join(dir, f)).mode & 0o777, f).toBe(0o600);
  });
});
