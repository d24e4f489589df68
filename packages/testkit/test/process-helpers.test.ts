import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv, findExecutable, ManualClock, runCommand } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeExecutable, type FakeExecutable, startChildWorker } from '../src';

let brv: FakeExecutable | undefined;
afterEach(async () => {
  await brv?.close();
  brv = undefined;
});

describe('createFakeExecutable', () => {
  it('records argv, env (secrets redacted) and stdin, and answers with stdout, stderr and an exit code', async () => {
    brv = await createFakeExecutable('brv');
    brv.script({ stdout: '{"command":"query","data":{"event":"completed"},"success":true}\n' }, (run) => ({
      stderr: `unknown command ${run.argv[0]}\n`,
      exitCode: run.env.BRV_API_KEY === 'brv-secret-key' ? 2 : 9,
    }));
    const env = childEnv(
      { PATH: `${brv.dir}:/usr/bin:/bin` },
      { set: { BRV_API_KEY: 'brv-secret-key', BRV_DATA_DIR: '/tmp/x' } },
    );
    expect(findExecutable('brv', { env })).toBe(brv.path);
    const ok = await runCommand('brv', ['query', '--format', 'json', '--', '-looks like a flag'], { env });
    expect(ok).toMatchObject({
      ok: true,
      exitCode: 0,
      stdout: '{"command":"query","data":{"event":"completed"},"success":true}\n',
    });
    const failed = await runCommand(brv.path, ['nope'], { env });
    expect(failed).toMatchObject({ ok: false, exitCode: 2, stderr: 'unknown command nope\n' });
    expect(brv.invocations.map((i) => i.argv)).toEqual([
      ['query', '--format', 'json', '--', '-looks like a flag'],
      ['nope'],
    ]);
    expect(brv.invocations[0]!.env).toMatchObject({ BRV_API_KEY: '[redacted]', BRV_DATA_DIR: '/tmp/x' });
    expect(brv.invocations[0]!.stdin).toBe('');
    expect(JSON.stringify(brv.invocations)).not.toContain('brv-secret-key');
  });

  it('hangs until killed, so a runner timeout can be tested on an injected clock', async () => {
    brv = await createFakeExecutable('brv', { responder: () => ({ hang: true }) });
    const clock = new ManualClock();
    const running = runCommand(brv.path, ['curate', '--', 'x'], {
      timeoutMs: 10_000,
      killGraceMs: 50,
      clock,
    });
    while (brv.invocations.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    await clock.advance(10_000);
    let result: Awaited<typeof running> | undefined;
    void running.then((r) => {
      result = r;
    });
    while (!result) await clock.advance(50);
    expect(result).toMatchObject({ timedOut: true, ok: false });
  });
});

describe('startChildWorker', () => {
  it('follows acknowledgement lines and kills with SIGKILL', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-worker-'));
    const script = path.join(dir, 'worker.mjs');
    fs.writeFileSync(script, `let i = 0; setInterval(() => process.stdout.write('ack ' + i++ + '\\n'), 1);`);
    try {
      const worker = startChildWorker(script);
      await worker.waitForLines(3, (line) => line.startsWith('ack '));
      const exit = await worker.kill();
      expect(exit.signal).toBe('SIGKILL');
      expect(worker.lines.slice(0, 3)).toEqual(['ack 0', 'ack 1', 'ack 2']);
      const quits = startChildWorker(script.replace('worker', 'missing'));
      await quits.waitForLines(1);
      expect((await quits.exited).code).not.toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
