import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { MemoryError } from '@hermes-memory/core';
import { type FileLockOptions, LockTimeoutError, sleep } from './lock-common';

/**
 * The fallback lock, for where flock is unavailable (Windows, or koffi missing): exclusive create
 * (O_CREAT|O_EXCL, mode 0600) of a sidecar holding `{pid, host, ts, token}`, released by unlinking
 * it only while it still holds our token. Only this package creates these files (never the Python
 * agent), so a lock whose holder process is gone can be broken — under a second, short-lived
 * "breaker" lock so two waiters never both remove it. It does not exclude the Python agent.
 */
interface LockInfo {
  pid: number;
  host: string;
  ts: number;
  token: string;
}

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
    const stale = judgeStale(lockPath, foreignStaleMs);
    if (stale) breakStale(lockPath, stale, foreignStaleMs);
    else {
      if (Date.now() >= deadline) {
        const holder = readInfo(lockPath);
        throw new LockTimeoutError(
          `Could not acquire the memory file lock ${lockPath} within ${timeoutMs} ms` +
            (holder ? ` (held by pid ${holder.pid}).` : '.') +
            ' Another session is writing; retry shortly.',
        );
      }
      await sleep(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 25);
    }
  }
}

function tryCreate(lockPath: string, token: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(lockPath, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    const info: LockInfo = { pid: process.pid, host: HOST, ts: Date.now(), token };
    // No fsync: after a crash the lock is stale anyway; only its content while we live matters.
    fs.writeSync(fd, JSON.stringify(info));
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

function readInfo(lockPath: string): LockInfo | null {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
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

function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type Staleness = { kind: 'dead'; token: string } | { kind: 'foreign'; mtimeMs: number };

/** Decide whether the current lock file is abandoned. Never judges a live local holder stale. */
function judgeStale(lockPath: string, foreignStaleMs: number): Staleness | null {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(lockPath);
  } catch {
    return null; // vanished: just retry the create
  }
  if (st.isSymbolicLink()) {
    throw new MemoryError(`Refusing to use memory lock ${lockPath}: it is a symbolic link.`);
  }
  const info = readInfo(lockPath);
  if (info) {
    if (info.host !== HOST && info.host !== '') return null; // cannot check a remote pid: wait
    return pidAlive(info.pid) ? null : { kind: 'dead', token: info.token };
  }
  // Empty or unparseable: a lock whose writer died between create and write.
  return Date.now() - st.mtimeMs > foreignStaleMs ? { kind: 'foreign', mtimeMs: st.mtimeMs } : null;
}

/** Remove a stale lock under a breaker lock, re-checking that it is still the same stale lock. */
function breakStale(lockPath: string, stale: Staleness, foreignStaleMs: number): void {
  const breaker = `${lockPath}.break`;
  const token = `${process.pid}-break-${Math.random().toString(36).slice(2, 10)}`;
  if (!tryCreate(breaker, token)) {
    // Another process is breaking; if that breaker itself died, clear it for the next round.
    const info = readInfo(breaker);
    if (info && (info.host === HOST || info.host === '') && !pidAlive(info.pid)) {
      try {
        fs.unlinkSync(breaker);
      } catch {}
    } else if (!info) {
      try {
        if (Date.now() - fs.statSync(breaker).mtimeMs > foreignStaleMs) fs.unlinkSync(breaker);
      } catch {}
    }
    return;
  }
  try {
    const again = judgeStale(lockPath, foreignStaleMs);
    if (!again || again.kind !== stale.kind) return;
    if (again.kind === 'dead' && stale.kind === 'dead' && again.token !== stale.token) return;
    try {
      fs.unlinkSync(lockPath);
    } catch {}
  } finally {
    releaseLock(breaker, token);
  }
}

function releaseLock(lockPath: string, token: string): void {
  const info = readInfo(lockPath);
  if (!info || info.token !== token) return; // not ours any more: never remove someone else's lock
  try {
    fs.unlinkSync(lockPath);
  } catch {}
}
