import { spawn } from 'node:child_process';

export interface ChildWorkerOptions {
  args?: readonly string[];
  /** Node flags, e.g. `['--import', 'tsx']` to run a TypeScript worker. */
  execArgv?: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** A Node child process that reports progress as lines on stdout (`ack <id>`), for kill -9 tests. */
export interface ChildWorker {
  readonly pid: number | undefined;
  /** Every complete stdout line so far. */
  readonly lines: readonly string[];
  /** Resolves when the child exited (however it ended). */
  readonly exited: Promise<ChildExit>;
  /**
   * Resolve once `count` lines matching `filter` (default: every line) have arrived, or the child
   * exited (check `lines` after).
   */
  waitForLines(count: number, filter?: (line: string) => boolean): Promise<void>;
  /** Send a signal (default SIGKILL: no cleanup, no flush — a crash) and wait for the exit. */
  kill(signal?: NodeJS.Signals): Promise<ChildExit>;
}

/**
 * Start `script` with Node (stdin closed) and follow its stdout line by line. The pattern of the
 * durability tests: the child acknowledges each write it finished (`ack <marker>`), the test kills
 * it at a chosen point with SIGKILL, then checks that every acknowledged write survived.
 */
export function startChildWorker(script: string, options: ChildWorkerOptions = {}): ChildWorker {
  const child = spawn(process.execPath, [...(options.execArgv ?? []), script, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ count: number; filter: (line: string) => boolean; resolve: () => void }> = [];
  let buffer = '';
  let stderr = '';
  let done = false;
  const check = () => {
    for (const waiter of [...waiters]) {
      if (done || lines.filter(waiter.filter).length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      lines.push(buffer.slice(0, newline).replace(/\r$/, ''));
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
    }
    check();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<ChildExit>((resolve) => {
    child.on('close', (code, signal) => {
      done = true;
      check();
      resolve({ code, signal, stderr });
    });
    child.on('error', (error) => {
      done = true;
      stderr += `${error.message}\n`;
      check();
      resolve({ code: null, signal: null, stderr });
    });
  });
  return {
    pid: child.pid,
    lines,
    exited,
    waitForLines(count, filter = () => true) {
      if (done || lines.filter(filter).length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, filter, resolve }));
    },
    kill(signal = 'SIGKILL') {
      if (!done) child.kill(signal);
      return exited;
    },
  };
}
