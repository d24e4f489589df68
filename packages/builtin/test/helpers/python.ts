import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from './temp';

const run = promisify(execFile);

/** The reference-protocol client the compatibility tests race against (test/python/memory_file.py). */
export const MEMORY_FILE_PY = path.join(PACKAGE_ROOT, 'test', 'python', 'memory_file.py');

const probe = spawnSync('python3', ['--version'], { encoding: 'utf8' });

/**
 * Fails — never skips — when python3 is missing: these tests are the proof that an existing
 * Python Hermes home keeps working, and CI has Debian's python3.
 */
export function requirePython(): void {
  if (probe.error || probe.status !== 0) {
    throw new Error(
      'python3 is required for the Python-compatibility tests and was not found on PATH ' +
        `(${probe.error?.message ?? probe.stderr}). Install it (Debian: apt-get install python3) and rerun.`,
    );
  }
}

/** Run one memory_file.py command and parse its JSON answer. */
export async function py<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  requirePython();
  const { stdout } = await run('python3', [MEMORY_FILE_PY, ...args], { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop() ?? 'null') as T;
}

/** Start a long-running memory_file.py command (for `hold`). */
export function pySpawn(...args: string[]): ChildProcess {
  requirePython();
  return spawn('python3', [MEMORY_FILE_PY, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
}
