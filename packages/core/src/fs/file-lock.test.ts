import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireExclusiveFile, breakAbandonedLock, judgeLock } from './exclusive-lock';
import { fileLockMechanism, LockTimeoutError, tryHoldFlock, withFileLock } from './file-lock';
import { loadFlock } from './flock';

const dirs: string[] = [];
function tempHome(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-file-lock-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** The pid of a process that has certainly exited. */
function deadPid(): number {
  return Number(
    execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString(),
  );
}

/**
 * Runs `fn` while a second open file holds the flock on `lock`, as another process's would (flock
 * belongs to the open file); `fn` may release it early with `unlock`.
 */
async function whileHeldElsewhere(lock: string, fn: (unlock: () => void) => Promise<void>): Promise<void> {
  const available = await loadFlock();
  if (!available.ok) throw new Error(available.reason);
  const fd = fs.openSync(lock, 'a+', 0o600);
  try {
    expect(available.flock.tryLockExclusive(fd)).toBe(true);
    await fn(() => available.flock.unlock(fd));
  } finally {
    fs.closeSync(fd);
  }
}

describe('withFileLock (flock on the sidecar, as the Python agent)', () => {
  it('uses flock on this platform', async () => {
    expect(await fileLockMechanism()).toEqual({ kind: 'flock' });
  });

  it('creates the sidecar 0600 and empty, and keeps it afterwards (it is never deleted)', async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock');
    await withFileLock(lock, () => {
      expect(fs.statSync(lock).mode & 0o777).toBe(0o600);
    });
    expect(fs.statSync(lock).size).toBe(0);
  });

  it("uses an existing empty lock file (the Python agent's) in place, tightening a loose mode", async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock');
    fs.writeFileSync(lock, '', { mode: 0o664 });
    fs.chmodSync(lock, 0o664);
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    const before = fs.statSync(lock).ino;
    expect(await withFileLock(lock, () => 1)).toBe(1);
    expect(fs.statSync(lock).ino).toBe(before);
    expect(fs.statSync(lock).mode & 0o777).toBe(0o600);
  });

  it('waits on another holder of the flock and times out clearly; goes ahead once it is released', async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock');
    await whileHeldElsewhere(lock, async (unlock) => {
      await expect(withFileLock(lock, () => 2, { timeoutMs: 50 })).rejects.toBeInstanceOf(LockTimeoutError);
      unlock();
      expect(await withFileLock(lock, () => 3, { timeoutMs: 1000 })).toBe(3);
    });
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

  it('refuses a symlinked lock file and never follows it', async () => {
    const home = tempHome();
    const lock = path.join(home, 'honcho.json.lock');
    fs.symlinkSync(path.join(home, 'elsewhere'), lock);
    await expect(withFileLock(lock, () => 1, { timeoutMs: 100 })).rejects.toThrow(/symbolic link/);
    expect(fs.existsSync(path.join(home, 'elsewhere'))).toBe(false);
  });

  it('names the lock in its timeout error as the caller describes it', async () => {
    const lock = path.join(tempHome(), 'honcho.json.lock');
    await whileHeldElsewhere(lock, async () => {
      await expect(withFileLock(lock, () => 1, { timeoutMs: 20 })).rejects.toThrow(
        /^Could not acquire the file lock .*honcho\.json\.lock within 20 ms/,
      );
      await expect(
        withFileLock(lock, () => 1, { timeoutMs: 20, description: 'memory file lock' }),
      ).rejects.toThrow(/^Could not acquire the memory file lock/);
    });
  });
});

describe('tryHoldFlock (a lock held for a whole run)', () => {
  it('holds the file until released; a second open, here or in another process, is refused meanwhile', async () => {
    const lock = path.join(tempHome(), 'run.lock');
    fs.writeFileSync(lock, '{"pid":1}');
    const mine = await tryHoldFlock(lock);
    if (!mine.held) throw new Error(mine.reason);
    expect(await tryHoldFlock(lock)).toEqual({ held: false, reason: 'busy' });
    // The Python agent's probe: fcntl.flock(LOCK_EX | LOCK_NB) on its own open file.
    const probe = `import fcntl,sys\nf=open(sys.argv[1],'a+')\ntry:\n  fcntl.flock(f,fcntl.LOCK_EX|fcntl.LOCK_NB); print('free')\nexcept BlockingIOError: print('busy')`;
    expect(execFileSync('python3', ['-c', probe, lock]).toString().trim()).toBe('busy');
    mine.release();
    mine.release(); // twice is harmless
    expect(execFileSync('python3', ['-c', probe, lock]).toString().trim()).toBe('free');
    const again = await tryHoldFlock(lock);
    expect(again.held).toBe(true);
    if (again.held) again.release();
    expect(fs.readFileSync(lock, 'utf8')).toBe('{"pid":1}');
  });

  it("leaves an existing lock file's mode as its creator set it (a probe changes nothing; decision 0304)", async () => {
    // The reference opens its run lock "a+" under the user's umask: typically 0644.
    const lock = path.join(tempHome(), 'python-run.lock');
    fs.writeFileSync(lock, '');
    fs.chmodSync(lock, 0o644);
    const probe = await tryHoldFlock(lock);
    expect(probe.held).toBe(true);
    if (probe.held) probe.release();
    expect(fs.statSync(lock).mode & 0o777).toBe(0o644);
  });

  it('never creates a missing file unless asked, and refuses a symlink', async () => {
    const home = tempHome();
    const lock = path.join(home, 'gone.lock');
    expect(await tryHoldFlock(lock)).toEqual({ held: false, reason: 'missing' });
    expect(fs.existsSync(lock)).toBe(false);
    const created = await tryHoldFlock(lock, { create: true });
    expect(created.held).toBe(true);
    if (created.held) created.release();
    expect(fs.statSync(lock).mode & 0o777).toBe(0o600);
    fs.symlinkSync(lock, path.join(home, 'link.lock'));
    await expect(tryHoldFlock(path.join(home, 'link.lock'))).rejects.toThrow(/symbolic link/);
  });
});

