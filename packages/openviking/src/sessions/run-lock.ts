import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type FlockAttempt,
  processAlive,
  readFileNoFollow,
  tryHoldFlock,
  writeNewFile,
} from '@hermes-memory/core';

/**
 * Each running provider holds `<home>/openviking/runs/<run_id>.lock`, as the reference does: an
 * exclusive `flock` on it for the whole run (through core's koffi binding), so the Python agent's
 * recovery sees our run alive and ours sees its. The file also holds `{pid, host, run_id}`
 * (created exclusively, 0600, never through a link; removed at shutdown) for where flock is
 * unavailable. A run is alive while its file exists and its flock is held; a free flock means the
 * holder is gone (the kernel released it), unless the file names a live process of this host (an
 * older version of this package, which did not flock). Another host's file is alive (flock says
 * nothing across hosts). Without flock, an unreadable file (the Python agent's is empty) counts as
 * alive: a live session is never committed from under its owner (decision 0980).
 */
export interface RunLockInfo {
  pid: number;
  host: string;
  run_id: string;
  started_at: number;
}

export type RunState = 'alive' | 'dead' | 'unknown';

/**
 * How a run lock's flock is taken: core's `tryHoldFlock`. A seam for tests, which pass one that
 * answers `unsupported` to run the pid rules of platforms without flock.
 */
export type TryFlock = typeof tryHoldFlock;

const HOST = os.hostname();

export function runsDir(hermesHome: string): string {
  return path.join(hermesHome, 'openviking', 'runs');
}

export function newRunId(): string {
  return `${Date.now().toString(36)}-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
}

export class RunLock {
  readonly runId: string;
  readonly file: string;
  private held = false;
  private flock: (() => void) | null = null;
  private flockTaking: Promise<void> = Promise.resolve();
  private readonly tryFlock: TryFlock;

  constructor(hermesHome: string, runId: string = newRunId(), tryFlock: TryFlock = tryHoldFlock) {
    this.runId = runId;
    this.tryFlock = tryFlock;
    this.file = path.join(runsDir(hermesHome), `${runId}.lock`);
  }

  /** Take the lock (create the file). False when it could not be written (the run then writes no markers). */
  acquire(): boolean {
    if (this.held) return true;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const info: RunLockInfo = { pid: process.pid, host: HOST, run_id: this.runId, started_at: Date.now() };
      writeNewFile(this.file, JSON.stringify(info), { durable: false });
      this.held = true;
    } catch {
      this.held = false;
      return false;
    }
    // flock is taken off the caller's stack (loading the binding the first time is not free);
    // until it is, the pid in the file says we are alive.
    this.flockTaking = this.tryFlock(this.file).then(
      (attempt) => {
        if (!attempt.held) return;
        if (this.held) this.flock = attempt.release;
        else attempt.release();
      },
      () => undefined,
    );
    return true;
  }

  /** Settles once the flock was taken (or could not be): for tests and orderly starts. */
  whenLocked(): Promise<void> {
    return this.flockTaking;
  }

  get isHeld(): boolean {
    return this.held;
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    try {
      fs.unlinkSync(this.file);
    } catch {}
    this.flock?.();
    this.flock = null;
  }
}

/** Whether the run that owns `runId` still runs (see the module comment). */
export async function runState(
  hermesHome: string,
  runId: string,
  tryFlock: TryFlock = tryHoldFlock,
): Promise<RunState> {
  if (!/^[A-Za-z0-9._-]+$/.test(runId)) return 'unknown';
  const file = path.join(runsDir(hermesHome), `${runId}.lock`);
  let buf: Uint8Array | undefined;
  try {
    buf = readFileNoFollow(file);
  } catch {
    return 'unknown';
  }
  if (!buf) return 'dead';
  const info = parseInfo(buf);
  if (info && info.host !== '' && info.host !== HOST) return 'alive';
  let probe: FlockAttempt;
  try {
    probe = await tryFlock(file);
  } catch {
    return 'unknown';
  }
  if (probe.held) {
    probe.release();
    return info && processAlive(info.pid) ? 'alive' : 'dead';
  }
  if (probe.reason === 'busy') return 'alive';
  if (probe.reason === 'missing') return 'dead';
  if (!info) return 'unknown';
  return processAlive(info.pid) ? 'alive' : 'dead';
}

function parseInfo(buf: Uint8Array): { pid: number; host: string } | undefined {
  try {
    const info = JSON.parse(new TextDecoder().decode(buf)) as Partial<RunLockInfo>;
    if (typeof info.pid !== 'number') return undefined;
    return { pid: info.pid, host: typeof info.host === 'string' ? info.host : '' };
  } catch {
    return undefined;
  }
}

/** Remove a dead run's lock file (after its sessions were recovered). */
export async function removeRunLock(
  hermesHome: string,
  runId: string,
  tryFlock: TryFlock = tryHoldFlock,
): Promise<void> {
  if ((await runState(hermesHome, runId, tryFlock)) !== 'dead') return;
  try {
    fs.unlinkSync(path.join(runsDir(hermesHome), `${runId}.lock`));
  } catch {}
}
