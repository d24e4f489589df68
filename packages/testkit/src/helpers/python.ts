import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

let probed: { ok: boolean; detail: string } | undefined;

/**
 * Throw — never skip — when `python3` is missing. Python-compatibility tests are the proof that an
 * existing Python Hermes home keeps working; a machine without python3 must not pass them silently.
 */
export function requirePython(): void {
  if (!probed) {
    const r = spawnSync('python3', ['--version'], { encoding: 'utf8' });
    probed = { ok: !r.error && r.status === 0, detail: r.error?.message ?? r.stderr ?? '' };
  }
  if (!probed.ok) {
    throw new Error(
      `python3 is required for the Python-compatibility tests and was not found on PATH (${probed.detail.trim()}). ` +
        'Install it (Debian: apt-get install python3) and rerun.',
    );
  }
}

/** Run `python3 script ...args`; resolves to the last stdout line parsed as JSON. */
export async function runPythonJson<T = Record<string, unknown>>(
  script: string,
  ...args: string[]
): Promise<T> {
  requirePython();
  const { stdout } = await run('python3', [script, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split('\n').pop() ?? 'null') as T;
}

/** Start `python3 script ...args` with piped stdin/stdout (stderr inherited). */
export function spawnPython(script: string, ...args: string[]): ChildProcess {
  requirePython();
  return spawn('python3', [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
}
