import type { Prompter } from './setup/prompter';

/**
 * Where the CLI reads and writes. Commands never touch `process` directly, so the whole CLI can run
 * in-process in tests and inside other tools.
 */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  /** True when stdout is an interactive terminal (colours, tables sized to the screen). */
  stdoutIsTTY: boolean;
  /** True when stderr is an interactive terminal (progress bars). */
  stderrIsTTY: boolean;
  /** True when stdin is an interactive terminal (wizards and confirmations may prompt). */
  stdinIsTTY: boolean;
  cwd: string;
  /**
   * Asks the setup wizard's questions instead of the terminal (@clack/prompts). When set, `setup`
   * is interactive even without a TTY: front ends and tests drive the real wizard through it.
   */
  prompter?: Prompter;
  /** Aborts long-running work (network calls of provider commands). Default: never aborted. */
  signal?: AbortSignal;
}

export function processIO(): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    stdinIsTTY: process.stdin.isTTY === true,
    cwd: process.cwd(),
  };
}
