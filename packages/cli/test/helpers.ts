import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/bin.js');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the BUILT binary in a child process, as a user would. */
export function run(
  home: string,
  args: readonly string[],
  options: { input?: string; env?: Record<string, string>; cwd?: string } = {},
): RunResult {
  const r = spawnSync(process.execPath, [BIN, '--home', home, ...args], {
    encoding: 'utf8',
    input: options.input,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env },
    timeout: 30_000,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function tempHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'hm-cli-test-'));
}
