import { MemoryError } from '@hermes-memory/core';

/**
 * An error meant for the person at the terminal: printed as one line on stderr, never with a
 * stack trace. `exitCode` 2 is a usage mistake (unknown command, bad flag), 1 anything else.
 */
export class CliError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;

  constructor(message: string, options: { exitCode?: number; hint?: string; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? 1;
    this.hint = options.hint;
  }
}

export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, { exitCode: 2, ...(hint ? { hint } : {}) });
}

/** One line, whatever was thrown: the message without stack, newlines folded. */
export function oneLine(error: unknown): string {
  let message: string;
  if (error instanceof CliError || MemoryError.isInstance(error) || error instanceof Error)
    message = error.message;
  else message = String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && !message.includes(code))
    message = `${code}: ${message}`;
  return message.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}
