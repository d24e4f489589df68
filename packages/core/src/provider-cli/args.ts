import { parseArgs } from 'node:util';
import { MemoryError } from '../errors/memory-error';
import type { CliArgOptions, ParsedCliArgs } from './types';

/**
 * A failure meant for the person at a terminal (the `hermes-memory` CLI and providers' CLI
 * modules): printed as one line on stderr, never with a stack trace. `exitCode` 2 is a usage
 * mistake (unknown command, bad flag), 1 anything else. Recognised across copies of core
 * (`CliError.isInstance`), so a provider module built against another copy keeps its exit codes.
 */
export class CliError extends MemoryError {
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: { exitCode?: number; hint?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? 1;
    this.hint = options.hint;
  }

  static override isInstance(error: unknown): error is CliError {
    return MemoryError.isInstance(error) && error.name === 'CliError';
  }
}

/** A usage mistake: exit code 2. */
export function cliUsageError(message: string, hint?: string): CliError {
  return new CliError(message, { exitCode: 2, ...(hint ? { hint } : {}) });
}

/**
 * node:util `parseArgs`, strict, positionals allowed, with its errors turned into one-line usage
 * errors that point at `hermes-memory <command> --help`.
 */
export function parseCommandLine<O extends CliArgOptions>(
  argv: readonly string[],
  options: O,
  command: string,
): ParsedCliArgs<O> {
  try {
    const parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    return { values: parsed.values as ParsedCliArgs<O>['values'], positionals: parsed.positionals };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node appends a long "To specify a positional argument..." hint; the first sentence is enough.
    const first = message.split(/\.\s/)[0]?.replace(/\.$/, '') ?? message;
    throw cliUsageError(`${first}.`, `See 'hermes-memory ${command} --help'.`);
  }
}
