import { APICallError, CircuitOpenError, TimeoutError } from '@hermes-memory/core';

const CLIENT_ERROR_NAMES = new Set(['MemoryNotFoundError', 'ValidationError']);
const CLIENT_ERROR_TEXT = /404|not found|valid uuid/i;

/**
 * The reference's classifier: the backend answered, the request was wrong (an unknown memory id,
 * an invalid UUID, a validation error). These do not trip the breaker — except for `mem0_add`,
 * whose caller counts them on purpose.
 */
export function isMem0ClientError(error: unknown): boolean {
  if (TimeoutError.isInstance(error) || CircuitOpenError.isInstance(error)) return false;
  if (error instanceof Error && CLIENT_ERROR_NAMES.has(error.name)) return true;
  if (APICallError.isInstance(error) && (error.statusCode === 404 || error.statusCode === 422)) return true;
  const message = error instanceof Error ? error.message : String(error);
  return CLIENT_ERROR_TEXT.test(message);
}
