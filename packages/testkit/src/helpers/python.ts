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

/**
 * A child's stdout line by line, for handshakes with a spawned helper ("locked", then a JSON
 * answer): `next()` resolves with the next line, or rejects if the child exits first.
 */
export function stdoutLines(child: ChildProcess): { next(): Promise<string> } {
  const buffered: string[] = [];
  const waiting: Array<{ resolve: (line: string) => void; reject: (error: Error) => void }> = [];
  let rest = '';
  let exited: number | null | undefined;
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    rest += chunk;
    for (let at = rest.indexOf('\n'); at >= 0; at = rest.indexOf('\n')) {
      const line = rest.slice(0, at);
      rest = rest.slice(at + 1);
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(line);
      else buffered.push(line);
    }
  });
  child.once('close', (code) => {
    exited = code;
    for (const waiter of waiting.splice(0))
      waiter.reject(new Error(`the child exited (${code}) before a line`));
  });
  return {
    next: () =>
      new Promise<string>((resolve, reject) => {
        const line = buffered.shift();
        if (line !== undefined) resolve(line);
        else if (exited !== undefined) reject(new Error(`the child exited (${exited}) before a line`));
        else waiting.push({ resolve, reject });
      }),
  };
}
