/**
 * Credentials a base URL carries (`https://user:pass@proxy/v1`, `…/v1?api-key=…`) are configured
 * secrets like an API key. fetch refuses a URL with user-info and quotes it back in its error, so
 * the user-info is taken out of the URL that is requested and sent as a `Basic` header instead; it
 * and the values of secret-named query parameters join the secrets masked in every error.
 */
import { isSecretName } from '../logging/redact';

export interface UrlCredentials {
  /** The URL to request: user-info removed, trailing slashes removed. */
  url: string;
  /** `Basic …` from the user-info, when there was any. */
  basicAuth?: string;
  /** User-info and secret query values, raw and percent-decoded. */
  secrets: string[];
}

/** Query parameters that carry credentials although their name alone is generic. */
const QUERY_SECRETS = /^(?:key|sig|signature|code|x-amz-signature|x-amz-credential)$/i;

export function splitCredentials(base: URL): UrlCredentials {
  const copy = new URL(base.href);
  const secrets = new Set<string>();
  let basicAuth: string | undefined;
  if (copy.username || copy.password) {
    const user = decodeURIComponent(copy.username);
    const password = decodeURIComponent(copy.password);
    for (const value of [copy.username, copy.password, user, password]) if (value) secrets.add(value);
    basicAuth = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    secrets.add(basicAuth.slice('Basic '.length));
    copy.username = '';
    copy.password = '';
  }
  for (const [name, value] of copy.searchParams) {
    if (value && (isSecretName(name) || QUERY_SECRETS.test(name))) {
      secrets.add(value);
      secrets.add(encodeURIComponent(value));
    }
  }
  const out: UrlCredentials = { url: copy.href.replace(/\/+$/, ''), secrets: [...secrets] };
  if (basicAuth) out.basicAuth = basicAuth;
  return out;
}

/**
 * A cause safe to attach to an error: an `Error` of the same name (and `code`) whose message went
 * through `scrub`. The original is dropped: its message, stack or nested causes may quote the
 * request URL with its credentials.
 */
export function safeCause(error: unknown, scrub: (text: string) => string): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const nested = (source as Error & { cause?: unknown }).cause;
  const message = nested instanceof Error ? `${source.message} (${nested.message})` : source.message;
  const copy = new Error(scrub(message));
  copy.name = source.name;
  const code = errorCodeOf(source);
  if (code !== undefined) (copy as Error & { code?: string }).code = code;
  return copy;
}

/** The first `code` along an error's cause chain (undici wraps the socket error: `TypeError: fetch failed` with `cause: {code: 'ECONNREFUSED'}`). */
export function errorCodeOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
