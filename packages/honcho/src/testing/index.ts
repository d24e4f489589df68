/**
 * @hermes-memory/honcho/testing — a protocol-faithful fake of Honcho's v3 HTTP API on loopback,
 * for tests and offline examples. The official `@honcho-ai/sdk` talks to it unchanged: same
 * routes, bodies, pages, error bodies (FastAPI `detail`) and Bearer auth. Where real Honcho runs
 * an LLM (dialectic chat, representations, summaries) the fake answers from what was stored, with
 * a transparent keyword model: deterministic, and nothing is answered that was never written.
 */
import {
  type FakeFault,
  type FakeServer,
  type RecordedRequest,
  startFakeServer,
} from '@hermes-memory/testkit/http';
import { registerCoreRoutes } from './routes-core';
import { registerMessageRoutes } from './routes-messages';
import { type FakeHonchoOAuth, OAUTH_ROUTES, registerOAuthRoutes } from './routes-oauth';
import { registerPeerRoutes } from './routes-peers';
import { emptyState, type FakeHonchoState, type FakeMessage, nextStamp } from './state';

export { MAX_MESSAGE_CHARS } from './routes-messages';
export type { FakeHonchoOAuth } from './routes-oauth';
export type {
  FakeConclusion,
  FakeHonchoState,
  FakeMessage,
  FakePeer,
  FakeSession,
  FakeWorkspace,
} from './state';

export interface FakeHonchoOptions {
  /**
   * The key the server accepts as `Authorization: Bearer <key>`, next to the access tokens its
   * OAuth server issued. Default: no auth (a local server).
   */
  apiKey?: string;
  /** Require a live OAuth access token on every API request even without `apiKey` (a cloud account signed in over OAuth). */
  requireAuth?: boolean;
  /** Decide a fault per request (the bench's fault runs). */
  faultFor?: (request: RecordedRequest, index: number) => FakeFault | null;
}

export interface FakeHoncho extends FakeServer<FakeHonchoState> {
  /** Messages stored in a session (oldest first). */
  messages(workspace: string, session: string): FakeMessage[];
  /** Give a session the summary Honcho's deriver would write in the background. */
  setSummary(workspace: string, session: string, content: string): void;
  /**
   * Hold message writes (`POST …/sessions/:session/messages`) before they are stored, until the
   * returned function is called: a slow Honcho at a moment of the test's choosing.
   */
  holdWrites(): () => void;
  /** Message writes waiting on a hold right now. */
  heldWrites(): number;
  /** The authorization server (`/authorize`, `/oauth/token`, `/oauth/device_authorization`). */
  oauth: FakeHonchoOAuth;
}

/** Start the fake on 127.0.0.1 and a free port. Close it with `close()`. */
export async function startFakeHoncho(options: FakeHonchoOptions = {}): Promise<FakeHoncho> {
  let oauth: FakeHonchoOAuth | undefined;
  const server = await startFakeServer<FakeHonchoState>({
    name: 'fake Honcho',
    ...(options.apiKey ? { auth: { type: 'bearer', token: options.apiKey } } : {}),
    ...(options.apiKey || options.requireAuth
      ? { authorize: (headers) => oauth?.authorizes(headers) === true }
      : {}),
    publicRoutes: OAUTH_ROUTES,
    errorBody: (_status, message) => ({ detail: message }),
    state: emptyState,
    ...(options.faultFor ? { faultFor: options.faultFor } : {}),
  });
  registerCoreRoutes(server);
  const writes = registerMessageRoutes(server);
  registerPeerRoutes(server);
  oauth = registerOAuthRoutes(server);
  const fake = server as FakeHoncho;
  fake.oauth = oauth;
  fake.holdWrites = () => writes.hold();
  fake.heldWrites = () => writes.held();
  fake.messages = (workspace, session) =>
    (server.state.workspaces[workspace]?.messages ?? []).filter((m) => m.session_id === session);
  fake.setSummary = (workspace, session, content) => {
    const found = server.state.workspaces[workspace]?.sessions[session];
    if (!found) throw new Error(`fake Honcho: no session ${workspace}/${session}`);
    const stamp = nextStamp(server.state, 'sum');
    found.summary = {
      content,
      message_id: stamp.id,
      summary_type: 'short',
      created_at: stamp.createdAt,
      token_count: Math.ceil(content.length / 4),
    };
  };
  return fake;
}
