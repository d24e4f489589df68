/**
 * Honcho's OAuth 2.1 authorization server, as the reference's flows see it: RFC 8414 metadata,
 * `/authorize` (the dashboard's consent, answered at once with a redirect), `/oauth/token` with
 * the authorization_code (PKCE S256), device_code (RFC 8628) and refresh_token grants, and
 * `/oauth/device_authorization`. Tokens are opaque `hch-at-` / `hch-rt-`; refresh tokens rotate
 * and are single-use — replaying a superseded one revokes the whole grant, as the real server
 * does. Every token, code and verifier is redacted from the recordings once issued or seen.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type FakeRequest, type FakeServer, reply } from '@hermes-memory/testkit/http';
import type { FakeHonchoState } from './state';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The authorization server's routes need no bearer. */
export const OAUTH_ROUTES = [
  'GET /.well-known/oauth-authorization-server',
  'GET /authorize',
  'POST /oauth/device_authorization',
  'POST /oauth/token',
];

/** What a test steers and inspects on the fake's authorization server. */
export interface FakeHonchoOAuth {
  /** Lifetime of new access tokens, seconds (default 3600). */
  expiresIn: number;
  /** What the consent screen answers at `/authorize` (default 'approve'). */
  consent: 'approve' | 'deny';
  /** Approve device codes as soon as they are polled (default false: pending until `approveDevice`). */
  autoApprove: boolean;
  /** Answers for the next device-token polls, in order (`slow_down`, `authorization_pending`, `access_denied`). */
  devicePollAnswers: string[];
  /** Settings a grant carries (`config` of the token response), as the dashboard's consent adds them. */
  grantConfig: Record<string, unknown> | undefined;
  /** Approve the pending device code with this user code (default: the latest). */
  approveDevice(userCode?: string): void;
  /** Make every access token issued so far invalid (401), as their server-side expiry would. */
  expireAccessTokens(): void;
  /** Access tokens the API accepts now. */
  readonly liveAccessTokens: number;
  /** Refresh-token grants answered successfully. */
  readonly refreshes: number;
  /** Grants revoked because a superseded refresh token was replayed. */
  readonly revokedGrants: number;
  /** True when `headers` carry a live access token (the API's auth check). */
  authorizes(headers: Readonly<Record<string, string | string[] | undefined>>): boolean;
}

interface Grant {
  id: number;
  revoked: boolean;
  refreshToken: string;
  /** Refresh tokens this grant already rotated away from. */
  spent: Set<string>;
  scope: string;
}

interface DeviceCode {
  deviceCode: string;
  userCode: string;
  clientId: string;
  scope: string;
  approved: boolean;
}

const token = (prefix: string) => `${prefix}${randomBytes(18).toString('base64url')}`;

function form(req: FakeRequest): URLSearchParams {
  return new URLSearchParams(typeof req.rawBody === 'string' ? req.rawBody : '');
}

const oauthError = (error: string, description: string, status = 400) =>
  reply.json({ error, error_description: description }, status);

