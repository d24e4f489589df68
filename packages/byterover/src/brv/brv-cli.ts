import fs from 'node:fs';
import path from 'node:path';
import {
  type Clock,
  type CommandResult,
  childEnv,
  type Env,
  findExecutable,
  forgetExecutable,
  runCommand,
  systemClock,
} from '@hermes-memory/core';
import { type BrvEvent, type BrvOutcome, interpretBrvOutput } from './output';

export type BrvCommand = 'query' | 'curate' | 'search' | 'status';

/** What the reference prints when brv is nowhere to be found. */
export const BRV_NOT_FOUND = 'brv CLI not found. Install: npm install -g byterover-cli';

/**
 * brv's own configuration variables the child may see (from the provider's env, which is the
 * profile's own): the data directory, the update switch and the six service URLs. Every other
 * `BRV_*` is stripped, and `BRV_API_KEY` comes only from the provider's resolved settings.
 */
export const BRV_PASSED_VARIABLES: readonly string[] = [
  'BRV_DATA_DIR',
  'BRV_DISABLE_AUTOUPDATE',
  'BRV_IAM_BASE_URL',
  'BRV_COGIT_BASE_URL',
  'BRV_BILLING_BASE_URL',
  'BRV_LLM_BASE_URL',
  'BRV_WEB_APP_URL',
  'BRV_GIT_REMOTE_BASE_URL',
];

/** The ordinary process variables a Node CLI needs (locale, home, temp, proxies, CA certificates). */
const BASE_VARIABLES: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TMPDIR',
  'TZ',
  'SHELL',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_STATE_HOME',
  'XDG_CACHE_HOME',
  'HTTPS_PROXY',
  'HTTP_PROXY',
  'NO_PROXY',
  'https_proxy',
  'http_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
];

export interface BrvCliOptions {
  /** `brv` (looked up on the env's PATH, then the candidates) or a path. */
  brvPath: string;
  /** Places to try after PATH (`~` expanded). */
  candidates?: readonly string[];
  /** The provider's env: the child's environment is built from it, never from `process.env`. */
  env: Env;
  /** Sent as `BRV_API_KEY` when non-empty. */
  apiKey?: string;
  /** false (default): `BRV_DISABLE_AUTOUPDATE=1`, so no command leaves a detached updater behind. */
  autoUpdate?: boolean;
  /** The project directory (created on demand). */
  cwd: string;
  clock?: Clock;
}

export interface BrvRunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Between SIGTERM and SIGKILL of the process group. Default 500 ms. */
  killGraceMs?: number;
}

/**
 * The `brv` command line, one child process per call: argv arrays (no shell, `--` before free
 * text), stdin closed, the environment built from the provider's env, `--format json` output read
 * as NDJSON, and a timeout that kills the process group. Success is what the output says — brv
 * exits 0 when it reports `"success": false`. Never throws.
 *
 * The executable is resolved once, in the constructor (so `isAvailable()` reads a cached answer);
 * a spawn that finds it gone forgets the answer and the next call resolves again.
 */
export class BrvCli {
  private readonly options: BrvCliOptions;
  private readonly clock: Clock;
  private file: string | undefined;
  private stale = false;

  constructor(options: BrvCliOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.file = this.resolve();
  }

  /** The absolute path of brv as last resolved; undefined when it was not found. No I/O. */
  get executable(): string | undefined {
    return this.file;
  }

  get cwd(): string {
    return this.options.cwd;
  }

  /** The child's whole environment. */
  childEnv(executable = this.file): Record<string, string> {
    const env = this.options.env;
    const pass = [...BASE_VARIABLES, ...BRV_PASSED_VARIABLES];
    const set: Record<string, string | undefined> = {
      BRV_API_KEY: this.options.apiKey ? this.options.apiKey : undefined,
    };
    if (!this.options.autoUpdate) set.BRV_DISABLE_AUTOUPDATE = '1';
    return childEnv(env, {
      pass,
      set,
      ...(executable ? { prependPath: [path.dirname(executable)] } : {}),
    });
  }

  /** The argv of a command: `--format json`, the flags, then `--` and the free text. */
  static argv(command: BrvCommand, text?: string, flags: readonly string[] = []): string[] {
    const argv = [command, '--format', 'json', ...flags];
    if (text !== undefined) argv.push('--', text);
    return argv;
  }

  /** Run one command and read its outcome from the NDJSON it printed. */
  async run(
    command: BrvCommand,
    text: string | undefined,
    options: BrvRunOptions,
    flags: readonly string[] = [],
  ): Promise<BrvOutcome> {
    if (this.stale) {
      this.stale = false;
      this.file = this.resolve();
    }
    const file = this.file;
    if (!file) return { ok: false, kind: 'not-found', error: BRV_NOT_FOUND, events: [], durationMs: 0 };
    try {
      fs.mkdirSync(this.options.cwd, { recursive: true });
    } catch (error) {
      return {
        ok: false,
        kind: 'failed',
        error: `cannot create the ByteRover project directory ${this.options.cwd}: ${(error as Error).message}`,
        events: [],
        durationMs: 0,
      };
    }
    const result = await runCommand(file, BrvCli.argv(command, text, flags), {
      cwd: this.options.cwd,
      env: this.childEnv(file),
      timeoutMs: options.timeoutMs,
      killGraceMs: options.killGraceMs ?? 500,
      maxOutputBytes: 4 * 1024 * 1024,
      ...(options.signal ? { signal: options.signal } : {}),
      clock: this.clock,
    });
    if (result.errorCode === 'ENOENT') {
      // The binary vanished (uninstalled, moved): resolve again on the next call.
      forgetExecutable(this.options.brvPath);
      this.stale = true;
      return {
        ok: false,
        kind: 'not-found',
        error: BRV_NOT_FOUND,
        events: [],
        durationMs: result.durationMs,
      };
    }
    return this.redacted(interpretBrvOutput(command, result, options.timeoutMs));
  }

  private resolve(): string | undefined {
    return findExecutable(this.options.brvPath, {
      env: this.options.env,
      ...(this.options.candidates ? { candidates: this.options.candidates } : {}),
    });
  }

  /** The API key never reaches an error message or a log line, even if brv echoed it. */
  private redacted(outcome: BrvOutcome): BrvOutcome {
    const key = this.options.apiKey;
    if (outcome.ok || !key || key.length < 4 || !outcome.error.includes(key)) return outcome;
    return { ...outcome, error: outcome.error.split(key).join('[redacted]') };
  }
}

export type { BrvEvent, BrvOutcome, CommandResult };
