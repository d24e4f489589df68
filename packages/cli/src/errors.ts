import { CliError, MemoryError, cliUsageError } from '@hermes-memory/core';

/**
 * `CliError` (core's, shared with providers' CLI modules): one line on stderr, never a stack trace;
 * exit code 2 for a usage mistake (unknown command, bad flag), 1 otherwise.
 */
export { CliError };

export const usageError = cliUsageError;

/** One line, whatever was thrown: the message without stack, newlines folded. */
export function oneLine(error: unknown): string {
  let message: string;
  if (MemoryError.isInstance(error) || error instanceof Error) message = error.message;
  else message = String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && !message.includes(code))
    message = `${code}: ${message}`;
  return message.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}
