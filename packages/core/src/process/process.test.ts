import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../resilience/clock';
import { childEnv, findExecutable, forgetExecutable, parseNdjson, processAlive, runCommand } from './index';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-process-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A tiny program under test: a Node script with an absolute shebang. */
function program(name: string, source: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!${process.execPath}\n${source}\n`, { mode: 0o755 });
  return file;
}

const echo = program(
  'echo-args',
  `let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => {
  process.stdout.write(JSON.stringify({ argv: process.argv.slice(2), env: process.env, stdin: input, cwd: process.cwd() }));
  process.stderr.write('note on stderr');
  process.exitCode = Number(process.env.EXIT_CODE ?? 0);
});`,
);

describe('runCommand', () => {
  it('passes argv verbatim (no shell), closes stdin, uses exactly the env given, captures both streams', async () => {
    const hostile = ['query', '--', '$(rm -rf /); echo `id` > x', '-rf', 'it\'s "quoted"'];
    const result = await runCommand(echo, hostile, {
      cwd: dir,
      env: childEnv(
        { PATH: '/usr/bin:/bin', HOME: '/home/test', OPENAI_API_KEY: 'sk-not-for-the-child' },
        {
          set: { BRV_API_KEY: 'brv-key' },
        },
      ),
    });
    expect(result).toMatchObject({
      ok: true,
      exitCode: 0,
      timedOut: false,
      truncated: false,
      stderr: 'note on stderr',
    });
    const seen = JSON.parse(result.stdout) as {
      argv: string[];
      env: Record<string, string>;
      stdin: string;
      cwd: string;
    };
    expect(seen.argv).toEqual(hostile);
    expect(seen.stdin).toBe('');
    expect(seen.cwd).toBe(fs.realpathSync(dir));
    expect(seen.env.BRV_API_KEY).toBe('brv-key');
    expect(seen.env.HOME).toBe('/home/test');
    expect(seen.env.OPENAI_API_KEY).toBeUndefined();
  });

  it('reports a non-zero exit and a missing executable without throwing', async () => {
    const failed = await runCommand(echo, [], { env: { EXIT_CODE: '3' } });
    expect(failed).toMatchObject({ ok: false, exitCode: 3 });
    const missing = await runCommand(path.join(dir, 'no-such-program'), ['x']);
    expect(missing).toMatchObject({ ok: false, exitCode: null, errorCode: 'ENOENT' });
    expect(missing.error).toMatch(/command not found/);
  });

  it('caps output per stream', async () => {
    const chatty = program(
      'chatty',
      `process.stdout.write('x'.repeat(100000)); process.stderr.write('y'.repeat(10));`,
    );
    const result = await runCommand(chatty, [], { maxOutputBytes: 1000 });
    expect(result.stdout).toHaveLength(1000);
    expect(result.stderr).toBe('y'.repeat(10));
    expect(result.truncated).toBe(true);
    expect(result.ok).toBe(true);
  });

  it('kills the whole process group at the timeout (clock-driven), helpers included', async () => {
    const pidFile = path.join(dir, 'helper.pid');
    const parent = program(
      'spawns-helper',
      `const { spawn } = require('node:child_process');
