import {
  CliError,
  type CliProgress,
  type CliStyle,
  type MemoryProvider,
  type PortableRecord,
  type ProviderCliContext,
  type ProviderCliModule,
  type ProviderPrompter,
  cliUsageError,
  createLogger,
  describeError,
  loadHermesConfig,
  parseCommandLine,
  readProviderConfig,
  resolveEnv,
} from '@hermes-memory/core';

/**
 * Drive a provider's CLI module (`./cli`, decision 0603) in-process, the way `hermes-memory`
 * would: a real `ProviderCliContext` over a HERMES_HOME, with stdout and stderr captured. For the
 * module's own unit tests; the built CLI exercises the same module end to end.
 */
export interface ProviderCliTestOptions {
  /** HERMES_HOME (config.yaml and .env are read from it, as the CLI does). */
  home: string;
  /** The environment before `<home>/.env` is overlaid. Default: empty (tests never see the shell's). */
  env?: Readonly<Record<string, string | undefined>>;
  /** `--json`. */
  json?: boolean;
  /** Whether commands may prompt. Default false (true when a `prompter` is given). */
  interactive?: boolean;
  /** Answers the commands' questions (`ctx.prompter`), e.g. testkit's `scriptedPrompter`. */
  prompter?: ProviderPrompter;
  /** Lets commands draw progress into the captured stderr, as on a terminal. Default false. */
  progress?: boolean;
  signal?: AbortSignal;
  /** What `ctx.loadProvider()` returns. Default: an error (the module should not need it). */
  loadProvider?: () => Promise<MemoryProvider>;
}

export interface ProviderCliTestContext {
  ctx: ProviderCliContext;
  /** Everything written to stdout so far. */
  stdout(): string;
  stderr(): string;
}

const PLAIN: CliStyle = {
  enabled: false,
  bold: (t) => t,
  dim: (t) => t,
  red: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  cyan: (t) => t,
  gray: (t) => t,
};

export function providerCliTestContext(
  module: Pick<ProviderCliModule, 'provider' | 'configPaths'>,
  options: ProviderCliTestOptions,
  command?: string,
): ProviderCliTestContext {
  let stdout = '';
  let stderr = '';
  const id = module.provider;
  const config = loadHermesConfig(options.home);
  const name = command ? `${id} ${command}` : id;
  const ctx: ProviderCliContext = {
    providerId: id,
    home: options.home,
    config,
    providerConfig: readProviderConfig(config, module.configPaths ?? [`memory.${id}`]).values,
    env: resolveEnv(options.home, options.env ?? {}),
    json: options.json === true,
    interactive: options.interactive ?? options.prompter !== undefined,
    ...(options.prompter ? { prompter: options.prompter } : {}),
    style: PLAIN,
    logger: createLogger({
      level: 'warn',
      sink: (r) => (stderr += `${r.level.toUpperCase()} ${r.message}\n`),
    }),
    signal: options.signal ?? new AbortController().signal,
    out: (line = '') => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
    printJson: (value) => (stdout += `${JSON.stringify(value, null, 2)}\n`),
    progress: (label, total) =>
      capturedProgress(options.progress === true, label, total, (t) => (stderr += t)),
    parseArgs: (argv, argOptions) => parseCommandLine(argv, argOptions, name),
    usageError: (message, hint) => cliUsageError(message, hint ?? `See 'hermes-memory ${name} --help'.`),
    fail: (message, hint) => new CliError(message, hint ? { hint } : {}),
    loadProvider:
      options.loadProvider ??
      (async () => {
        throw new CliError(`loadProvider() is not available in this test context for '${id}'.`);
      }),
  };
  return { ctx, stdout: () => stdout, stderr: () => stderr };
}

export interface ProviderCliRun {
  /** The exit code `hermes-memory` would return. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `hermes-memory <provider> <command> [args]` in-process: finds the command, runs it, and turns a
 * thrown error into the CLI's one line on stderr and exit code (2 for usage mistakes, else 1).
 */
export async function runProviderCliCommand(
  module: ProviderCliModule,
  argv: readonly string[],
  options: ProviderCliTestOptions,
): Promise<ProviderCliRun> {
  const [name, ...rest] = argv;
  const harness = providerCliTestContext(module, options, name);
  const command = module.commands?.find((c) => c.name === name);
  let code: number;
  try {
    if (!command) throw cliUsageError(`Unknown command '${name ?? ''}' for ${module.provider}.`);
    code = await command.run(harness.ctx, rest);
  } catch (error) {
    const hint = CliError.isInstance(error) && error.hint ? ` ${error.hint}` : '';
    harness.ctx.err(`hermes-memory: ${describeError(error).replace(/\s*\n\s*/g, ' ')}${hint}`);
    code = CliError.isInstance(error) ? error.exitCode : 1;
  }
  return { code, stdout: harness.stdout(), stderr: harness.stderr() };
}

/** Every record a module exports (its iterable drained), as `hermes-memory export` collects them. */
export async function exportProviderRecords(
  module: ProviderCliModule,
  ctx: ProviderCliContext,
): Promise<PortableRecord[]> {
  if (!module.exportRecords) return [];
  const out: PortableRecord[] = [];
  for await (const record of module.exportRecords(ctx)) out.push(record);
  return out;
}

function capturedProgress(
  enabled: boolean,
  label: string,
  total: number,
  write: (text: string) => void,
): CliProgress {
  if (!enabled || total <= 0) return { tick() {}, done() {} };
  let current = 0;
  return {
    tick(delta = 1) {
      current += delta;
      write(`\r${label} ${current}/${total}`);
    },
    done() {
      write('\n');
    },
  };
}
