import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { LockTimeoutError, withFileLock } from './file-lock';
import { MemoryStore } from './memory-store';

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  return Number(
    execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString(),
  );
}

describe('withFileLock', () => {
  it('creates the lock 0600 with pid and token, and removes it afterwards', async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock');
    await withFileLock(lock, () => {
      expect(fs.statSync(lock).mode & 0o777).toBe(0o600);
      const info = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number; token: string };
      expect(info.pid).toBe(process.pid);
      expect(info.token).toBeTruthy();
    });
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('recovers a lock left by a dead process', async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock');
    fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: '', ts: Date.now(), token: 'dead' }));
    expect(await withFileLock(lock, () => 'got it', { timeoutMs: 5000 })).toBe('got it');
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('recovers an old empty lock file (as the reference leaves behind) but waits on a live holder', async () => {
    const home = tempHome();
    const lock = path.join(home, 'MEMORY.md.lock');
    fs.writeFileSync(lock, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    expect(await withFileLock(lock, () => 1)).toBe(1);
    fs.writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, host: '', ts: Date.now(), token: 'someone-else' }),
    );
    await expect(withFileLock(lock, () => 2, { timeoutMs: 30 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(fs.existsSync(lock)).toBe(true);
  });

  it('serialises mutations inside one process', async () => {
    const lock = path.join(tempHome(), 'x.lock');
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((n) =>
        withFileLock(lock, async () => {
          order.push(`${n}+`);
          await new Promise((r) => setImmediate(r));
          order.push(`${n}-`);
        }),
      ),
    );
    expect(order).toEqual(['a+', 'a-', 'b+', 'b-', 'c+', 'c-']);
  });

  it('refuses a symlinked lock file; the store reports it as a JSON-able error and writes nothing', async () => {
    const home = tempHome();
    const s = new MemoryStore({ hermesHome: home, lockTimeoutMs: 100 }).load();
    fs.symlinkSync(path.join(home, 'elsewhere'), `${s.pathFor('memory')}.lock`);
    const r = await s.add('memory', 'x');
    expect(r.success).toBe(false);
    expect(String(r.error)).toMatch(/symbolic link/);
    expect(fs.existsSync(s.pathFor('memory'))).toBe(false);
    expect(fs.existsSync(path.join(home, 'elsewhere'))).toBe(false);
  });
});
