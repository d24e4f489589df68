import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ManualClock } from '@hermes-memory/core';
import {
  collectLogs,
  createFakeExecutable,
  type FakeExecutable,
  tempHermesHome,
} from '@hermes-memory/testkit';
import type { FakeServer } from '@hermes-memory/testkit/http';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenvikingProvider } from './index';
import { advanceUntil, initContext } from './test-support/rig';
import { type FakeOpenvikingState, startFakeOpenviking } from './testing';

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

function home(): string {
  const h = tempHermesHome('hm-ov-conn-');
  cleanup.push(() => h.cleanup());
  return h.path;
}

/** A loopback port nothing listens on (taken from the OS, then released). */
async function freePort(): Promise<number> {
  const s = await startFakeOpenviking();
  const port = s.port;
  await s.close();
  return port;
}

async function provider(
  env: Record<string, string>,
  options: Parameters<typeof createOpenvikingProvider>[0] = {},
) {
  const clock = new ManualClock(5_000_000);
  const logs = collectLogs();
  const h = home();
  const p = createOpenvikingProvider({ clock, timeoutMs: 2000, ...options });
  await p.initialize('s1', { ...initContext(h, logs), env });
  cleanup.push(() => p.shutdown({ timeoutMs: 500 }));
  return { p, clock, logs, home: h, env };
}

describe('runtime health', () => {
  it('§4.9.6 unreachable: tools answer "not connected", health is down, nothing is written; re-probed at most every 30 s', async () => {
    const port = await freePort();
    const { p, clock } = await provider(
      { OPENVIKING_ENDPOINT: `http://127.0.0.1:${port}` },
      { autoStart: false },
    );
    await p.idle();
    expect(p.connectionState!.state).toBe('unreachable');
    expect(p.health()!.status).toBe('down');
    const answer = JSON.parse(await p.handleToolCall('viking_search', { query: 'tea' }));
    expect(answer).toMatchObject({ success: false, error: 'OpenViking server not connected' });
    p.syncTurn('The user likes green tea a lot', 'Noted.');
    expect(p.pendingWork).toBe(0);
    // The server comes up on that port: not probed again before the cooldown ends.
    const server = await startFakeOpenviking({ port });
    cleanup.push(() => server.close());
    await clock.advance(29_000);
    expect(JSON.parse(await p.handleToolCall('viking_search', { query: 'tea' })).error).toBe(
      'OpenViking server not connected',
    );
    expect(server.requests).toHaveLength(0);
    await clock.advance(1_000);
    expect(JSON.parse(await p.handleToolCall('viking_search', { query: 'tea' }))).toEqual({
      results: [],
      total: 0,
    });
    expect(server.requests[0]!.path).toBe('/health');
    expect(server.requests.map((r) => r.path)).toContain('/api/v1/search/find');
    expect(p.connectionState!.state).toBe('connected');
  });

  it('§4.9.6 unhealthy or not OpenViking: disabled with the reason; a config change rebuilds and probes at once', async () => {
    const sick = await startFakeOpenviking({ health: 'unhealthy' });
    const good = await startFakeOpenviking();
    cleanup.push(
      () => sick.close(),
      () => good.close(),
    );
    const env: Record<string, string> = { OPENVIKING_ENDPOINT: sick.url };
    const { p } = await provider(env, { autoStart: false });
    await p.idle();
    expect(p.connectionState!.state).toBe('unhealthy');
    expect(p.health()).toMatchObject({ status: 'down', reason: expect.stringContaining('healthy: false') });
    expect(JSON.parse(await p.handleToolCall('viking_browse', { action: 'list' })).error).toBe(
      'OpenViking server not connected',
    );
    // Live reconfiguration: the next access sees the new endpoint and probes without waiting 30 s.
    env.OPENVIKING_ENDPOINT = good.url;
    const listed = JSON.parse(await p.handleToolCall('viking_browse', { action: 'list' }));
    expect(listed.entries.map((e: { name: string }) => e.name)).toEqual(['resources', 'skills', 'user']);
    expect(p.connectionState!.state).toBe('connected');
  });

  it('§4.9.6 an invalid endpoint leaves the provider off with a warning (never replaced by a default)', async () => {
    const { p, logs } = await provider({ OPENVIKING_ENDPOINT: 'http://169.254.169.254' });
    await p.idle();
    expect(p.isAvailable()).toBe(false);
    expect(logs.contains(/blocked address/)).toBe(true);
    expect(JSON.parse(await p.handleToolCall('viking_search', { query: 'x' })).error).toBe(
      'OpenViking server not connected',
    );
  });
});

