import * as fs from 'node:fs';
import { UnsafePathError } from '../errors/memory-error';
import { acquireExclusiveFile } from './exclusive-lock';
import { type Flock, loadFlock } from './flock';
import { type FileLockOptions, LockTimeoutError, sleep } from './lock-common';

export { type FileLockOptions, LockTimeoutError } from './lock-common';

/**
 * The cross-process lock of a file shared with the Python agent (memory files, honcho.json, the
 * Honcho migration ledger): `flock(LOCK_EX)` on the sidecar `<file>.lock`, exactly the lock the
 * reference takes (`fcntl.flock` on the same file), so neither program can interleave a
 * read-modify-write with the other's. The sidecar is persistent:
 * it is never deleted (another process may hold it), and a crashed holder's lock is released by
 * the kernel. Where flock is unavailable (Windows, or the koffi binding failed to load) the
 * exclusive-create lock of 0300 is taken on `<file>.lock.excl` instead, with one warning: other
 * sessions of this package are still excluded, a Python agent writing at the same time is not.
 * See docs/decisions/0304-memory-file-lock-shared-with-python.md.
 */

/** In-process serialisation per lock path, so one process never contends with itself. */
const localChains = new Map<string, Promise<unknown>>();

export async function withFileLock<T>(
  lockPath: string,
  fn: () => T | Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const previous = localChains.get(lockPath) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const chain = previous.then(() => mine);
  localChains.set(lockPath, chain);
  await previous.catch(() => undefined);
  try {
    const unlock = await acquire(lockPath, options);
    try {
      return await fn();
    } finally {
      unlock();
    }
  } finally {
    release();
    if (localChains.get(lockPath) === chain) localChains.delete(lockPath);
  }
}

/** Which lock `withFileLock` takes in this process (for `doctor` and logs). */
export async function fileLockMechanism(): Promise<
  { kind: 'flock' } | { kind: 'exclusive-file'; reason: string }
> {
  const flock = await loadFlock();
  return flock.ok ? { kind: 'flock' } : { kind: 'exclusive-file', reason: flock.reason };
}

/** What `tryHoldFlock` found: the lock, now ours; another open file holding it; or no flock here. */
export type FlockAttempt =
  | { held: true; release: () => void }
  | { held: false; reason: 'busy' | 'missing' | 'unsupported' };

/**
 * One non-blocking `flock(LOCK_EX | LOCK_NB)` on `lockPath` itself, for locks a process holds for
 * its whole run (the reference's OpenViking run locks), where "someone holds it" means "that run is
 * alive": the kernel drops the lock with its holder, so a crashed run's file is free at once.
 * Without `create` a missing file is `missing` (probing another run's lock must not create it).
 * A file it creates is 0600; one it finds keeps its mode: it is another process's, holding no memory.
 * `unsupported` where flock is unavailable (Windows, koffi not loadable): decide by other means.
 * flock belongs to the open file, so a second open in this process is refused like another process.
 */
export async function tryHoldFlock(
  lockPath: string,
  options: { create?: boolean } = {},
): Promise<FlockAttempt> {
  const loaded = await loadFlock();
  if (!loaded.ok) return { held: false, reason: 'unsupported' };
  let fd: number;
  try {
    fd = openLockFile(lockPath, { create: options.create ?? false, tighten: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { held: false, reason: 'missing' };
    throw error;
  }
  if (!loaded.flock.tryLockExclusive(fd)) {
    fs.closeSync(fd);
    return { held: false, reason: 'busy' };
  }
  if (!sameFile(fd, lockPath)) {
    // Replaced or removed between open and lock: what we hold is not the file that is there now.
    loaded.flock.unlock(fd);
    fs.closeSync(fd);
    return { held: false, reason: fs.existsSync(lockPath) ? 'busy' : 'missing' };
  }
  let released = false;
  return {
    held: true,
    release: () => {
      if (released) return;
      released = true;
      try {
        loaded.flock.unlock(fd);
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

let warned = false;

async function acquire(lockPath: string, options: FileLockOptions): Promise<() => void> {
  const flock = await loadFlock();
  if (flock.ok) return acquireFlock(lockPath, flock.flock, options);
  if (!warned) {
    warned = true;
    options.logger?.warn(
      `File locks fall back to exclusive files: ${flock.reason}. Processes of this package still exclude each other; a Python Hermes agent writing the same files at the same time is not excluded.`,
    );
  }
  return acquireExclusiveFile(`${lockPath}.excl`, options);
}

async function acquireFlock(lockPath: string, flock: Flock, options: FileLockOptions): Promise<() => void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 1;
  let fd = openLockFile(lockPath, WRITE_LOCK);
  try {
    for (;;) {
      if (flock.tryLockExclusive(fd)) {
        // Someone replaced or removed the sidecar while we waited: lock the file that is there now.
        if (sameFile(fd, lockPath)) {
          const held = fd;
          fd = -1;
          return () => {
            try {
              flock.unlock(held);
            } finally {
              fs.closeSync(held);
            }
          };
        }
        flock.unlock(fd);
        fs.closeSync(fd);
        fd = -1;
        fd = openLockFile(lockPath, WRITE_LOCK);
        continue;
      }
      if (Date.now() >= deadline) {
        throw new LockTimeoutError(
          `Could not acquire the ${options.description ?? 'file lock'} ${lockPath} within ${timeoutMs} ms: another process ` +
            '(a Hermes agent or another session) holds it. Retry shortly.',
        );
      }
      // Short polls: the Python agent blocks in flock and would otherwise win every race.
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 8);
    }
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** withFileLock's sidecar: created if missing, tightened if loose (decision 0304). */
const WRITE_LOCK = { create: true, tighten: true };

/**
 * Open a lock file, creating it 0600 when asked; a symlink is refused. A looser mode is tightened
 * only with `tighten`: for the lock that guards a memory write (the reference's rule for
 * `<file>.lock`), never for a run lock that is only held or probed, which is another process's
 * file and holds no memory (decision 0304).
 */
function openLockFile(lockPath: string, how: { create: boolean; tighten: boolean }): number {
  let fd: number;
  try {
    fd = fs.openSync(
      lockPath,
      fs.constants.O_RDWR | (how.create ? fs.constants.O_CREAT : 0) | (fs.constants.O_NOFOLLOW ?? 0),
      0o600,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UnsafePathError(lockPath, 'symlink');
    throw error;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new UnsafePathError(lockPath, 'not-a-file');
    if (how.tighten && (st.mode & 0o077) !== 0) fs.fchmodSync(fd, 0o600);
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
  return fd;
}

function sameFile(fd: number, lockPath: string): boolean {
  try {
    const a = fs.fstatSync(fd);
    const b = fs.lstatSync(lockPath);
    return a.ino === b.ino && a.dev === b.dev;
  } catch {
    return false;
  }
}
