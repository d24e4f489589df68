import { MemoryError } from '../errors/memory-error';

/** Serialise a tool result. Non-ASCII text is kept as is (the reference's `ensure_ascii=False`). */
export function toolResult(value: Readonly<Record<string, unknown>>): string {
  return JSON.stringify(value);
}

/** The JSON error every tool returns instead of throwing: `{"success": false, "error": "..."}`. */
export function toolError(message: string, extra: Readonly<Record<string, unknown>> = {}): string {
  return JSON.stringify({ success: false, error: message, ...extra });
}

/**
 * Run a tool handler and turn anything it throws into a JSON error, so a malformed or hostile
 * argument can never surface as an exception to the agent loop.
 */
export async function guardToolCall(run: () => string | Promise<string>): Promise<string> {
  try {
    const out = await run();
    if (typeof out !== 'string') return toolError('Tool returned a non-string result.');
    return out;
  } catch (error) {
    return toolError(describeError(error));
  }
}

export function describeError(error: unknown): string {
  if (MemoryError.isInstance(error) || error instanceof Error) return error.message;
  return String(error);
}