describe('the fallback lock (exclusive create, where flock is unavailable)', () => {
  it('creates the lock 0600 with pid and token, and removes it afterwards', async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock.excl');
    const release = await acquireExclusiveFile(lock, {});
    expect(fs.statSync(lock).mode & 0o777).toBe(0o600);
    const info = JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number; token: string };
    expect(info.pid).toBe(process.pid);
    release();
    expect(fs.existsSync(lock)).toBe(false);
  });

  it('recovers a lock left by a dead process, but waits on a live holder', async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock.excl');
    fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: '', ts: Date.now(), token: 'dead' }));
    (await acquireExclusiveFile(lock, { timeoutMs: 5000 }))();
    fs.writeFileSync(
      lock,
      JSON.stringify({ pid: process.pid, host: '', ts: Date.now(), token: 'someone-else' }),
    );
    await expect(acquireExclusiveFile(lock, { timeoutMs: 30 })).rejects.toBeInstanceOf(LockTimeoutError);
    expect(fs.existsSync(lock)).toBe(true);
  });
});

describe('judgeLock / breakAbandonedLock on the fallback lock (what doctor --fix uses)', () => {
  const write = (lock: string, pid: number, token: string) =>
    fs.writeFileSync(lock, JSON.stringify({ pid, host: '', ts: Date.now(), token }));

  // deadPid() spawns a process: seconds each on a loaded machine.
  it('a lock is abandoned only when its holder pid is gone on this host', { timeout: 60_000 }, async () => {
    const home = tempHome();
    const lock = path.join(home, 'MEMORY.md.lock.excl');
    expect(judgeLock(lock)).toEqual({ state: 'free' });
    write(lock, process.pid, 'live');
    expect(judgeLock(lock)).toMatchObject({ state: 'held', pid: process.pid, token: 'live' });
    fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), host: 'other-host', ts: 0, token: 'remote' }));
    expect(judgeLock(lock)).toMatchObject({ state: 'held', host: 'other-host' }); // cannot check: wait
    const dead = deadPid();
    write(lock, dead, 'gone');
    expect(judgeLock(lock)).toMatchObject({ state: 'abandoned', pid: dead, token: 'gone' });
    fs.writeFileSync(lock, '');
    expect(judgeLock(lock, Date.now() + 5000)).toMatchObject({ state: 'foreign' });
    fs.rmSync(lock);
    fs.symlinkSync(path.join(home, 'elsewhere'), lock);
    expect(judgeLock(lock)).toEqual({ state: 'unsafe', reason: 'symlink' });
    expect(breakAbandonedLock(lock)).toBe(false);
    await expect(acquireExclusiveFile(lock, { timeoutMs: 30 })).rejects.toThrow(/symbolic link/);
    expect(fs.lstatSync(lock).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(path.join(home, 'elsewhere'))).toBe(false);
  });

  it('breaks an abandoned lock, but never a live one, nor one whose token changed', {
    timeout: 60_000,
  }, async () => {
    const lock = path.join(tempHome(), 'MEMORY.md.lock.excl');
    write(lock, deadPid(), 'gone');
    expect(breakAbandonedLock(lock, 'some-other-token')).toBe(false);
    expect(fs.existsSync(lock)).toBe(true);
    expect(breakAbandonedLock(lock, 'gone')).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
    // A writer took the lock after it was inspected: the stale token no longer matches, and the
    // holder is alive anyway. Nothing is removed while the writer is inside.
    const release = await acquireExclusiveFile(lock, {});
    expect(breakAbandonedLock(lock, 'gone')).toBe(false);
    expect(breakAbandonedLock(lock)).toBe(false);
    expect(fs.existsSync(lock)).toBe(true);
    release();
    expect(fs.existsSync(lock)).toBe(false);
  });
});
