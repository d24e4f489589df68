/**
 * Turns held during an outage survive the process (decision 0115): each captured turn is journaled
 * under HERMES_HOME/supermemory/outbox until the conversation ingest holding it went through; the
 * next provider on the same home ingests what is left, per session, under the session's id.
 * Driven through the official SDK against the shipped fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import { providerCliTestContext, startChildWorker } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import supermemoryCli from '../src/cli/index';
import { supermemoryOutboxDir, supermemoryWritesOnDisk } from '../src/outbox';
import { fake, home, ingests, KEY, started } from './helpers';

const CHILD = new URL('./support/outage-child.ts', import.meta.url).pathname;

describe('supermemory outbox: held turns survive the process', () => {
  it('restart replays: a session whose ingest failed at shutdown is ingested by the next start, once, under its own id', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, {}, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    await a.provider.journaled();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(a.logs.messages('warn').join('\n')).toMatch(
      /2 turn\(s\) not delivered stay on disk .* sent at the next start/,
    );
    expect(a.logs.messages().join('\n')).not.toMatch(/user turn|reply \d/);
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(2);
    expect(ingests(server)).toEqual([]);
    const cli = providerCliTestContext(supermemoryCli, { home: hermesHome, env: { HOME: hermesHome } }).ctx;
    expect((await supermemoryCli.status!(cli)).details).toMatchObject({ waiting_on_disk: 2 });

    server.clearFaults();
    const b = await started(server, {}, { sessionId: 's-2', hermesHome });
    expect(b.logs.messages('info').join('\n')).toMatch(/2 turn\(s\) an earlier run could not deliver/);
    await b.provider.idle();
    expect(ingests(server)).toEqual([['s-1', ['user turn 1', 'user turn 2']]]);
    const doc = server.state.documents.find((d) => d.customId === 's-1');
    expect(doc?.messages?.map((m) => m.content)).toEqual([
      'user turn 1',
      'reply 1',
      'user turn 2',
      'reply 2',
    ]);
    b.provider.syncTurn('user turn 3', 'reply 3');
    await b.provider.onSessionEnd([]);
    await b.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
    const c = await started(server, {}, { sessionId: 's-3', hermesHome });
    await c.provider.idle();
    expect(ingests(server)).toEqual([
      ['s-1', ['user turn 1', 'user turn 2']],
      ['s-2', ['user turn 3']],
    ]);
  });

  it("restart replays a turn into the container it was written for, not the next agent identity's", async () => {
    const server = await fake();
    const hermesHome = home();
    const perIdentity = { containerTag: 'hermes-{identity}' };
    const a = await started(server, perIdentity, { sessionId: 's-1', hermesHome, agentIdentity: 'coder' });
    server.fail({ type: 'status', status: 500, count: 100_000 });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await a.provider.journaled();
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(1);

    server.clearFaults();
    const b = await started(server, perIdentity, { sessionId: 's-2', hermesHome, agentIdentity: 'writer' });
    expect(b.provider.containerTag).toBe('hermes_writer');
    await b.provider.idle();
    expect(ingests(server)).toEqual([['s-1', ['user turn 1']]]);
    const sent = server.requestsTo('/v4/conversations').filter((r) => r.status === 200);
    expect(sent.map((r) => (r.body as { containerTags: string[] }).containerTags)).toEqual([
      ['hermes_coder'],
    ]);
    await b.provider.journaled();
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
  });

  it('kill -9 mid-session: every turn the killed agent had on disk is ingested by the next start, in order', async () => {
    const server = await fake();
    const hermesHome = home();
    const child = startChildWorker(CHILD, {
      args: [hermesHome, server.url, KEY],
      execArgv: ['--import', 'tsx'],
    });
    await child.waitForLines(4, (line) => line.startsWith('held '));
    const exit = await child.kill('SIGKILL');
    expect(exit.signal ?? exit.code, exit.stderr.slice(-400)).toBe('SIGKILL');
    const held = child.lines.filter((l) => l.startsWith('held ')).length;
    expect(ingests(server)).toEqual([]);

    const b = await started(server, {}, { sessionId: 's-2', hermesHome });
    await b.provider.idle();
    const [only, ...rest] = ingests(server);
    expect(rest).toEqual([]);
    expect(only![0]).toBe('s-1');
    const confirmed = Array.from({ length: held }, (_, i) => `user turn ${i + 1}`);
    expect(only![1].slice(0, held)).toEqual(confirmed);
    expect(only![1].length - held).toBeLessThanOrEqual(1);
  }, 30_000);

  it('two live agents on one home never ingest the same held turn twice', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, {}, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await a.provider.journaled();
    const b = await started(server, {}, { sessionId: 's-2', hermesHome });
    expect(b.provider.writesOnDisk).toBe(0);
    b.provider.syncTurn('user turn 2', 'reply 2');
    await a.provider.shutdown({ timeoutMs: 5_000 });
    await b.provider.shutdown({ timeoutMs: 5_000 });
    expect(ingests(server)).toEqual([
      ['s-1', ['user turn 1']],
      ['s-2', ['user turn 2']],
    ]);
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
  });

  it('the outbox is private: folder 0700, journal and lock 0600', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, {}, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    await a.provider.journaled();
    const dir = supermemoryOutboxDir(hermesHome);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    const files = fs.readdirSync(dir);
    expect(files.some((f) => f.endsWith('.jsonl'))).toBe(true);
    for (const f of files) expect(fs.statSync(path.join(dir, f)).mode & 0o777, f).toBe(0o600);
  });
});

describe('supermemory outbox: a replay that fails is sent again in the same process', () => {
  it('adopted while the service is down: ingested once it answers again (the breaker closes), in order, exactly once', async () => {
    const server = await fake();
    const hermesHome = home();
    server.fail({ type: 'status', status: 500, count: 100_000 });
    const a = await started(server, {}, { sessionId: 's-1', hermesHome });
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.syncTurn('user turn 2', 'reply 2');
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(2);

    const b = await started(
      server,
      { breakerThreshold: 1, breakerCooldownMs: 0 },
      { sessionId: 's-2', hermesHome },
    );
    await b.provider.idle(); // the adopted ingest fails: the breaker opens
    expect(ingests(server)).toEqual([]);
    expect(b.provider.writesOnDisk).toBe(2);
    server.clearFaults();
    b.provider.onTurnStart(1, 'what do I like to eat for dinner?'); // the trial request: it answers
    await b.provider.idle();
    await b.provider.idle();
    expect(ingests(server)).toEqual([['s-1', ['user turn 1', 'user turn 2']]]);
    expect(b.provider.writesOnDisk).toBe(0);
    b.provider.syncTurn('user turn 3', 'reply 3');
    await b.provider.onSessionEnd([]);
    await b.provider.shutdown({ timeoutMs: 5_000 });
    expect(ingests(server)).toEqual([
      ['s-1', ['user turn 1', 'user turn 2']],
      ['s-2', ['user turn 3']],
    ]);
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
  });

  it('a session ingest that failed goes out after the next one that goes through, once', async () => {
    const server = await fake();
    const hermesHome = home();
    const a = await started(server, {}, { sessionId: 's-1', hermesHome });
    server.fail({ type: 'status', status: 500, count: 100_000 });
    a.provider.syncTurn('user turn 1', 'reply 1');
    a.provider.onSessionSwitch('s-2', {});
    await a.provider.idle();
    expect(ingests(server)).toEqual([]);
    server.clearFaults();
    a.provider.syncTurn('user turn 2', 'reply 2');
    await a.provider.onSessionEnd([]);
    await a.provider.idle();
    expect(ingests(server)).toEqual([
      ['s-2', ['user turn 2']],
      ['s-1', ['user turn 1']],
    ]);
    await a.provider.shutdown({ timeoutMs: 5_000 });
    expect(ingests(server)).toHaveLength(2);
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
  });
});

describe('supermemory outbox: re-initialized during an outage (core handover, decision 0115)', () => {
  it('turns held when the provider is initialized again are delivered in the same run once the service answers: each once, in order', async () => {
    const server = await fake();
    const hermesHome = home();
    const { provider, logs } = await started(server, {}, { sessionId: 's-1', hermesHome });
    server.fail({ type: 'status', status: 500, count: 100_000, path: '/v4/conversations' });
    provider.syncTurn('user turn 1', 'reply 1');
    provider.syncTurn('user turn 2', 'reply 2');
    await provider.onSessionEnd([]); // fails: turns 1..2 wait on disk
    provider.syncTurn('user turn 3', 'reply 3'); // buffered, journaled a moment ago
    expect(ingests(server)).toEqual([]);

    // Initialized again at once (the old outbox's close still waits for its writes).
    await provider.initialize('s-2', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      logger: logs.logger,
      env: {},
    });
    expect(provider.writesOnDisk).toBe(3);
    await provider.idle(); // the replay of s-1 fails: the service is still down
    expect(ingests(server)).toEqual([]);

    server.clearFaults();
    provider.syncTurn('user turn 4', 'reply 4');
    await provider.onSessionEnd([]); // goes through; what s-1 left follows it
    await provider.idle();
    expect(ingests(server)).toEqual([
      ['s-2', ['user turn 4']],
      ['s-1', ['user turn 1', 'user turn 2', 'user turn 3']],
    ]);
    expect(provider.writesOnDisk).toBe(0);
    await provider.shutdown({ timeoutMs: 5_000 });
    expect(supermemoryWritesOnDisk(hermesHome)).toBe(0);
    // Nothing is left for a later start.
    const next = await started(server, {}, { sessionId: 's-3', hermesHome });
    await next.provider.idle();
    expect(ingests(server)).toHaveLength(2);
  });
});
