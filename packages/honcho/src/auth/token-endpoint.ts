/**
 * The authorization server's wire protocol: form-encoded POSTs answered with JSON, errors as
 * `{error, error_description}` (RFC 6749 §5.2, RFC 8628 §3.5). Every request has a deadline; no
 * token, code or verifier ever reaches an error message.
 */
import { type Clock, createScrubber, systemClock, withDeadline } from '@hermes-memory/core';
import { isObject, type JsonObject } from '../config/values';
import { redactHonchoTokens } from './credential';

/** A token request sits on the path to a memory call: a stalled server must not hang it. */
export const TOKEN_REQUEST_TIMEOUT_MS = 15_000;
/** Errors no retry can fix: the grant itself is dead, only a new sign-in helps. */
const PERMANENT = new Set(['invalid_grant', 'invalid_client', 'unauthorized_client']);

export class OAuthError extends Error {
  override readonly name = 'OAuthError';
  constructor(
    message: string,
    /** The RFC error code (`invalid_grant`, `authorization_pending`, …) or `http_<status>`. */
    readonly code: string,
    /** True when only a new sign-in can fix it. */
    readonly permanent = PERMANENT.has(code),
  ) {
    super(message);
  }
}

export interface TokenRequestOptions {
  signal?: AbortSignal | undefined;
  clock?: Clock;
  timeoutMs?: number;
  /** Values to mask in errors besides the Honcho token shapes (codes, verifiers). */
  secrets?: readonly string[];
}

/** POST `form` to `url`; the status and the JSON object answered (`{}` when the body is not one). */
export async function postForm(
  url: string,
  form: Readonly<Record<string, string>>,
  options: TokenRequestOptions = {},
): Promise<{ status: number; body: JsonObject }> {
  const scrub = createScrubber([...Object.values(form), ...(options.secrets ?? [])]);
  try {
    return await withDeadline(
      async (signal) => {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: new URLSearchParams(form).toString(),
          signal,
        });
        const text = await response.text();
        let body: unknown;
        try {
          body = text ? JSON.parse(text) : {};
        } catch {
          body = {};
        }
        return { status: response.status, body: isObject(body) ? body : {} };
      },
      {
        timeoutMs: options.timeoutMs ?? TOKEN_REQUEST_TIMEOUT_MS,
        label: 'Honcho OAuth request',
        clock: options.clock ?? systemClock,
        ...(options.signal ? { signal: options.signal } : {}),
      },
    );
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const said = error instanceof Error ? error.message : String(error);
    throw new OAuthError(
      redactHonchoTokens(scrub(`Honcho OAuth: POST ${safeOrigin(url)} failed: ${said}`)),
      'network',
      false,
    );
  }
}

/** An error answer as an `OAuthError` naming the endpoint, the code and the server's description. */
export function oauthErrorOf(
  url: string,
  status: number,
  body: JsonObject,
  secrets: readonly string[] = [],
): OAuthError {
  const code = typeof body.error === 'string' && body.error ? body.error : `http_${status}`;
  const description = typeof body.error_description === 'string' ? body.error_description : '';
  const scrub = createScrubber(secrets);
  const detail = description ? `${code}: ${description}` : code;
  return new OAuthError(
    redactHonchoTokens(scrub(`Honcho OAuth: ${safeOrigin(url)} answered HTTP ${status} (${detail})`)),
    code,
  );
}

/** The URL without query or userinfo, for messages. */
function safeOrigin(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'the token endpoint';
  }
}
