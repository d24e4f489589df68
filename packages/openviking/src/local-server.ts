import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { childEnv, type Env, findExecutable } from '@hermes-memory/core';

export type LaunchResult =
  | { status: 'spawned'; pid: number; logFile: string }
  | { status: 'occupied'; message: string }
  | { status: 'missing'; message: string }
  | { status: 'failed'; message: string };

/** Whether something accepts connections on host:port (within `timeoutMs`). */
export function portOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Start `openviking-server --host H --port P` for a loopback endpoint nobody answers on: detached
 * (its own process group, so it outlives the agent as a local service), stdin closed, stdout and
 * stderr appended to `<home>/logs/openviking-server.log` (0600), its environment built from the
 * provider's (never the whole process env; `PYTHONPATH` never passed). A port that is already
 * open is left alone; a program that is not installed is reported, not waited for.
 */
export async function launchLocalServer(options: {
  command: string;
  host: string;
  port: number;
  hermesHome: string;
  env: Env;
}): Promise<LaunchResult> {
  const { host, port } = options;
  if (await portOpen(host, port))
    return {
      status: 'occupied',
      message: `Port ${port} on ${host} is occupied by another program that does not answer as OpenViking; not starting openviking-server.`,
    };
  const program = findExecutable(options.command, { env: options.env });
  if (!program)
    return {
      status: 'missing',
      message: `${options.command} is not on PATH: install OpenViking (pip install openviking) or start the server yourself.`,
    };
  const logFile = path.join(options.hermesHome, 'logs', 'openviking-server.log');
  let fd: number;
  try {
    fs.mkdirSync(path.dirname(logFile), { recursive: true, mode: 0o700 });
    fd = fs.openSync(
      logFile,
      fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW,
      0o600,
    );
  } catch (error) {
    return { status: 'failed', message: `cannot open ${logFile}: ${(error as Error).message}` };
  }
  try {
    const child = spawn(program, ['--host', host, '--port', String(port)], {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: childEnv(options.env, {
        pass: [
          'PATH',
          'HOME',
          'USER',
          'LOGNAME',
          'LANG',
          'LC_ALL',
          'TMPDIR',
          'TZ',
          'VIRTUAL_ENV',
          'OPENVIKING_CONFIG_FILE',
        ],
      }),
    });
    const pid = child.pid;
    const failed = await new Promise<string | null>((resolve) => {
      child.once('error', (error) => resolve(error.message));
      child.once('spawn', () => resolve(null));
    });
    child.unref();
    if (failed !== null || pid === undefined)
      return { status: 'failed', message: `could not start ${program}: ${failed}` };
    return { status: 'spawned', pid, logFile };
  } finally {
    fs.closeSync(fd);
  }
}
