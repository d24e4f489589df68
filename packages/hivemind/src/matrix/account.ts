import { APICallError, createHttpClient, type HttpClient } from '@hermes-memory/core';
import { matrixMessage } from './client';

/** An account's session, as `/register` and `/login` answer it. */
export interface MatrixSession {
  user_id: string;
  access_token: string;
  device_id?: string;
}

export interface AccountRequest {
  homeserver: string;
  /** A localpart (`hermes-of-bob`) or a full user id (`@hermes-of-bob:example.org`). */
  user: string;
  password: string;
  /** Continuwuity's and Synapse's `registration_token` (UIA stage `m.login.registration_token`). */
  registrationToken?: string;
  /** The device name the homeserver shows for this session. */
  deviceName?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
}

const API = '/_matrix/client/v3';

/**
 * Setup's account step, the reference's flow (`setup_users.py`): register with the two-step
 * user-interactive auth — the first `POST /register` opens a session, the second proves the
 * registration token — and, when the name is taken, log in with the password instead. Never
 * retried (a repeated registration would fail as taken); the password and token are masked in
 * every error.
 */
export async function registerOrLogin(
  request: AccountRequest,
): Promise<MatrixSession & { registered: boolean }> {
  const http = accountClient(request);
  const localpart = request.user.startsWith('@') ? request.user.slice(1).split(':')[0]! : request.user;
  const body = {
    username: localpart,
    password: request.password,
    initial_device_display_name: request.deviceName ?? 'hermes-memory hivemind',
  };
  const opts = request.signal ? { signal: request.signal } : {};
  let session: string | undefined;
  try {
    return { ...sessionOf(await http.post(`${API}/register`, body, opts)), registered: true };
  } catch (error) {
    if (isTaken(error)) return { ...(await login(request, http)), registered: false };
    session = uiaSession(error);
    if (session === undefined) throw error;
  }
  try {
    const auth = { type: 'm.login.registration_token', token: request.registrationToken ?? '', session };
    return { ...sessionOf(await http.post(`${API}/register`, { ...body, auth }, opts)), registered: true };
  } catch (error) {
    if (isTaken(error)) return { ...(await login(request, http)), registered: false };
    throw error;
  }
}

/** `POST /login` with `m.login.password` (a new device and access token for an existing account). */
export async function login(request: AccountRequest, http = accountClient(request)): Promise<MatrixSession> {
  const answer = await http.post(
    `${API}/login`,
    {
      type: 'm.login.password',
      identifier: { type: 'm.id.user', user: request.user },
      password: request.password,
      initial_device_display_name: request.deviceName ?? 'hermes-memory hivemind',
    },
    request.signal ? { signal: request.signal } : {},
  );
  return sessionOf(answer);
}

function accountClient(request: AccountRequest): HttpClient {
  return createHttpClient({
    baseURL: request.homeserver,
    name: 'Matrix homeserver',
    timeoutMs: request.timeoutMs ?? 10_000,
    retry: false,
    secrets: [request.password, ...(request.registrationToken ? [request.registrationToken] : [])],
    errorMessage: matrixMessage,
  });
}

function sessionOf(answer: unknown): MatrixSession {
  const a = answer as Partial<MatrixSession> | undefined;
  if (typeof a?.user_id !== 'string' || typeof a.access_token !== 'string')
    throw new Error('Matrix homeserver: the answer holds no user_id and access_token.');
  return {
    user_id: a.user_id,
    access_token: a.access_token,
    ...(a.device_id ? { device_id: a.device_id } : {}),
  };
}

/** The UIA session of a 401 that asks for more stages (the first registration step). */
function uiaSession(error: unknown): string | undefined {
  if (!(error instanceof APICallError) || error.statusCode !== 401) return undefined;
  const session = (error.data as { session?: unknown } | undefined)?.session;
  return typeof session === 'string' ? session : undefined;
}

function isTaken(error: unknown): boolean {
  return error instanceof APICallError && (error.data as { errcode?: unknown })?.errcode === 'M_USER_IN_USE';
}
