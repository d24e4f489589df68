import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { type CliIO, runCli } from '../dist/index.js';

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

/**
 * Run the BUILT CLI in this process, collecting its output: for a prompter (the setup wizard), a pid
 * the test knows, or terminal flags a child cannot fake. Not a terminal, empty environment, this
 * process's cwd, unless `io` says otherwise.
 */
export async function runInProcess(
  args: readonly string[],
  io: Partial<Omit<CliIO, 'stdout' | 'stderr'>> = {},
): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    env: {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
    cwd: process.cwd(),
    ...io,
  });
  return { code, stdout, stderr };
}

export function tempHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'hm-cli-test-'));
}

/** A temp-home factory for one test file: every home it made is removed after each test. */
export function useTempHomes(): () => string {
  const homes: string[] = [];
  afterEach(() => {
    for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
  });
  return () => {
    const h = tempHome();
    homes.push(h);
    return h;
  };
}

/** The CLI's error contract: non-zero exit, one `hermes-memory: …` line on stderr, no stack trace. */
export function expectOneLineError(r: { code: number; stderr: string }): void {
  expect(r.code).not.toBe(0);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^hermes-memory: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}
