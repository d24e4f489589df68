/**
 * Taken turns survive the process (core's outbox, decision 0115): journaled under
 * HERMES_HOME/openviking/outbox until they reached their session; what an outage, a shutdown or a
 * kill -9 left is posted by the next start to its own session, in order, which is then committed.
 * Over the real wire protocol against the shipped fake, with a child agent killed by SIGKILL.
 */
import {
  collectLogs,
  providerCliTestContext,
  startChildWorker,
  tempHermesHome,
} from '@hermes-memory/testkit';
import openvikingCli from '../cli/index';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenvikingProvider } from '../index';
import { initContext } from '../test-support/rig';
import { startFakeOpenviking } from '../testing';
import { openvikingTurnsOnDisk } from './outbox';

const WORKER = new URL('../test-support/outage-worker.ts', import.meta.url).pathname;
const BATCH = 'POST /api/v1/sessions/:sid/messages/batch';
const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('openviking outbox: taken turns survive the process', () => {
  it('kill -9 during an outage: every turn on disk reaches its own session, in order, and the session commits', async () => {
    const backend = await startFakeOpenviking();
    const home = tempHermesHome('hm-ov-outbox-');
    cleanup.push(
      () => backend.close(),
      () => home.cleanup(),
    );
    backend.fail({ type: 'status', status: 503, count: 1_000_000, path: '/messages/batch' });
    backend.fail({ type: 'status', status: 503, count: 1_000_000, path: '/messages' });
    const child = startChildWorker(WORKER, {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, FAKE_URL: backend.url, HOME_DIR: home.path },
    });
    cleanup.push(() => child.kill());
    await child.waitForLines(4, (l) => l.startsWith('held '));
    const exit = await child.kill('SIGKILL');
    expect(exit.signal ?? exit.code, exit.stderr.slice(-400)).toBe('SIGKILL');
    const held = child.lines.filter((l) => l.startsWith('held ')).length;
    expect(openvikingTurnsOnDisk(home.path)).toBeGreaterThanOrEqual(held);
    const cli = providerCliTestContext(openvikingCli, { home: home.path, env: {} }).ctx;
    expect((await openvikingCli.status!(cli)).details?.waiting_on_disk).toBeGreaterThanOrEqual(held);
    expect((await openvikingCli.doctor!(cli)).find((c) => c.id === 'outbox')).toMatchObject({
      status: 'warn',
    });

    backend.clearFaults();
    const logs = collectLogs();
    const provider = createOpenvikingProvider({ endpoint: backend.url, autoStart: false });
    await provider.initialize('fresh', initContext(home.path, logs));
    cleanup.push(() => provider.shutdown({ timeoutMs: 1000 }));
    await provider.idle();
    expect(logs.contains(/posting \d+ turn\(s\) an earlier run could not deliver/)).toBe(true);
    const posted = backend
      .requestsTo(BATCH)
      .filter((q) => q.status === 200 && q.params.sid === 'crashed')
      .flatMap((q) =>
        (q.body as { messages: Array<{ role: string; parts: Array<{ text?: string }> }> }).messages
          .filter((m) => m.role === 'user')
          .map((m) => m.parts[0]?.text ?? ''),
      );
    const confirmed = Array.from(
      { length: held },
      (_, i) => `Lighthouse fact number ${i + 1} is worth keeping.`,
    );
    expect(posted.slice(0, held)).toEqual(confirmed);
    expect(posted.length - held).toBeLessThanOrEqual(1);
    expect(
      backend.requestsTo('POST /api/v1/sessions/:sid/commit').some((q) => q.params.sid === 'crashed'),
    ).toBe(true);
    await provider.shutdown({ timeoutMs: 1000 });
    expect(openvikingTurnsOnDisk(home.path)).toBe(0);
  }, 30_000);
});
