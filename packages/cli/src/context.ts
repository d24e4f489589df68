import os from 'node:os';
import path from 'node:path';
import { parseCommandLine } from '@hermes-memory/core';
import { usageError } from './errors';
import type { CliIO } from './io';
import { type Progress, createProgress } from './progress';
import { type Style, colorEnabled, createStyle } from './style';

/** Everything a command needs: where the home is, how to print, whether it may ask questions. */
export interface CommandContext {
  io: CliIO;
  /** Absolute HERMES_HOME this run works on. */
  home: string;
  homeSource: 'flag' | 'env' | 'default';
  /** `--json`: machine-readable output on stdout, nothing decorative. */
  json: boolean;
  /** Styling for stdout / stderr (each is plain text when its stream is not a TTY). */
  style: Style;
  errStyle: Style;
  /** May prompt: stdin and stdout are both terminals and `--json` is off. */
  interactive: boolean;
  out(line?: string): void;
  err(line: string): void;
  printJson(value: unknown): void;
  progress(label: string, total: number): Progress;
  /** Passed on to provider commands' network calls (`CliIO.signal`; never aborted by default). */
  signal: AbortSignal;
}

export interface GlobalOptions {
  home: string | undefined;
  json: boolean;
  noColor: boolean;
  help: boolean;
  version: boolean;
}

/**
 * Pull the global options out of argv wherever they appear (before or after the command), up to a
 * literal `--`. What is left goes to the command's own strict parser.
 */
export function extractGlobalOptions(argv: readonly string[]): { globals: GlobalOptions; rest: string[] } {
  const globals: GlobalOptions = {
    home: undefined,
    json: false,
    noColor: false,
    help: false,
    version: false,
  };
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--home' || arg.startsWith('--home=')) {
      const value = arg === '--home' ? argv[++i] : arg.slice('--home='.length);
      // An empty value must not quietly fall back to ~/.hermes: that is someone else's memory.
      if (value === undefined || value.trim() === '' || value.startsWith('--'))
        throw usageError("Option '--home' needs a directory.");
      globals.home = value;
    } else if (arg === '--json') globals.json = true;
    else if (arg === '--no-color') globals.noColor = true;
    else if (arg === '--help' || arg === '-h') globals.help = true;
    else if (arg === '--version' || arg === '-V') globals.version = true;
    else rest.push(arg);
  }
  return { globals, rest };
}

/** `--home` beats HERMES_HOME beats `~/.hermes`; `~` is expanded and the result made absolute. */
export function resolveHome(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): { home: string; source: 'flag' | 'env' | 'default' } {
  const expand = (p: string) => (p === '~' || p.startsWith('~/') ? path.join(os.homedir(), p.slice(1)) : p);
  if (flag !== undefined) return { home: path.resolve(cwd, expand(flag)), source: 'flag' };
  const fromEnv = env.HERMES_HOME?.trim();
  if (fromEnv) return { home: path.resolve(cwd, expand(fromEnv)), source: 'env' };
  return { home: path.join(os.homedir(), '.hermes'), source: 'default' };
}

export function createContext(io: CliIO, globals: GlobalOptions): CommandContext {
  const { home, source } = resolveHome(globals.home, io.env, io.cwd);
  const env = globals.noColor ? { ...io.env, NO_COLOR: '1' } : io.env;
  const style = createStyle(!globals.json && colorEnabled(io.stdoutIsTTY, env));
  const errStyle = createStyle(colorEnabled(io.stderrIsTTY, env));
  return {
    io,
    home,
    homeSource: source,
    json: globals.json,
    style,
    errStyle,
    interactive: io.stdinIsTTY && io.stdoutIsTTY && !globals.json,
    out: (line = '') => io.stdout(`${line}\n`),
    err: (line) => io.stderr(`${line}\n`),
    printJson: (value) => io.stdout(`${JSON.stringify(value, null, 2)}\n`),
    progress: (label, total) => createProgress({ label, total, enabled: io.stderrIsTTY, write: io.stderr }),
    signal: io.signal ?? new AbortController().signal,
  };
}

/** node:util parseArgs, strict, with its errors turned into one-line usage errors (core's). */
export const parseCommandArgs = parseCommandLine;
