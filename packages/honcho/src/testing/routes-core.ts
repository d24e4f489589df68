/** Workspaces, peers, sessions and session membership: the v3 routes the SDK calls to set things up. */
import { type FakeServer, paginate, reply } from '@hermes-memory/testkit/http';
import {
  body,
  checkId,
  ensurePeer,
  FakeAnswer,
  pageQuery,
  peerOf,
  peerResponse,
  sessionOf,
  sessionResponse,
  workspaceOf,
} from './context';
import { compileFilters } from './filters';
import { type FakeHonchoState, type FakePeerConfig, type FakeSession, nextStamp } from './state';

type Route = Parameters<FakeServer<FakeHonchoState>['route']>[2];

/** Turn lookups' thrown answers (404, 422) into responses. */
export function guard(handler: Route): Route {
  return async (req, state) => {
    try {
      return await handler(req, state);
    } catch (error) {
      if (error instanceof FakeAnswer) return error.response;
      throw error;
    }
  };
}

const WS = '/v3/workspaces/:workspace';

function objectField(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function peerConfig(value: unknown): FakePeerConfig {
  const v = objectField(value);
  return {
    observe_me: typeof v.observe_me === 'boolean' ? v.observe_me : null,
    observe_others: typeof v.observe_others === 'boolean' ? v.observe_others : null,
  };
}

/** `{peerId: {observe_me, observe_others}}` into a session, creating peers as Honcho does. */
function addPeers(
  state: FakeHonchoState,
  workspaceId: string,
  session: FakeSession,
  peers: unknown,
  replace: boolean,
) {
  const workspace = state.workspaces[workspaceId]!;
  if (replace) session.peers = {};
  for (const [id, config] of Object.entries(objectField(peers))) {
    checkId(id, ['body', id]);
    ensurePeer(state, workspace, id);
    const incoming = peerConfig(config);
    const current = session.peers[id];
    session.peers[id] = {
      observe_me: incoming.observe_me ?? current?.observe_me ?? null,
      observe_others: incoming.observe_others ?? current?.observe_others ?? null,
    };
  }
}

export function registerCoreRoutes(server: FakeServer<FakeHonchoState>): void {
  server.route(
    'POST',
    '/v3/workspaces',
    guard((req, state) => {
      const b = body(req);
      const id = checkId(b.id, ['body', 'id']);
      let workspace = state.workspaces[id];
      if (!workspace) {
        const stamp = nextStamp(state, 'ws');
        workspace = {
          id,
          metadata: objectField(b.metadata),
          configuration: objectField(b.configuration),
          created_at: stamp.createdAt,
          peers: {},
          sessions: {},
          messages: [],
          conclusions: [],
        };
        state.workspaces[id] = workspace;
      }
      const { id: wid, metadata, configuration, created_at } = workspace;
      return reply.json({ id: wid, metadata, configuration, created_at });
    }),
  );
  server.route(
    'POST',
    '/v3/workspaces/list',
    guard((req, state) => {
      const { page, size } = pageQuery(req);
      const items = Object.values(state.workspaces).map(({ id, metadata, configuration, created_at }) => ({
        id,
        metadata,
        configuration,
        created_at,
      }));
      return reply.json(paginate(items, page, size));
    }),
  );
  server.route(
    'PUT',
    WS,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const b = body(req);
      if (b.metadata !== undefined) workspace.metadata = objectField(b.metadata);
      if (b.configuration !== undefined) workspace.configuration = objectField(b.configuration);
      const { id, metadata, configuration, created_at } = workspace;
      return reply.json({ id, metadata, configuration, created_at });
    }),
  );
  server.route(
    'DELETE',
    WS,
    guard((req, state) => {
      workspaceOf(state, req);
      delete state.workspaces[req.params.workspace!];
      return reply.empty(204);
    }),
  );

  // peers
  server.route(
    'POST',
    `${WS}/peers`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const b = body(req);
      const peer = ensurePeer(state, workspace, checkId(b.id, ['body', 'id']));
      if (b.metadata !== undefined && b.metadata !== null) peer.metadata = objectField(b.metadata);
      if (b.configuration !== undefined && b.configuration !== null)
        peer.configuration = objectField(b.configuration);
      return reply.json(peerResponse(peer));
    }),
  );
  server.route(
    'POST',
    `${WS}/peers/list`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const { page, size } = pageQuery(req);
      const peers = Object.values(workspace.peers)
        .map(peerResponse)
        .filter(compileFilters(body(req).filters));
      return reply.json(paginate(peers, page, size));
    }),
  );
  server.route(
    'PUT',
    `${WS}/peers/:peer`,
    guard((req, state) => {
      const peer = peerOf(workspaceOf(state, req), req.params.peer);
      const b = body(req);
      if (b.metadata !== undefined) peer.metadata = objectField(b.metadata);
      if (b.configuration !== undefined) peer.configuration = objectField(b.configuration);
      return reply.json(peerResponse(peer));
    }),
  );
  server.route(
    'POST',
    `${WS}/peers/:peer/sessions`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const peer = peerOf(workspace, req.params.peer);
      const { page, size } = pageQuery(req);
      const sessions = Object.values(workspace.sessions)
        .filter((s) => peer.id in s.peers)
        .map(sessionResponse);
      return reply.json(paginate(sessions, page, size));
    }),
  );

  // sessions
  server.route(
    'POST',
    `${WS}/sessions`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const b = body(req);
      // Honcho refuses session ids over 100 characters.
      const id = checkId(b.id, ['body', 'id'], 100);
      let session = workspace.sessions[id];
      if (!session) {
        const stamp = nextStamp(state, 'sess');
        session = {
          id,
          workspace_id: workspace.id,
          is_active: true,
          metadata: objectField(b.metadata),
          configuration: objectField(b.configuration),
          created_at: stamp.createdAt,
          peers: {},
          summary: null,
        };
        workspace.sessions[id] = session;
      }
      if (b.peers !== undefined && b.peers !== null) addPeers(state, workspace.id, session, b.peers, false);
      return reply.json(sessionResponse(session));
    }),
  );
  server.route(
    'POST',
    `${WS}/sessions/list`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const { page, size, reverse } = pageQuery(req);
      const sessions = Object.values(workspace.sessions)
        .map(sessionResponse)
        .filter(compileFilters(body(req).filters));
      if (reverse) sessions.reverse();
      return reply.json(paginate(sessions, page, size));
    }),
  );
  server.route(
    'PUT',
    `${WS}/sessions/:session`,
    guard((req, state) => {
      const session = sessionOf(workspaceOf(state, req), req.params.session);
      const b = body(req);
      if (b.metadata !== undefined) session.metadata = objectField(b.metadata);
      if (b.configuration !== undefined) session.configuration = objectField(b.configuration);
      return reply.json(sessionResponse(session));
    }),
  );
  server.route(
    'DELETE',
    `${WS}/sessions/:session`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      delete workspace.sessions[session.id];
      workspace.messages = workspace.messages.filter((m) => m.session_id !== session.id);
      return reply.empty(204);
    }),
  );

  // session membership and observation config
  for (const method of ['POST', 'PUT'] as const) {
    server.route(
      method,
      `${WS}/sessions/:session/peers`,
      guard((req, state) => {
        const workspace = workspaceOf(state, req);
        const session = sessionOf(workspace, req.params.session);
        addPeers(state, workspace.id, session, req.body, method === 'PUT');
        return reply.json(sessionResponse(session));
      }),
    );
  }
  server.route(
    'DELETE',
    `${WS}/sessions/:session/peers`,
    guard((req, state) => {
      const session = sessionOf(workspaceOf(state, req), req.params.session);
      for (const id of Array.isArray(req.body) ? req.body : []) delete session.peers[String(id)];
      return reply.json(sessionResponse(session));
    }),
  );
  server.route(
    'GET',
    `${WS}/sessions/:session/peers`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      const peers = Object.keys(session.peers).map((id) => peerResponse(peerOf(workspace, id)));
      return reply.json(paginate(peers, 1, Math.max(1, peers.length)));
    }),
  );
  server.route(
    'GET',
    `${WS}/sessions/:session/peers/:peer/config`,
    guard((req, state) => {
      const session = sessionOf(workspaceOf(state, req), req.params.session);
      const config = session.peers[req.params.peer!];
      if (!config) throw new FakeAnswer(reply.json({ detail: 'Peer not found in session' }, 404));
      return reply.json(config);
    }),
  );
  server.route(
    'PUT',
    `${WS}/sessions/:session/peers/:peer/config`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      const current = session.peers[req.params.peer!];
      if (!current) throw new FakeAnswer(reply.json({ detail: 'Peer not found in session' }, 404));
      const incoming = peerConfig(req.body);
      session.peers[req.params.peer!] = {
        observe_me: incoming.observe_me ?? current.observe_me,
        observe_others: incoming.observe_others ?? current.observe_others,
      };
      return reply.empty(204);
    }),
  );
}
