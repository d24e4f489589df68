import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { FileWriteError, UnsafePathError } from '../errors/memory-error';
import { writeNewFile } from './atomic-write';
import { type FileLockOptions, LockTimeoutError, sleep } from './lock-common';
import { processAlive } from '../process/process-alive';
import { readFileNoFollow } from './no-follow';

/**
 * The fallback lock, for where flock is unavailable (Windows, or koffi missing): exclusive create
 * (O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600) of `<file>.lock.excl` holding `{pid, host, ts, token}`,
 * released by unlinking it only while it still holds our token. Only this package creates these
 * files (never the Python agent), so a lock can go stale — but only when its holder is provably
 * gone (`judgeLock`, the one place that decides). It is broken under a second, short-lived
 * "breaker" lock so two waiters, or a waiter and `doctor --fix`, never both remove it. It does not
 * exclude the Python agent. See docs/decisions/0304-memory-file-lock-shared-with-python.md.
 */
interface LockInfo {
  pid: number;
  host: string;
  ts: number;
  token: string;
}

/**
 * What a fallback lock file says about its holder:
 * - `free`: no lock file;
 * - `held`: a holder that runs, or one we cannot check (another host) — never removed;
 * - `abandoned`: holder pid dead on this host — safe to break;
 * - `foreign`: unparseable (a writer died between create and write), with its age;
 * - `unsafe`: a symbolic link or not a file — refused, never followed or removed.
 */
export type LockState =
  | { state: 'free' }
  | { state: 'held'; pid: number; host: string; token: string }
  | { state: 'abandoned'; pid: number; host: string; token: string }
  | { state: 'foreign'; ageMs: number }
  | { state: 'unsafe'; reason: 'symlink' | 'not-a-file' };

type Stale = Extract<LockState, { state: 'abandoned' | 'foreign' }>;

const HOST = hostname();

/** Take the lock at `lockPath`; resolves to its release. */
export async function acquireExclusiveFile(lockPath: string, options: FileLockOptions): Promise<() => void> {
  const token = await acquire(lockPath, options);
  return () => releaseLock(lockPath, token);
}

async function acquire(lockPath: string, options: FileLockOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const foreignStaleMs = options.foreignStaleMs ?? 1_000;
  const deadline = Date.now() + timeoutMs;
  const token = `${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  let delay = 1;
  for (;;) {
    if (tryCreate(lockPath, token)) return token;
    const seen = judgeLock(lockPath);
    if (seen.state === 'unsafe') throw new UnsafePathError(lockPath, seen.reason);
    if (isStale(seen, foreignStaleMs)) breakStale(lockPath, seen, foreignStaleMs);
    else {
      if (Date.now() >= deadline) {
        throw new LockTimeoutError(
          `Could not acquire the ${options.description ?? 'file lock'} ${lockPath} within ${timeoutMs} ms` +
            (seen.state === 'held' ? ` (held by pid ${seen.pid}).` : '.') +
            ' Another session is writing; retry shortly.',
        );
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 25);
    }
  }
}

/**
 * Create the lock file exclusively with our `{pid, host, ts, token}`. False when it exists. A
 * failed write (full disk) removes the partial file and throws, so it never leaves a lock no one
 * holds. No fsync: after a crash the lock is stale anyway; only its content while we live matters.
 */
function tryCreate(lockPath: string, token: string): boolean {
  const info: LockInfo = { pid: process.pid, host: HOST, ts: Date.now(), token };
  try {
    writeNewFile(lockPath, JSON.stringify(info), { durable: false });
    return true;
  } catch (error) {
    if (FileWriteError.isInstance(error) && error.code === 'EEXIST') return false;
    throw error;
  }
}

function readInfo(lockPath: string): LockInfo | null {
  try {
    const buf = readFileNoFollow(lockPath);
    if (!buf) return null;
    const parsed: unknown = JSON.parse(new TextDecoder().decode(buf));
    if (typeof parsed !== 'object' || parsed === null) return null;
    const p = parsed as Record<string, unknown>;
    if (typeof p.pid !== 'number' || typeof p.token !== 'string') return null;
    return {
      pid: p.pid,
      host: typeof p.host === 'string' ? p.host : '',
      ts: Number(p.ts) || 0,
      token: p.token,
    };
  } catch {
    return null;
  }
}

/**
 * Whether a lock holder still runs. Only a pid on this host can be checked (`processAlive`); a
 * holder elsewhere (a shared folder) is assumed alive.
 */
function holderAlive(info: LockInfo): boolean {
  if (info.host !== HOST && info.host !== '') return true;
  return processAlive(info.pid);
}

/** Read a fallback lock file and say what it is (see `LockState`). Never changes anything. */
export function judgeLock(lockPath: string, now: number = Date.now()): LockState {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(lockPath);
  } catch {
    return { state: 'free' };
  }
  if (st.isSymbolicLink()) return { state: 'unsafe', reason: 'symlink' };
  if (!st.isFile()) return { state: 'unsafe', reason: 'not-a-file' };
  const info = readInfo(lockPath);
  if (!info) return { state: 'foreign', ageMs: now - st.mtimeMs };
  const { pid, host, token } = info;
  return holderAlive(info) ? { state: 'held', pid, host, token } : { state: 'abandoned', pid, host, token };
}

function isStale(seen: LockState, foreignStaleMs: number): seen is Stale {
  return seen.state === 'abandoned' || (seen.state === 'foreign' && seen.ageMs > foreignStaleMs);
}

/**
 * Remove a fallback lock whose holder is provably gone (`judgeLock` says `abandoned`), the way a
 * waiting writer does: under the breaker lock, and only if it still carries `token` (when given).
 * Never removes a lock held by a running process, even one taken a moment after it was inspected.
 * Returns true when it removed the lock.
 */
export function breakAbandonedLock(lockPath: string, token?: string): boolean {
  const seen = judgeLock(lockPath);
  if (seen.state !== 'abandoned' || (token !== undefined && seen.token !== token)) return false;
  return breakStale(lockPath, seen, Number.POSITIVE_INFINITY);
}

/** Remove a stale lock under a breaker lock, re-checking that it is still the same stale lock. */
function breakStale(lockPath: string, stale: Stale, foreignStaleMs: number): boolean {
  const breaker = `${lockPath}.break`;
  const token = `${process.pid}-break-${Math.random().toString(36).slice(2, 10)}`;
  if (!tryCreate(breaker, token)) {
    // Another process is breaking; if that breaker itself died, clear it for the next round.
    clearDeadBreaker(breaker, foreignStaleMs);
    return false;
  }
  try {
    const again = judgeLock(lockPath);
    if (!isStale(again, foreignStaleMs) || again.state !== stale.state) return false;
    if (again.state === 'abandoned' && stale.state === 'abandoned' && again.token !== stale.token)
      return false;
    try {
      fs.unlinkSync(lockPath);
      return true;
    } catch {
      return false;
    }
  } finally {
    releaseLock(breaker, token);
  }
}

/** A breaker lock left by a process that died while breaking (its window is microseconds). */
function clearDeadBreaker(breaker: string, foreignStaleMs: number): void {
  const seen = judgeLock(breaker);
  if (isStale(seen, foreignStaleMs)) {
    try {
      fs.unlinkSync(breaker);
    } catch {}
  }
}

function releaseLock(lockPath: string, token: string): void {
  const info = readInfo(lockPath);
  if (!info || info.token !== token) return; // not ours any more: never remove someone else's lock
  try {
    fs.unlinkSync(lockPath);
  } catch {}
}
