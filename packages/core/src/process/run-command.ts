import { type ChildProcess, spawn } from 'node:child_process';
import type { Env } from '../config/settings';
import { type Clock, type ClockTimer, systemClock } from '../resilience/clock';

export interface RunCommandOptions {
  /** Working directory (must exist). Default: the current one. */
  cwd?: string;
  /**
   * The child's whole environment — build it from the provider's env with `childEnv`, never pass
   * `process.env` wholesale (another profile's keys would leak into the child). Default: `{}`
   * plus `PATH` from `process.env`.
   */
  env?: Env;
  /** Kill the process group after this long. Default 60 000 ms; `Infinity` for none. */
  timeoutMs?: number;
  /** Between SIGTERM and SIGKILL. Default 2000 ms. */
  killGraceMs?: number;
  /** Bytes kept per stream; the rest is dropped and `truncated` set. Default 1 MiB. */
  maxOutputBytes?: number;
  /** Aborting kills the process group. */
  signal?: AbortSignal;
  clock?: Clock;
}

export interface CommandResult {
  /** Exit code 0, not killed, no spawn error. */
  ok: boolean;
  exitCode: number | null;
  /** The signal that ended it (`SIGTERM` / `SIGKILL` after a timeout). */
  exitSignal: string | null;
  stdout: string;
  stderr: string;
  /** Output beyond `maxOutputBytes` was dropped. */
  truncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  /** Why it could not run or was stopped: `ENOENT` (not found), `EACCES`, `timeout`, `aborted`, … */
  errorCode?: string;
  /** A one-line description of that error. */
  error?: string;
  durationMs: number;
}

const MiB = 1024 * 1024;
/** After the program exited, how long to wait for its pipes to close. */
const CLOSE_WAIT_MS = 1000;

/**
 * Run a program with an argument vector — no shell, so nothing in `args` is ever interpreted —
 * stdin closed, output captured up to a cap, and a timeout that kills the whole process group
 * (SIGTERM, then SIGKILL), so helpers a CLI spawned die with it. Never throws: every outcome,
 * a missing executable included, is a `CommandResult`.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  options: RunCommandOptions = {},
): Promise<CommandResult> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const cap = Math.max(0, options.maxOutputBytes ?? MiB);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const grace = Math.max(0, options.killGraceMs ?? 2000);
  const env = options.env ?? { PATH: process.env.PATH };

  return new Promise<CommandResult>((resolve) => {
    const out = { stdout: [] as Buffer[], stderr: [] as Buffer[], bytes: { stdout: 0, stderr: 0 } };
    let truncated = false;
    let timedOut = false;
    let aborted = false;
    let spawnError: NodeJS.ErrnoException | undefined;
    let settled = false;
    const timers: ClockTimer[] = [];

    const finish = (exitCode: number | null, exitSignal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clock.clearTimeout(t);
      options.signal?.removeEventListener('abort', onAbort);
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      const errorCode = spawnError?.code ?? (timedOut ? 'timeout' : aborted ? 'aborted' : undefined);
      const error = spawnError
        ? spawnError.code === 'ENOENT'
          ? `${file}: command not found`
          : `${file}: ${spawnError.message}`
        : timedOut
          ? `${file} timed out after ${timeoutMs} ms`
          : aborted
            ? `${file} was stopped`
            : undefined;
      resolve({
        ok: !spawnError && !timedOut && !aborted && exitCode === 0,
        exitCode,
        exitSignal,
        stdout: Buffer.concat(out.stdout).toString('utf8'),
        stderr: Buffer.concat(out.stderr).toString('utf8'),
        truncated,
        timedOut,
        aborted,
        ...(errorCode ? { errorCode } : {}),
        ...(error ? { error } : {}),
        durationMs: clock.now() - started,
      });
    };

    const killGroup = (sig: NodeJS.Signals) => {
      if (!child?.pid) return;
      try {
        process.kill(-child.pid, sig);
      } catch {
        try {
          child.kill(sig);
        } catch {
          // already gone
        }
      }
    };

    const stop = () => {
      killGroup('SIGTERM');
      timers.push(clock.setTimeout(() => killGroup('SIGKILL'), grace));
      // A process that survives even SIGKILL (uninterruptible I/O) must not hold the caller.
      timers.push(
        clock.setTimeout(
          () => finish(child?.exitCode ?? null, child?.signalCode ?? 'SIGKILL'),
          grace * 2 + 1,
        ),
      );
    };

    const onAbort = () => {
      if (settled) return;
      aborted = true;
      stop();
    };

    let child: ChildProcess | undefined;
    if (options.signal?.aborted) {
      aborted = true;
      finish(null, null);
      return;
    }
    try {
      child = spawn(file, [...args], {
        cwd: options.cwd,
        env: env as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: false,
        detached: true, // its own process group, so a timeout kills the helpers it started too
        windowsHide: true,
      });
    } catch (error) {
      spawnError = error as NodeJS.ErrnoException;
      finish(null, null);
      return;
    }
    const collect = (stream: 'stdout' | 'stderr') => (chunk: Buffer) => {
      const room = cap - out.bytes[stream];
      if (room <= 0) {
        truncated = true;
        return;
      }
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (kept.length < chunk.length) truncated = true;
      out[stream].push(kept);
      out.bytes[stream] += kept.length;
    };
    child.stdout?.on('data', collect('stdout'));
    child.stderr?.on('data', collect('stderr'));
    child.on('error', (error) => {
      spawnError = error as NodeJS.ErrnoException;
      finish(null, null);
    });
    child.on('exit', (code, sig) => {
      // Output may still be in the pipes: wait for 'close', but not forever (a daemon it started
      // may hold them open). Real time on purpose: this is a safety net, not a budget.
      const wait = setTimeout(() => finish(code, sig), CLOSE_WAIT_MS);
      wait.unref();
      child?.once('close', () => clearTimeout(wait));
    });
    child.on('close', (code, sig) => finish(code, sig));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (Number.isFinite(timeoutMs)) {
      timers.push(
        clock.setTimeout(() => {
          if (settled) return;
          timedOut = true;
          stop();
        }, timeoutMs),
      );
    }
  });
}

/**
 * The environment for a child process, built from the provider's env (`ctx.env`), not the whole
 * process: only `pass` names (default: PATH, HOME, USER, LANG, LC_ALL, TMPDIR, TZ, SHELL), then
 * `set` (`undefined` removes), then `prependPath` directories before PATH.
 */
export function childEnv(
  providerEnv: Env,
  options: {
    pass?: readonly string[];
    set?: Readonly<Record<string, string | undefined>>;
    prependPath?: readonly string[];
  } = {},
): Record<string, string> {
  const pass = options.pass ?? ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ', 'SHELL'];
  const out: Record<string, string> = {};
  for (const name of pass) {
    const value = providerEnv[name];
    if (typeof value === 'string') out[name] = value;
  }
  for (const [name, value] of Object.entries(options.set ?? {})) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  if (options.prependPath && options.prependPath.length > 0) {
    out.PATH = [...options.prependPath, ...(out.PATH ? [out.PATH] : [])].join(':');
  }
  return out;
}
