/**
 * Where Honcho's authorization server lives. The dashboard serves `/authorize`, the API serves
 * `/oauth/token` and `/oauth/device_authorization` — two origins. Zero-config by default (cloud,
 * or local for `environment: local`), a self-hosted base URL carries the token endpoint, and the
 * `HONCHO_OAUTH_*` variables override every field, as in the reference.
 */
import type { Env } from '@hermes-memory/core';
import { normalizeBaseUrl } from '../client/honcho-client';

export const DEFAULT_CLIENT_ID = 'hermes-agent';
export const DEFAULT_SCOPE = 'write';
const CLOUD_DASHBOARD = 'https://app.honcho.dev';
const CLOUD_API = 'https://api.honcho.dev';
const LOCAL_DASHBOARD = 'http://localhost:3000';
const LOCAL_API = 'http://localhost:8000';

export interface OAuthEndpoints {
  authorizeUrl: string;
  tokenUrl: string;
  deviceAuthorizationUrl: string;
  clientId: string;
  scope: string;
}

function isLoopback(url: string | undefined): boolean {
  return Boolean(url && /(localhost|127\.0\.0\.1|\[::1\])/.test(url));
}

export function resolveOAuthEndpoints(options: {
  env: Env;
  environment?: string | undefined;
  baseUrl?: string | undefined;
}): OAuthEndpoints {
  const { env } = options;
  const local = (options.environment ?? '').toLowerCase() === 'local' || isLoopback(options.baseUrl);
  // A configured base URL (self-hosted, or a local server on another port) carries the token
  // endpoint; without one, the environment's API host does.
  const api = options.baseUrl ? normalizeBaseUrl(options.baseUrl) : local ? LOCAL_API : CLOUD_API;
  const pick = (name: string, fallback: string) => env[name]?.trim() || fallback;
  const dashboard = pick('HONCHO_OAUTH_DASHBOARD', local ? LOCAL_DASHBOARD : CLOUD_DASHBOARD).replace(
    /\/+$/,
    '',
  );
  const tokenUrl = pick('HONCHO_OAUTH_TOKEN_URL', `${api}/oauth/token`);
  return {
    authorizeUrl: pick('HONCHO_OAUTH_AUTHORIZE_URL', `${dashboard}/authorize`),
    tokenUrl,
    // Rides the token endpoint's origin and path.
    deviceAuthorizationUrl: pick(
      'HONCHO_OAUTH_DEVICE_AUTH_URL',
      `${tokenUrl.slice(0, tokenUrl.lastIndexOf('/'))}/device_authorization`,
    ),
    clientId: pick('HONCHO_OAUTH_CLIENT_ID', DEFAULT_CLIENT_ID),
    scope: pick('HONCHO_OAUTH_SCOPE', DEFAULT_SCOPE),
  };
}