const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.stdout.write('started\\n');
require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(helper.pid));
setInterval(() => {}, 1000);`,
    );
    const clock = new ManualClock();
    const running = runCommand(parent, [], { timeoutMs: 5000, killGraceMs: 100, clock });
    while (!fs.existsSync(pidFile)) await new Promise((resolve) => setTimeout(resolve, 5));
    const helperPid = Number(fs.readFileSync(pidFile, 'utf8'));
    await clock.advance(5000);
    let result: Awaited<typeof running> | undefined;
    void running.then((r) => {
      result = r;
    });
    while (!result) await clock.advance(100);
    expect(result).toMatchObject({ ok: false, timedOut: true, errorCode: 'timeout', stdout: 'started\n' });
    expect(result.error).toBe(`${parent} timed out after 5000 ms`);
    // Dead, or a zombie waiting for a reaper (some containers' init never reaps): not running.
    const helperRunning = () => {
      try {
        return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${helperPid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 400 && helperRunning(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(helperRunning()).toBe(false);
  });

  it('an abort signal stops the program', async () => {
    const sleeper = program('sleeper', 'setInterval(() => {}, 1000);');
    const controller = new AbortController();
    const running = runCommand(sleeper, [], { signal: controller.signal, killGraceMs: 50 });
    controller.abort();
    expect(await running).toMatchObject({ ok: false, aborted: true, errorCode: 'aborted' });
  });
});

describe('childEnv', () => {
  it('passes only the listed names, then sets and removes, then prepends PATH', () => {
    const env = childEnv(
      { PATH: '/usr/bin', HOME: '/h', SECRET_TOKEN: 's', LANG: 'C' },
      { set: { LANG: undefined, BRV_DISABLE_AUTOUPDATE: '1' }, prependPath: ['/opt/brv/bin'] },
    );
    expect(env).toEqual({ PATH: '/opt/brv/bin:/usr/bin', HOME: '/h', BRV_DISABLE_AUTOUPDATE: '1' });
  });
});

describe('findExecutable', () => {
  it('finds on PATH, then candidates; caches both answers until forgotten', () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    const brv = path.join(bin, 'brv');
    fs.writeFileSync(brv, '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'not-executable'), '', { mode: 0o644 });
    expect(findExecutable('brv', { env: { PATH: `/nonexistent:${bin}` } })).toBe(brv);
    expect(findExecutable('not-executable', { env: { PATH: bin } })).toBeUndefined();
    expect(findExecutable('brv', { env: { PATH: '/nonexistent' }, candidates: [brv] })).toBe(brv);
    const missing = { env: { PATH: bin } };
    expect(findExecutable('later', missing)).toBeUndefined();
    fs.writeFileSync(path.join(bin, 'later'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findExecutable('later', missing)).toBeUndefined(); // cached "not found"
    forgetExecutable('later');
    expect(findExecutable('later', missing)).toBe(path.join(bin, 'later'));
    expect(findExecutable(brv)).toBe(brv);
  });
});

describe('parseNdjson', () => {
  it('one value per line; blank lines, CRLF and a BOM accepted; other lines counted, not thrown', () => {
    const text =
      '\uFEFF{"command":"query","data":{"event":"thinking"},"success":true}\r\n\n' +
      'Warning: something printed on stdout\n' +
      '{"command":"query","data":{"event":"completed"},"success":true}\n' +
      '{"command":"query","data":{"event":"resp'; // torn by the output cap
    const parsed = parseNdjson(text);
    expect(parsed.records).toEqual([
      { command: 'query', data: { event: 'thinking' }, success: true },
      { command: 'query', data: { event: 'completed' }, success: true },
    ]);
    expect(parsed.invalidLines).toBe(2);
    expect(parsed.firstInvalid).toBe('Warning: something printed on stdout');
    expect(parseNdjson('')).toEqual({ records: [], invalidLines: 0 });
    expect(parseNdjson('x'.repeat(500)).firstInvalid).toHaveLength(200);
  });
});

describe('processAlive', () => {
  it('is true for this process and for pid 1 (alive under another user counts: EPERM)', () => {
    expect(processAlive(process.pid)).toBe(true);
    expect(processAlive(1)).toBe(true);
  });

  it('is false for a process that has exited and been reaped (ESRCH)', () => {
    const child = spawnSync(process.execPath, ['-e', '']);
    expect(child.status).toBe(0);
    expect(processAlive(child.pid)).toBe(false);
  });

  it('is false for what is not a pid, never signalling a process group', () => {
    const kill = vi.spyOn(process, 'kill');
    try {
      for (const pid of [0, -1, -process.pid, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
        expect(processAlive(pid)).toBe(false);
      }
      expect(kill).not.toHaveBeenCalled();
    } finally {
      kill.mockRestore();
    }
  });

  it('maps kill errors: EPERM is alive, anything else is gone', () => {
    const fail = (code: string) => () => {
      throw Object.assign(new Error(code), { code });
    };
    const kill = vi.spyOn(process, 'kill');
    try {
      kill.mockImplementationOnce(fail('EPERM'));
      expect(processAlive(4242)).toBe(true);
      kill.mockImplementationOnce(fail('ESRCH'));
      expect(processAlive(4242)).toBe(false);
      expect(kill).toHaveBeenCalledWith(4242, 0);
    } finally {
      kill.mockRestore();
    }
  });
});
