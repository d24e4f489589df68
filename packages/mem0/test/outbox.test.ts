/**
 * Accepted writes survive the process (core's outbox, decision 0115): each synced turn or mirrored
 * memory write is journaled under HERMES_HOME/mem0/outbox until Mem0 confirmed it; the next start
 * on the same home sends what is left. Driven through the official SDK against the Platform fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRecordingLogger } from '@hermes-memory/core';
import { providerCliTestContext, startChildWorker } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import { Mem0Provider } from '../src';
import { MAX_WAITING_WRITES } from '../src/provider';
import mem0Cli from '../src/cli';
import { mem0OutboxDir, mem0WritesOnDisk } from '../src/outbox';
import { initContext, PLATFORM_KEY, platformFake, platformSettings, tempHome } from './helpers';

const CHILD = new URL('./support/outage-child.ts', import.meta.url).pathname;
const ADD = 'POST /v3/memories/add/';
type Fake = Awaited<ReturnType<typeof platformFake>>;

/** The first message of each add Mem0 accepted, in arrival order. */
function stored(fake: Fake): string[] {
  return fake
    .requestsTo(ADD)
    .filter((r) => r.status === 200)
    .map((r) => (r.body as { messages: Array<{ content: string }> }).messages[0]!.content);
}

async function start(fake: Fake, home: string) {
  const logger = createRecordingLogger();
  const provider = new Mem0Provider(platformSettings(fake));
  await provider.initialize('s1', initContext(home, { logger }));
  const messages = (level: string) => logger.records.filter((r) => r.level === level).map((r) => r.message);
  return { provider, messages };
}

describe('mem0 outbox: accepted writes survive the process', () => {
  it('a restart sends what an outage left, once, in order; the outbox is then empty', async () => {
    const fake = await platformFake();
    const home = tempHome();
    const a = await start(fake, home);
    fake.fail({ type: 'status', status: 503, count: 100_000, path: '/v3/memories/add/' });
    a.provider.syncTurn('user turn 1 is about tea.', 'reply 1');
    a.provider.onMemoryWrite('add', 'user', 'Prefers short answers.');
    await a.provider.idle();
    expect(a.provider.writesOnDisk).toBe(2);
    expect(a.provider.health()?.reason).toMatch(
      /2 write\(s\) wait in the outbox \(sent once Mem0 answers; the next start sends what is left\)/,
    );
    await a.provider.shutdown({ timeoutMs: 1000 });
    expect(a.messages('warn').join('\n')).toMatch(/2 stay on disk and are sent at the next start/);
    expect(a.messages('warn').join('\n')).not.toMatch(/user turn 1|short answers/);
    expect(mem0WritesOnDisk(home)).toBe(2);
    expect(stored(fake)).toEqual([]);
    const cli = providerCliTestContext(mem0Cli, { home, env: { MEM0_TELEMETRY: 'false' } }).ctx;
    expect((await mem0Cli.status!(cli)).details).toMatchObject({ waiting_on_disk: 2 });
    expect((await mem0Cli.doctor!(cli)).find((c) => c.id === 'outbox')).toMatchObject({ status: 'warn' });

    fake.clearFaults();
    const b = await start(fake, home);
    expect(b.messages('info').join('\n')).toMatch(/sending 2 write\(s\) an earlier run could not deliver/);
    await b.provider.idle();
    expect(stored(fake)).toEqual(['user turn 1 is about tea.', 'Prefers short answers.']);
    await b.provider.shutdown({ timeoutMs: 1000 });
    expect(mem0WritesOnDisk(home)).toBe(0);
    const c = await start(fake, home);
    await c.provider.idle();
    expect(stored(fake)).toHaveLength(2);
    await c.provider.shutdown({ timeoutMs: 1000 });
  });

  it('kill -9 during an outage: every turn the killed agent had on disk is sent by the next start, in order', async () => {
    const fake = await platformFake();
    const home = tempHome();
    fake.fail({ type: 'status', status: 503, count: 1_000_000, path: '/v3/memories/add/' });
    const child = startChildWorker(CHILD, {
      args: [home, fake.url, PLATFORM_KEY],
      execArgv: ['--import', 'tsx'],
    });
    await child.waitForLines(4, (line) => line.startsWith('held '));
    const exit = await child.kill('SIGKILL');
    expect(exit.signal ?? exit.code, exit.stderr.slice(-400)).toBe('SIGKILL');
    const held = child.lines.filter((l) => l.startsWith('held ')).length;
    expect(stored(fake)).toEqual([]);

    fake.clearFaults();
    const b = await start(fake, home);
    await b.provider.idle();
    const sent = stored(fake);
    const confirmed = Array.from({ length: held }, (_, i) => `user turn ${i + 1} is about tea.`);
    expect(sent.slice(0, held)).toEqual(confirmed);
    expect(sent.length - held).toBeLessThanOrEqual(1);
    await b.provider.shutdown({ timeoutMs: 1000 });
    expect(mem0WritesOnDisk(home)).toBe(0);
  }, 30_000);

  it('the outbox is private: folder 0700, journal and lock 0600', async () => {
    const fake = await platformFake();
    const home = tempHome();
    const a = await start(fake, home);
    fake.fail({ type: 'status', status: 503, count: 100, path: '/v3/memories/add/' });
    a.provider.syncTurn('user turn 1 is about tea.', 'reply 1');
    await a.provider.journaled();
    const dir = mem0OutboxDir(home);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(dir);
    expect(files.some((f) => f.endsWith('.jsonl'))).toBe(true);
    for (const f of files) expect(fs.statSync(path.join(dir, f)).mode & 0o777, f).toBe(0o600);
    await a.provider.shutdown({ timeoutMs: 1000 });
  });
});

describe('mem0 outbox: bounded', () => {
  it(`a long outage keeps the newest ${MAX_WAITING_WRITES} writes on disk; the dropped count is told`, async () => {
    const fake = await platformFake();
    const home = tempHome();
    const a = await start(fake, home);
    fake.fail({ type: 'status', status: 503, count: 100_000, path: '/v3/memories/add/' });
    for (let n = 1; n <= MAX_WAITING_WRITES + 3; n++)
      a.provider.syncTurn(`user turn ${n} is about tea.`, 'ok');
    await a.provider.idle();
    expect(a.provider.writesOnDisk).toBe(MAX_WAITING_WRITES);
    expect(a.provider.health()?.reason).toMatch(/3 older one\(s\) dropped over the cap of 1000/);
    expect(a.messages('warn').filter((m) => /dropping the oldest/.test(m))).toHaveLength(1);
    await a.provider.shutdown({ timeoutMs: 1000 });
    expect(mem0WritesOnDisk(home)).toBe(MAX_WAITING_WRITES);
  });
});
