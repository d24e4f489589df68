import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import { providerCliTestContext, runProviderCliCommand } from '@hermes-memory/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createRetaindbProvider } from '../index';
import { FAKE_RETAINDB_KEY, startFakeRetaindb } from '../testing';
import retaindbCli from './index';

const backend = await startFakeRetaindb();
afterAll(() => backend.close());
let home: string;
beforeEach(() => {
  backend.reset();
  backend.clearFaults();
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-retaindb-cli-'));
  fs.writeFileSync(
    path.join(home, '.env'),
    `RETAINDB_API_KEY=${FAKE_RETAINDB_KEY}\nRETAINDB_BASE_URL=${backend.url}\n`,
  );
  fs.writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  provider: retaindb\n');
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const run = (argv: string[], json = true) => runProviderCliCommand(retaindbCli, argv, { home, json });

/** Leave `count` turns in the queue, as an agent that lost the service and exited would. */
async function leaveTurns(count: number) {
  backend.fail({ type: 'status', status: 503, path: '/v1/memory/ingest/session', count: 1000 });
  const provider = createRetaindbProvider(
    { backoffMs: 60_000 },
    { env: { RETAINDB_API_KEY: FAKE_RETAINDB_KEY, RETAINDB_BASE_URL: backend.url } },
  );
  await provider.initialize('s1', {
    hermesHome: home,
    platform: 'cli',
    agentContext: 'primary',
    logger: silentLogger,
    env: { RETAINDB_API_KEY: FAKE_RETAINDB_KEY, RETAINDB_BASE_URL: backend.url },
  });
  for (let i = 0; i < count; i++) provider.syncTurn(`queued turn ${i}`, 'ok');
  await vi.waitFor(() => expect(provider.queue?.stats.failures).toBe(1), { timeout: 5000, interval: 5 });
  await provider.shutdown({ timeoutMs: 50 });
  backend.clearFaults();
}

describe('hermes-memory retaindb (the ./cli module)', () => {
  it('declares queue and test, status, doctor and the setup check', () => {
    expect(retaindbCli.provider).toBe('retaindb');
    expect(retaindbCli.commands?.map((c) => c.name)).toEqual(['queue', 'test']);
    expect(retaindbCli.status).toBeTypeOf('function');
    expect(retaindbCli.doctor).toBeTypeOf('function');
    expect(retaindbCli.postSetup).toBeTypeOf('function');
  });

  it('queue inspects the waiting turns, with attempts and the last error', async () => {
    expect(JSON.parse((await run(['queue'])).stdout)).toMatchObject({ exists: false, pending: 0 });
    await leaveTurns(3);
    const result = await run(['queue']);
    expect(result.code).toBe(0);
    const snapshot = JSON.parse(result.stdout);
    expect(snapshot).toMatchObject({ exists: true, pending: 3 });
    expect(snapshot.rows.map((r: { preview: string }) => r.preview)).toEqual([
      'queued turn 0',
      'queued turn 1',
      'queued turn 2',
    ]);
    expect(snapshot.rows[0].last_error).toMatch(/503/);
    expect(snapshot.writer).toBeNull(); // released at shutdown
    const text = await run(['queue'], false);
    expect(text.stdout).toContain('3 turn(s) waiting');
  });

  it('queue replay sends the waiting turns now, exactly once', async () => {
    await leaveTurns(3);
    const result = await run(['queue', 'replay', '--timeout', '10']);
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ before: 3, sent: 3, left: 0, drained: true });
    expect(backend.dump().ingests.map((i) => i.messages[0]?.content)).toEqual([
      'queued turn 0',
      'queued turn 1',
      'queued turn 2',
    ]);
    expect(JSON.parse((await run(['queue'])).stdout).pending).toBe(0);
  });

  it('test checks the connection; a wrong key fails without echoing it', async () => {
    expect(JSON.parse((await run(['test'])).stdout).status).toBe('ok');
    fs.writeFileSync(
      path.join(home, '.env'),
      `RETAINDB_API_KEY=wrong-key-123\nRETAINDB_BASE_URL=${backend.url}\n`,
    );
    const failed = await run(['test']);
    expect(failed.code).toBe(1);
    expect(failed.stdout + failed.stderr).not.toContain('wrong-key-123');
  });

  it('status reports the queue file, the project and the health of the service', async () => {
    await leaveTurns(2);
    const { ctx } = providerCliTestContext(retaindbCli, { home });
    const report = await retaindbCli.status!(ctx);
    expect(report.stores?.[0]).toMatchObject({
      name: 'retaindb_queue.db',
      exists: true,
      detail: '2 turn(s) waiting',
    });
    expect(report.details).toMatchObject({ queue_pending: 2, health: 'ok', base_url: backend.url });
    expect(String(report.details?.project)).toMatch(/^hermes-hm-retaindb-cli-/);
  });

  it('doctor checks the key, the file mode, integrity and the backlog', async () => {
    await leaveTurns(1);
    fs.chmodSync(path.join(home, 'retaindb_queue.db'), 0o644);
    const { ctx } = providerCliTestContext(retaindbCli, { home });
    const checks = await retaindbCli.doctor!(ctx);
    const byId = Object.fromEntries(checks.map((c) => [c.id, c.status]));
    expect(byId).toMatchObject({
      'api-key': 'ok',
      'private-files': 'fail',
      integrity: 'ok',
      backlog: 'warn',
    });
  });
});
