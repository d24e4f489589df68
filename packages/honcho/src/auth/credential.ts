/**
 * An OAuth grant as honcho.json stores it, the Python agent's format: the access token is the host
 * block's `apiKey` (it authenticates like a scoped API key), the rest lives in the host's `oauth`
 * object — `refreshToken`, `expiresAt` (epoch seconds), `clientId`, `tokenEndpoint`, `scope`,
 * `tokenType`. Refresh tokens rotate and are single-use: replaying a superseded one revokes the grant.
 */
import { createHash } from 'node:crypto';
import { isObject, type JsonObject } from '../config/values';

export const ACCESS_TOKEN_PREFIX = 'hch-at-';
export const REFRESH_TOKEN_PREFIX = 'hch-rt-';
/** Refresh this long before expiry, so a request in flight never races the boundary. */
export const REFRESH_SKEW_MS = 120_000;

export interface OAuthCredential {
  accessToken: string;
  refreshToken: string;
  /** Epoch milliseconds (the file holds seconds). */
  expiresAt: number;
  clientId: string;
  tokenEndpoint: string;
  scope: string;
  tokenType: string;
}

export function isOAuthAccessToken(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(ACCESS_TOKEN_PREFIX);
}

/** The grant in a host block, or undefined when the block holds a plain key or an incomplete grant. */
export function credentialFromBlock(block: JsonObject): OAuthCredential | undefined {
  const oauth = block.oauth;
  const access = block.apiKey;
  if (!isObject(oauth) || !isOAuthAccessToken(access)) return undefined;
  const { refreshToken, tokenEndpoint, clientId } = oauth;
  if (typeof refreshToken !== 'string' || !refreshToken) return undefined;
  if (typeof tokenEndpoint !== 'string' || !tokenEndpoint) return undefined;
  if (typeof clientId !== 'string' || !clientId) return undefined;
  const seconds = Number(oauth.expiresAt ?? 0);
  return {
    accessToken: access,
    refreshToken,
    expiresAt: Number.isFinite(seconds) ? seconds * 1000 : 0,
    clientId,
    tokenEndpoint,
    scope: typeof oauth.scope === 'string' ? oauth.scope : 'write',
    tokenType: typeof oauth.tokenType === 'string' ? oauth.tokenType : 'Bearer',
  };
}

/** The `oauth` object written next to `apiKey` (seconds, as the Python agent writes it). */
export function oauthBlock(credential: OAuthCredential): JsonObject {
  return {
    refreshToken: credential.refreshToken,
    expiresAt: Math.floor(credential.expiresAt / 1000),
    clientId: credential.clientId,
    tokenEndpoint: credential.tokenEndpoint,
    scope: credential.scope,
    tokenType: credential.tokenType,
  };
}

/** Within `REFRESH_SKEW_MS` of expiry (or past it). */
export function needsRefresh(credential: Pick<OAuthCredential, 'expiresAt'>, nowMs: number): boolean {
  return nowMs >= credential.expiresAt - REFRESH_SKEW_MS;
}

/** An OAuth token response (`access_token`, `refresh_token`, `expires_in`, …) as a credential. */
export function credentialFromTokenResponse(
  body: unknown,
  options: { nowMs: number; clientId: string; tokenEndpoint: string; scope?: string; tokenType?: string },
): OAuthCredential {
  const data = isObject(body) ? body : {};
  const access = data.access_token;
  const refresh = data.refresh_token;
  if (!isOAuthAccessToken(access) || typeof refresh !== 'string' || !refresh)
    throw new Error('the token response has no access_token/refresh_token');
  const expiresIn = Number(data.expires_in ?? 0);
  return {
    accessToken: access,
    refreshToken: refresh,
    expiresAt: options.nowMs + (Number.isFinite(expiresIn) ? expiresIn : 0) * 1000,
    clientId: options.clientId,
    tokenEndpoint: options.tokenEndpoint,
    scope: typeof data.scope === 'string' ? data.scope : (options.scope ?? 'write'),
    tokenType: typeof data.token_type === 'string' ? data.token_type : (options.tokenType ?? 'Bearer'),
  };
}

/**
 * A short, stable name for the credential in use that reveals nothing: sha256 of the OAuth refresh
 * token (it survives access-token rotation only until the next refresh, as the reference's cache
 * key does) or of the API key, first 12 hex digits.
 */
export function credentialFingerprint(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 12);
}

/** Honcho tokens and keys (`hch-at-…`, `hch-rt-…`, `hch-v3-…`) in text, masked. */
const TOKEN_VALUE = /(?<![\w-])(hch-[a-z0-9]{2}-)[A-Za-z0-9._~+/=-]+/g;
export function redactHonchoTokens(text: string): string {
  return text.replace(TOKEN_VALUE, '$1[redacted]');
}
