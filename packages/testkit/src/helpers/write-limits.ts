import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * How a child process is starved of space:
 * - `full-disk`: a tmpfs of `bytes` mounted (in a private mount namespace, so nothing leaks and no
 *   cleanup is needed) at the folder the child writes to; the child fills it and then writes.
 * - `file-size`: RLIMIT_FSIZE (`ulimit -f`) of `bytes`; a write past it gets a short count, then
 *   EFBIG. Node ignores SIGXFSZ, so the error surfaces instead of killing the process.
 */
export type WriteLimitKind = 'full-disk' | 'file-size';

export interface WriteLimitRun {
  /** The limit that was actually applied. */
  kind: WriteLimitKind;
  /** Set when a tmpfs could not be mounted here and the file-size limit stood in for it. */
  fellBackFrom?: 'full-disk';
  /** What each phase printed as its JSON line (`{"phase": "act", ...}`), keyed by phase. */
  phases: Record<string, Record<string, unknown>>;
  /** Exit status of the whole run (the `check` phase's). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface WriteLimitOptions {
  /**
   * A Node script run three times with the phase as its first argument, in a folder it gets as
   * `HM_LIMIT_DIR` (on the tmpfs for `full-disk`):
   * `setup` (no limit: write the state to protect), `act` (under the limit: the write that must
   * fail cleanly), `check` (no limit: report what is on disk). Each phase prints one JSON line
   * `{"phase": "<phase>", ...}`.
   */
  script: string;
  args?: readonly string[];
  /** Node options before the script, e.g. `['--import', 'tsx']` for a TypeScript script. */
  nodeArgs?: readonly string[];
  /** Working folder of the script (default: this process's). */
  cwd?: string;
  /** Size of the tmpfs, or the file-size limit (rounded up to 512-byte blocks). */
  bytes: number;
  /** full-disk: bytes left free after filling the disk (default 4096), so the write gets part of its data in. */
  slackBytes?: number;
  env?: Readonly<Record<string, string>>;
  timeoutMs?: number;
}

let tmpfsProbe: string[] | null | undefined;

/**
 * The command prefix that runs a command with a private tmpfs mount, or null where none can be
 * mounted (not Linux, no `unshare`, or a container without the right to mount).
 */
export function tmpfsMountPrefix(): string[] | null {
  if (tmpfsProbe !== undefined) return tmpfsProbe;
  tmpfsProbe = null;
  if (process.platform !== 'linux') return null;
  const probeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-tmpfs-probe-'));
  try {
    // Root mounts in a private mount namespace; anyone else in a user namespace mapped to root.
    const candidates =
      process.getuid?.() === 0
        ? [
            ['unshare', '-m'],
            ['unshare', '-Urm'],
          ]
        : [['unshare', '-Urm']];
    for (const prefix of candidates) {
      const probe = spawnSync(
        prefix[0]!,
        [...prefix.slice(1), 'sh', '-c', 'mount -t tmpfs -o size=16k tmpfs "$1"', 'sh', probeDir],
        { stdio: 'ignore', timeout: 10_000 },
      );
      if (probe.status === 0) {
        tmpfsProbe = prefix;
        break;
      }
    }
  } finally {
    fs.rmSync(probeDir, { recursive: true, force: true });
  }
  return tmpfsProbe;
}

/** Fill the filesystem of argv[1] with a filler file, then free argv[2] bytes of it. */
const FILL_DISK = `
const fs = require('fs');
const fd = fs.openSync(process.argv[1] + '/.filler', 'w');
const chunk = Buffer.alloc(4096, 97);
try { for (;;) fs.writeSync(fd, chunk); } catch (e) { if (e.code !== 'ENOSPC') throw e; }
fs.ftruncateSync(fd, Math.max(0, fs.fstatSync(fd).size - Number(process.argv[2])));
fs.closeSync(fd);`;

function shellQuote(args: readonly string[]): string {
  return args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
}

/**
 * Run a Node script's write under a full disk or a file-size limit (see `WriteLimitOptions` for
 * its three phases). `full-disk` falls back to `file-size` (saying so in `fellBackFrom`) where no
 * tmpfs can be mounted, so a test always exercises a failing write instead of being skipped.
 * Linux and macOS (`sh`, and `unshare` for the tmpfs).
 */
export async function runUnderWriteLimit(
  kind: WriteLimitKind,
  options: WriteLimitOptions,
): Promise<WriteLimitRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hm-${kind}-`));
  const mount = kind === 'full-disk' ? tmpfsMountPrefix() : null;
  const applied: WriteLimitKind = mount ? 'full-disk' : 'file-size';
  const phase = (name: string) =>
    shellQuote([
      process.execPath,
      ...(options.nodeArgs ?? []),
      options.script,
      name,
      ...(options.args ?? []),
    ]);
  const limited = mount
    ? `${shellQuote([process.execPath, '-e', FILL_DISK, dir, String(options.slackBytes ?? 4096)])} && ${phase('act')}`
    : `(ulimit -f ${Math.ceil(options.bytes / 512)} && exec ${phase('act')})`;
  const script = [
    ...(mount ? [`mount -t tmpfs -o size=${options.bytes} tmpfs ${shellQuote([dir])} || exit 97`] : []),
    `${phase('setup')} || exit 98`,
    limited,
    `exec ${phase('check')}`,
  ].join('\n');
  const command = [...(mount ?? []), 'sh', '-c', script];
  const env = { ...process.env, ...options.env, HM_LIMIT_KIND: applied, HM_LIMIT_DIR: dir };
  try {
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve, reject) => {
      const child = spawn(command[0]!, command.slice(1), {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => {
        out += String(d);
      });
      child.stderr.on('data', (d) => {
        err += String(d);
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.once('close', (status) => {
        clearTimeout(timer);
        resolve({ code: status, stdout: out, stderr: err });
      });
    });
    const phases: WriteLimitRun['phases'] = {};
    for (const line of stdout.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed.phase === 'string') phases[parsed.phase] = parsed;
      } catch {}
    }
    return {
      kind: applied,
      ...(applied !== kind ? { fellBackFrom: 'full-disk' as const } : {}),
      phases,
      code,
      stdout,
      stderr,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
