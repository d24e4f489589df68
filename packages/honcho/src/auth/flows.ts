/**
 * Signing in to Honcho, the two ways the reference offers:
 * - the device flow (RFC 8628), the default: show a code, the user approves it in any browser
 *   (another machine too), we poll the token endpoint at the server's pace;
 * - the browser flow (RFC 8252 authorization code + PKCE S256): a one-shot loopback listener on
 *   127.0.0.1 and a port the OS picks receives the redirect; the `state` ties it to this request.
 * Both end in `installGrant`, which writes the tokens to honcho.json's host block.
 */
import { createHash, randomBytes } from 'node:crypto';
import { type Clock, listenForLoopbackCallback, sleep, systemClock } from '@hermes-memory/core';
import { isObject, type JsonObject } from '../config/values';
import { credentialFromTokenResponse, type OAuthCredential } from './credential';
import type { OAuthEndpoints } from './endpoints';
import { storeCredential } from './store';
import { OAuthError, oauthErrorOf, postForm } from './token-endpoint';

export const DEVICE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';
/** RFC 8628 §3.5: `slow_down` adds 5 s; the server caps its interval at 60 s. */
const SLOW_DOWN_STEP_S = 5;
const MAX_INTERVAL_S = 60;
/** How long the browser flow waits for the redirect. */
export const BROWSER_TIMEOUT_MS = 300_000;

export interface FlowOptions {
  clock?: Clock;
  signal?: AbortSignal;
  /** Tags the request with the surface that started it (`hermes-cli`), for the consent screen. */
  source?: string;
}

// ---- device flow -------------------------------------------------------------------------------

export interface DeviceCode {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  /** Seconds. */
  expiresIn: number;
  /** Seconds between polls. */
  interval: number;
}

export async function requestDeviceCode(
  endpoints: OAuthEndpoints,
  options: FlowOptions = {},
): Promise<DeviceCode> {
  const form: Record<string, string> = { client_id: endpoints.clientId, scope: endpoints.scope };
  if (options.source) form.source = options.source;
  const { status, body } = await postForm(endpoints.deviceAuthorizationUrl, form, options);
  if (status !== 200) throw oauthErrorOf(endpoints.deviceAuthorizationUrl, status, body);
  const { device_code, user_code, verification_uri } = body;
  const expiresIn = Number(body.expires_in);
  if (
    typeof device_code !== 'string' ||
    typeof user_code !== 'string' ||
    typeof verification_uri !== 'string' ||
    !Number.isFinite(expiresIn)
  )
    throw new OAuthError(
      'Honcho OAuth: the device authorization answer is malformed',
      'invalid_response',
      false,
    );
  const interval = Number(body.interval ?? 5);
  return {
    deviceCode: device_code,
    userCode: user_code,
    verificationUri: verification_uri,
    verificationUriComplete:
      typeof body.verification_uri_complete === 'string'
        ? body.verification_uri_complete
        : `${verification_uri}?user_code=${encodeURIComponent(user_code)}`,
    expiresIn,
    interval: Number.isFinite(interval) ? interval : 5,
  };
}

/**
 * Poll until the user decides: the grant's token response, or an `OAuthError` (`access_denied`,
 * `expired_token`). Waits `interval` before each poll on `clock`, longer after `slow_down`; a
 * network blip mid-poll is retried at the next interval.
 */
export async function pollDeviceToken(
  endpoints: OAuthEndpoints,
  device: DeviceCode,
  options: FlowOptions & { onPoll?: () => void } = {},
): Promise<JsonObject> {
  const clock = options.clock ?? systemClock;
  const form = {
    grant_type: DEVICE_GRANT_TYPE,
    device_code: device.deviceCode,
    client_id: endpoints.clientId,
  };
  let interval = Math.max(1, Math.min(device.interval, MAX_INTERVAL_S));
  const deadline = clock.now() + Math.max(1, device.expiresIn) * 1000;
  while (true) {
    if (clock.now() + interval * 1000 >= deadline)
      throw new OAuthError('Honcho OAuth: the code expired before it was approved', 'expired_token', false);
    await sleep(interval * 1000, { clock, ...(options.signal ? { signal: options.signal } : {}) });
    options.onPoll?.();
    let answer: { status: number; body: JsonObject };
    try {
      answer = await postForm(endpoints.tokenUrl, form, { ...options, secrets: [device.deviceCode] });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      continue;
    }
    const { status, body } = answer;
    if (status === 200) return body;
    const code = typeof body.error === 'string' ? body.error : `http_${status}`;
    if (code === 'slow_down') interval = Math.min(interval + SLOW_DOWN_STEP_S, MAX_INTERVAL_S);
    else if (code !== 'authorization_pending') throw oauthErrorOf(endpoints.tokenUrl, status, body);
  }
}