export function registerOAuthRoutes(server: FakeServer<FakeHonchoState>): FakeHonchoOAuth {
  const access = new Map<string, Grant>();
  const grantsByRefresh = new Map<string, Grant>();
  const codes = new Map<
    string,
    { clientId: string; redirectUri: string; challenge: string; scope: string }
  >();
  const devices = new Map<string, DeviceCode>();
  let grants = 0;
  let refreshes = 0;
  let revoked = 0;

  const mint = (grant: Grant, includeConfig: boolean) => {
    const accessToken = token('hch-at-');
    const refreshToken = token('hch-rt-');
    server.redact(accessToken, refreshToken);
    access.set(accessToken, grant);
    grant.refreshToken = refreshToken;
    grantsByRefresh.set(refreshToken, grant);
    return reply.json({
      access_token: accessToken,
      refresh_token: refreshToken,
      token_type: 'Bearer',
      expires_in: oauth.expiresIn,
      scope: grant.scope,
      ...(includeConfig && oauth.grantConfig ? { config: oauth.grantConfig } : {}),
    });
  };
  const newGrant = (scope: string): Grant => ({
    id: ++grants,
    revoked: false,
    refreshToken: '',
    spent: new Set(),
    scope,
  });

  const oauth: FakeHonchoOAuth = {
    expiresIn: 3600,
    consent: 'approve',
    autoApprove: false,
    devicePollAnswers: [],
    grantConfig: undefined,
    approveDevice(userCode) {
      const pending = [...devices.values()].filter((d) => userCode === undefined || d.userCode === userCode);
      const device = pending.at(-1);
      if (!device) throw new Error(`fake Honcho: no device code ${userCode ?? ''} to approve`);
      device.approved = true;
    },
    expireAccessTokens() {
      access.clear();
    },
    get liveAccessTokens() {
      return access.size;
    },
    get refreshes() {
      return refreshes;
    },
    get revokedGrants() {
      return revoked;
    },
    authorizes(headers) {
      const value = String(headers.authorization ?? '');
      const grant = value.startsWith('Bearer ') ? access.get(value.slice(7)) : undefined;
      return grant !== undefined && !grant.revoked;
    },
  };

  server.route('GET', '/.well-known/oauth-authorization-server', () =>
    reply.json({
      issuer: server.url,
      authorization_endpoint: `${server.url}/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      device_authorization_endpoint: `${server.url}/oauth/device_authorization`,
      grant_types_supported: ['authorization_code', 'refresh_token', DEVICE_GRANT],
      code_challenge_methods_supported: ['S256'],
    }),
  );

  // The dashboard's consent page, decided at once: a redirect back with a code (or an error).
  server.route('GET', '/authorize', (req) => {
    const q = req.query;
    const redirect = q.get('redirect_uri') ?? '';
    const state = q.get('state') ?? '';
    let target: URL;
    try {
      target = new URL(redirect);
    } catch {
      return oauthError('invalid_request', 'redirect_uri is not a URL');
    }
    // RFC 8252 §7.3: loopback redirects are IP literals, any port.
    if (target.protocol !== 'http:' || target.hostname !== '127.0.0.1')
      return oauthError('invalid_request', 'redirect_uri must be an http://127.0.0.1 loopback URI');
    if (
      q.get('response_type') !== 'code' ||
      q.get('code_challenge_method') !== 'S256' ||
      !q.get('code_challenge')
    )
      return oauthError('invalid_request', 'PKCE S256 and response_type=code are required');
    if (oauth.consent === 'deny') {
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'the user denied the request');
    } else {
      const code = token('code-');
      server.redact(code);
      codes.set(code, {
        clientId: q.get('client_id') ?? '',
        redirectUri: redirect,
        challenge: q.get('code_challenge') ?? '',
        scope: q.get('scope') ?? 'write',
      });
      target.searchParams.set('code', code);
    }
    target.searchParams.set('state', state);
    return reply.empty(302, { location: target.toString() });
  });

  server.route('POST', '/oauth/device_authorization', (req) => {
    const f = form(req);
    const clientId = f.get('client_id');
    if (!clientId) return oauthError('invalid_client', 'client_id is required');
    const deviceCode = token('dev-');
    server.redact(deviceCode);
    const userCode = `${randomBytes(2).toString('hex').toUpperCase()}-${randomBytes(2).toString('hex').toUpperCase()}`;
    devices.set(deviceCode, {
      deviceCode,
      userCode,
      clientId,
      scope: f.get('scope') ?? 'write',
      approved: false,
    });
    return reply.json({
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: `${server.url}/device`,
      verification_uri_complete: `${server.url}/device?user_code=${userCode}`,
      expires_in: 600,
      interval: 5,
    });
  });

  server.route('POST', '/oauth/token', (req) => {
    const f = form(req);
    const clientId = f.get('client_id');
    if (!clientId) return oauthError('invalid_client', 'client_id is required', 401);
    switch (f.get('grant_type')) {
      case 'authorization_code': {
        const code = f.get('code') ?? '';
        const verifier = f.get('code_verifier') ?? '';
        server.redact(verifier);
        const issued = codes.get(code);
        codes.delete(code); // single use
        if (!issued || issued.clientId !== clientId || issued.redirectUri !== f.get('redirect_uri'))
          return oauthError('invalid_grant', 'unknown, used or mismatched authorization code');
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (challenge !== issued.challenge) return oauthError('invalid_grant', 'PKCE verification failed');
        return mint(newGrant(issued.scope), true);
      }
      case DEVICE_GRANT: {
        const device = devices.get(f.get('device_code') ?? '');
        if (!device || device.clientId !== clientId)
          return oauthError('invalid_grant', 'unknown device code');
        const scripted = oauth.devicePollAnswers.shift();
        if (scripted && scripted !== 'ok') return oauthError(scripted, `scripted ${scripted}`);
        if (!device.approved && !oauth.autoApprove && scripted !== 'ok')
          return oauthError('authorization_pending', 'waiting for the user');
        devices.delete(device.deviceCode);
        return mint(newGrant(device.scope), true);
      }
      case 'refresh_token': {
        const presented = f.get('refresh_token') ?? '';
        const grant = grantsByRefresh.get(presented);
        if (!grant || grant.revoked) return oauthError('invalid_grant', 'unknown or revoked refresh token');
        if (grant.spent.has(presented) || grant.refreshToken !== presented) {
          // Reuse of a rotated refresh token: the whole grant is revoked.
          grant.revoked = true;
          revoked += 1;
          for (const [t, g] of access) if (g === grant) access.delete(t);
          return oauthError('invalid_grant', 'refresh token reuse detected; the grant is revoked');
        }
        grant.spent.add(presented);
        for (const [t, g] of access) if (g === grant) access.delete(t);
        refreshes += 1;
        return mint(grant, false);
      }
      default:
        return oauthError(
          'unsupported_grant_type',
          `grant_type ${f.get('grant_type') ?? ''} is not supported`,
        );
    }
  });
  return oauth;
}
