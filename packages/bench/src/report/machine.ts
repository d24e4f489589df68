import { execFileSync } from 'node:child_process';
import os from 'node:os';
import Database from 'better-sqlite3';
import { repoRoot } from '../paths';

/** Where and how a number was produced; stamped on every suite result and the report. */
export interface Provenance {
  command: string;
  gitCommit: string;
  gitDirty: boolean;
  date: string;
  machine: MachineInfo;
}

export interface MachineInfo {
  os: string;
  cpuModel: string;
  cores: number;
  totalMemoryGiB: number;
  node: string;
  sqlite: string;
  /** 1-minute load average when the run started: a busy shared machine inflates latency numbers. */
  loadAvg1m: number;
}

export function machineInfo(): MachineInfo {
  const db = new Database(':memory:');
  const sqlite = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  db.close();
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} (${os.platform()}/${os.arch()})`,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    totalMemoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    sqlite,
    loadAvg1m: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, {
      cwd: repoRoot(),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '';
  }
}

export function provenance(command: string): Provenance {
  return {
    command,
    gitCommit: git(['rev-parse', 'HEAD']) || 'unknown',
    gitDirty: git(['status', '--porcelain']) !== '',
    date: new Date().toISOString(),
    machine: machineInfo(),
  };
}

export function describeMachine(m: MachineInfo): string {
  const load = m.loadAvg1m === undefined ? '' : `; load ${m.loadAvg1m} at start`;
  return `${m.os}; ${m.cpuModel}, ${m.cores} cores, ${m.totalMemoryGiB} GiB; Node ${m.node}; SQLite ${m.sqlite}${load}`;
}