// ---- browser flow ------------------------------------------------------------------------------

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

export interface BrowserSignIn {
  /** Open this in the user's browser (it is also safe to print: it holds no secret). */
  authorizeUrl: string;
  redirectUri: string;
  /** The token response once the redirect came back and the code was exchanged. */
  result: Promise<JsonObject>;
  /** Stop listening (idempotent); `result` rejects if it had not settled. */
  close(): void;
}

/**
 * Start the browser flow: listen on 127.0.0.1 (port 0: the OS picks one; the server accepts any
 * port for loopback redirects) before anything is opened, so a fast redirect cannot miss it.
 */
export async function startBrowserSignIn(
  endpoints: OAuthEndpoints,
  options: FlowOptions & { timeoutMs?: number; configPathLabel?: string } = {},
): Promise<BrowserSignIn> {
  const verifier = base64url(randomBytes(48));
  const challenge = base64url(createHash('sha256').update(verifier).digest());
  const state = base64url(randomBytes(24));
  const callback = await listenForLoopbackCallback({
    state,
    label: 'Honcho OAuth',
    strayPage: { title: 'Honcho sign-in', text: 'This sign-in link is not the one Hermes is waiting for.' },
    respond(params) {
      const error = params.get('error');
      if (!error && params.get('code'))
        return {
          title: 'Honcho connected',
          text: 'Connected to Honcho. You can close this tab and return to Hermes.',
        };
      const description = params.get('error_description');
      return {
        title: 'Honcho sign-in failed',
        text: `Sign-in was not completed (${error ?? 'no code'}). You can close this tab.`,
        error: new OAuthError(
          `Honcho OAuth: authorization denied: ${error ?? 'no code'}${description ? ` (${description})` : ''}`,
          error ?? 'invalid_response',
          false,
        ),
      };
    },
    timeoutMs: options.timeoutMs ?? BROWSER_TIMEOUT_MS,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const { redirectUri } = callback;

  const params = new URLSearchParams({
    client_id: endpoints.clientId,
    redirect_uri: redirectUri,
    scope: endpoints.scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    response_type: 'code',
    state,
  });
  if (options.source) params.set('source', options.source);
  if (options.configPathLabel) params.set('config_path', options.configPathLabel);

  const result = callback.result
    .then(async (query) => {
      const code = query.get('code') ?? '';
      const { status, body } = await postForm(
        endpoints.tokenUrl,
        {
          grant_type: 'authorization_code',
          client_id: endpoints.clientId,
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        },
        options,
      );
      if (status !== 200) throw oauthErrorOf(endpoints.tokenUrl, status, body, [code, verifier]);
      return body;
    })
    .finally(callback.close);
  // Awaited by the caller once the browser is open; a denial may arrive before that.
  result.catch(() => undefined);
  return { authorizeUrl: `${endpoints.authorizeUrl}?${params}`, redirectUri, result, close: callback.close };
}

// ---- installing a grant ------------------------------------------------------------------------

/**
 * Write a fresh grant into `host`'s block of `file`. `applyConfig` deep-merges the settings the
 * grant carries (`config`) into the file; the CLI stores the tokens only, but takes the peer name
 * given at consent when none is set.
 */
export function installGrant(
  file: string,
  host: string,
  grant: JsonObject,
  endpoints: OAuthEndpoints,
  options: { nowMs: number; applyConfig?: boolean },
): OAuthCredential {
  const credential = credentialFromTokenResponse(grant, {
    nowMs: options.nowMs,
    clientId: endpoints.clientId,
    tokenEndpoint: endpoints.tokenUrl,
    scope: endpoints.scope,
  });
  const config = isObject(grant.config) ? grant.config : undefined;
  const peerName = typeof config?.peerName === 'string' ? config.peerName : undefined;
  storeCredential(file, host, credential, {
    ...(options.applyConfig && config ? { config } : {}),
    ...(peerName ? { peerName } : {}),
  });
  return credential;
}