describe('local server auto-start', () => {
  async function fakeServerProgram(onStart?: (port: number) => Promise<void>): Promise<FakeExecutable> {
    const exe = await createFakeExecutable('openviking-server');
    cleanup.push(() => exe.close());
    exe.respondWith(async (run) => {
      const port = Number(run.argv[run.argv.indexOf('--port') + 1]);
      await onStart?.(port);
      return { hang: true };
    });
    return exe;
  }

  it('§4.9.7 nothing answers on a loopback endpoint: openviking-server is started detached and attached when healthy', async () => {
    const port = await freePort();
    let server: FakeServer<FakeOpenvikingState> | null = null;
    const exe = await fakeServerProgram(async (p) => {
      server = await startFakeOpenviking({ port: p });
      cleanup.push(() => server?.close());
    });
    const env = {
      OPENVIKING_ENDPOINT: `http://127.0.0.1:${port}`,
      PATH: `${exe.dir}:/usr/bin:/bin`,
      PYTHONPATH: '/should/not/pass',
      HOME: '/tmp',
    };
    const { p, clock, logs, home: h } = await provider(env);
    await advanceUntil(clock, () => p.connectionState!.lastLaunch !== null);
    const launch = p.connectionState!.lastLaunch!;
    expect(launch.status).toBe('spawned');
    if (launch.status === 'spawned') cleanup.push(() => process.kill(launch.pid, 'SIGKILL'));
    // The launched server comes up in real time; the 60 s wait for it runs on the ManualClock, which
    // stands still until the server listens (else, on a busy machine, it raced through the wait).
    await advanceUntil(clock, () => p.connectionState!.state === 'connected', {
      hold: () => server === null,
    });
    expect(exe.invocations[0]!.argv).toEqual(['--host', '127.0.0.1', '--port', String(port)]);
    expect(exe.invocations[0]!.env.PYTHONPATH).toBeUndefined();
    expect(exe.invocations[0]!.stdin).toBe('');
    const log = path.join(h, 'logs', 'openviking-server.log');
    expect(fs.statSync(log).mode & 0o777).toBe(0o600);
    expect(logs.contains('is reachable; OpenViking memory is active for later turns.')).toBe(true);
    expect(JSON.parse(await p.handleToolCall('viking_search', { query: 'anything at all' }))).toEqual({
      results: [],
      total: 0,
    });
  });

  it('§4.9.7 the waiter gives up after 60 s with a warning naming the log', async () => {
    const port = await freePort();
    const exe = await fakeServerProgram();
    const { p, clock, logs } = await provider({
      OPENVIKING_ENDPOINT: `http://127.0.0.1:${port}`,
      PATH: exe.dir,
    });
    await advanceUntil(clock, () => p.connectionState!.lastLaunch !== null);
    const launch = p.connectionState!.lastLaunch!;
    if (launch.status === 'spawned') cleanup.push(() => process.kill(launch.pid, 'SIGKILL'));
    const started = clock.now();
    await advanceUntil(clock, () => logs.contains('did not become reachable within 60 s'), {
      maxClockMs: 70_000,
    });
    expect(clock.now() - started).toBeGreaterThanOrEqual(60_000);
    expect(p.connectionState!.state).toBe('unreachable');
  });

  it('§4.9.7 never started over an occupied port, an unhealthy server, a missing program or a remote endpoint', async () => {
    // Occupied: something accepts connections but is not OpenViking.
    const tcp = net.createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise((resolve) => tcp.close(resolve)));
    const exe = await fakeServerProgram();
    const occupied = await provider({
      OPENVIKING_ENDPOINT: `http://127.0.0.1:${(tcp.address() as net.AddressInfo).port}`,
      PATH: exe.dir,
    });
    await occupied.p.idle();
    expect(occupied.p.connectionState!.lastLaunch).toMatchObject({ status: 'occupied' });
    // Unhealthy: it answered, so nothing is started over it.
    const sick = await startFakeOpenviking({ health: 'unhealthy' });
    cleanup.push(() => sick.close());
    const unhealthy = await provider({ OPENVIKING_ENDPOINT: sick.url, PATH: exe.dir });
    await unhealthy.p.idle();
    expect(unhealthy.p.connectionState!.lastLaunch).toBeNull();
    // Missing program: a warning, no waiting.
    const port = await freePort();
    const missing = await provider({ OPENVIKING_ENDPOINT: `http://127.0.0.1:${port}`, PATH: '/nonexistent' });
    await missing.p.idle();
    expect(missing.p.connectionState!.lastLaunch).toMatchObject({ status: 'missing' });
    expect(missing.logs.contains(/openviking-server is not on PATH/)).toBe(true);
    expect(missing.p.connectionState!.autoStartWaiter).toBeNull();
    // Remote endpoints (and https on localhost) only warn.
    const remote = await provider({ OPENVIKING_ENDPOINT: `https://localhost:${port}`, PATH: exe.dir });
    await remote.p.idle();
    expect(remote.p.connectionState!.lastLaunch).toBeNull();
    expect(remote.logs.contains(/unreachable/)).toBe(true);
    expect(exe.invocations).toHaveLength(0);
  });
});
