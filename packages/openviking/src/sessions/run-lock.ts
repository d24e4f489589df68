import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive, readFileNoFollow, writeNewFile } from '@hermes-memory/core';

/**
 * Each running provider holds `<home>/openviking/runs/<run_id>.lock`. The reference takes an
 * exclusive `flock` on it; Node has none, so the file itself is the lock: created exclusively
 * (0600, never through a link) holding `{pid, host, run_id}`, removed at shutdown. A run is alive
 * while its file exists and names a live process of this host (or one of another host, which we
 * cannot check). A file we cannot read (the Python agent's flock file is empty) counts as alive:
 * a live session is never committed from under its owner (decision 0980).
 */
export interface RunLockInfo {
  pid: number;
  host: string;
  run_id: string;
  started_at: number;
}

export type RunState = 'alive' | 'dead' | 'unknown';

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

  constructor(hermesHome: string, runId: string = newRunId()) {
    this.runId = runId;
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
    }
    return this.held;
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
  }
}

/** Whether the run that owns `runId` still runs (see the module comment). */
export function runState(hermesHome: string, runId: string): RunState {
  if (!/^[A-Za-z0-9._-]+$/.test(runId)) return 'unknown';
  const file = path.join(runsDir(hermesHome), `${runId}.lock`);
  let buf: Uint8Array | undefined;
  try {
    buf = readFileNoFollow(file);
  } catch {
    return 'unknown';
  }
  if (!buf) return 'dead';
  let info: Partial<RunLockInfo>;
  try {
    info = JSON.parse(new TextDecoder().decode(buf)) as Partial<RunLockInfo>;
  } catch {
    return 'unknown';
  }
  if (typeof info.pid !== 'number') return 'unknown';
  if (typeof info.host === 'string' && info.host !== '' && info.host !== HOST) return 'alive';
  return processAlive(info.pid) ? 'alive' : 'dead';
}

/** Remove a dead run's lock file (after its sessions were recovered). */
export function removeRunLock(hermesHome: string, runId: string): void {
  if (runState(hermesHome, runId) !== 'dead') return;
  try {
    fs.unlinkSync(path.join(runsDir(hermesHome), `${runId}.lock`));
  } catch {}
}
