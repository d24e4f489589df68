import {
  type FakeRequest,
  type FakeResponse,
  type FakeServer,
  type FakeServerOptions,
  reply,
  startFakeServer,
} from '@hermes-memory/testkit/http';
import {
  type CreateRoomRequest,
  type InvitedRoomSync,
  isRoomId,
  isUserId,
  type JoinedRoomSync,
  type LeftRoomSync,
  type MatrixEvent,
  type Membership,
  type SyncResponse,
} from '../matrix/types';
import {
  appendEvent,
  currentState,
  eventFor,
  type FakeHomeserverState,
  type FakeMatrixRoom,
  membershipOf,
  membershipPos,
  newHomeserverState,
  opaqueId,
  powerOf,
  requiredPower,
  strippedState,
  visibleUpTo,
} from './homeserver-state';

export interface FakeHomeserverOptions {
  /** The server name in user and room ids. Default `localhost`. */
  serverName?: string;
  /** The token two-step registration asks for (Continuwuity's `registration_token`). Default `agent-dev`. */
  registrationToken?: string;
  /** The clock for `origin_server_ts` (tests pass a fixed one). Default `Date.now`. */
  now?: () => number;
  /** Passed to `startFakeServer` (faults per request, a name). */
  server?: Pick<FakeServerOptions<FakeHomeserverState>, 'faultFor' | 'name'>;
}

export interface FakeMatrixAccount {
  userId: string;
  accessToken: string;
  deviceId: string;
}

export interface FakeHomeserver extends FakeServer<FakeHomeserverState> {
  readonly serverName: string;
  readonly registrationToken: string;
  /** Create an account directly (test setup; the `/register` route does the same over HTTP). */
  registerUser(localpart: string, password?: string): FakeMatrixAccount;
}

export const FAKE_REGISTRATION_TOKEN = 'agent-dev';
const API = '/_matrix/client/v3';
/** Sync timelines carry at most this many events per room (then `limited`). */
const TIMELINE_LIMIT = 20;
const MAX_LONG_POLL_MS = 30_000;

/** Matrix error codes for the statuses the base server answers by itself. */
function errcodeFor(status: number): string {
  if (status === 401) return 'M_UNKNOWN_TOKEN';
  if (status === 404) return 'M_UNRECOGNIZED';
  if (status === 413) return 'M_TOO_LARGE';
  if (status === 429) return 'M_LIMIT_EXCEEDED';
  return 'M_UNKNOWN';
}

const fail = (status: number, errcode: string, error: string): FakeResponse =>
  reply.json({ errcode, error }, status);
const forbidden = (error: string) => fail(403, 'M_FORBIDDEN', error);

/**
 * A protocol-faithful fake Matrix homeserver: the client-server API (v3) subset the hivemind
 * backend uses, with the same paths, bodies, `{errcode, error}` envelopes and membership rules as
 * Synapse or Continuwuity, on 127.0.0.1 with a port of its own. No homeserver can be installed on
 * this machine (sdks.md §2), so this is what the tests, the example and the bench run against.
 *
 * - `GET /_matrix/client/versions`; `POST /register` (two-step UIAA with a registration token),
 *   `POST /login` (`m.login.password`), `GET /account/whoami`
 * - `GET /sync?since=&timeout=` → `next_batch`, `rooms.join` (state + timeline, and on a full
 *   sync the room's account data), `rooms.invite` (stripped `invite_state`), `rooms.leave`;
 *   long-polls up to `timeout` when nothing is new
 * - `POST /createRoom` (preset, name, topic, `invite`, `initial_state`), `POST /join/{room}` and
 *   `/rooms/{room}/join` (a JSON body is required, as Conduit does), `/leave`, `/invite`, `/kick`,
 *   `/ban`; invite-only rooms refuse a join without an invite, bans refuse join and invite
 * - `GET /rooms/{room}/state[/{type}[/{key}]]`, `PUT /rooms/{room}/state/{type}[/{key}]`,
 *   `GET /rooms/{room}/members`, `GET /rooms/{room}/messages?dir=b|f&from=&limit=`
 * - `PUT /rooms/{room}/send/{type}/{txnId}` — idempotent per access token and transaction id;
 *   only joined members may send
 * - `PUT|GET /user/{user}/account_data/{type}` and `/user/{user}/rooms/{room}/account_data/{type}`
 *   (only for oneself; an unset type is 404 `M_NOT_FOUND`)
 *
 * History visibility is `shared`: a member sees the room's whole history, a former member sees it
 * up to leaving, an invitee sees only the invite. The server does not encrypt: an
 * `m.room.encrypted` event is stored and relayed as sent (what a client without keys receives).
 */
export async function startFakeHomeserver(options: FakeHomeserverOptions = {}): Promise<FakeHomeserver> {
  const serverName = options.serverName ?? 'localhost';
  const registrationToken = options.registrationToken ?? FAKE_REGISTRATION_TOKEN;
  const now = options.now ?? Date.now;
  const server = await startFakeServer<FakeHomeserverState>({
    name: 'fake Matrix homeserver',
    ...options.server,
    secrets: [registrationToken],
    errorBody: (status, message) => ({ errcode: errcodeFor(status), error: message }),
    state: () => newHomeserverState(serverName),
  });
  /** Long-polling syncs waiting for the next event. */
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of [...waiters]) w();
  };

  const createAccount = (state: FakeHomeserverState, localpart: string, password: string) => {
    const userId = `@${localpart}:${state.serverName}`;
    state.users[userId] = { userId, password, accountData: {}, roomAccountData: {} };
    return login(state, userId);
  };
  const login = (state: FakeHomeserverState, userId: string): FakeMatrixAccount => {
    const deviceId = opaqueId(state, 'DEV').toUpperCase();
    const accessToken = `syt_${opaqueId(state, '')}_${opaqueId(state, 'tok')}`;
    state.tokens[accessToken] = { userId, deviceId };
    return { userId, accessToken, deviceId };
  };

  /** The authenticated user, or the 401 a real server answers. */
  const whoIs = (
    req: FakeRequest,
    state: FakeHomeserverState,
  ): { userId: string; token: string } | FakeResponse => {
    const header = req.headers.authorization;
    const token =
      typeof header === 'string' && /^Bearer\s+/i.test(header)
        ? header.replace(/^Bearer\s+/i, '').trim()
        : req.query.get('access_token');
    if (!token) return fail(401, 'M_MISSING_TOKEN', 'Missing access token.');
    const session = state.tokens[token];
    if (!session)
      return reply.json(
        { errcode: 'M_UNKNOWN_TOKEN', error: 'Unknown access token.', soft_logout: false },
        401,
      );
    return { userId: session.userId, token };
  };

  /** Register an authenticated route: the handler receives the caller's user id. */
  const authed = (
    method: string,
    path: string,
    handler: (
      req: FakeRequest,
      state: FakeHomeserverState,
      me: { userId: string; token: string },
    ) => FakeResponse | Promise<FakeResponse>,
  ) =>
    server.route(method, `${API}${path}`, (req, state) => {
      const me = whoIs(req, state);
      if ('kind' in me) return me;
      return handler(req, state, me);
    });

  /** The JSON object body; an empty or non-object body is refused, as Conduit does. */
  const jsonBody = (req: FakeRequest): { body: Record<string, unknown> } | { refused: FakeResponse } => {
    const body = req.body;
    if (req.rawBody.trim() === '' || typeof body !== 'object' || body === null || Array.isArray(body))
      return { refused: fail(400, 'M_NOT_JSON', 'Content not JSON.') };
    return { body: body as Record<string, unknown> };
  };

  const roomOf = (state: FakeHomeserverState, roomId: string): FakeMatrixRoom | FakeResponse => {
    if (!isRoomId(roomId)) return fail(400, 'M_INVALID_PARAM', `'${roomId}' is not a valid room id.`);
    const room = state.rooms[roomId];
    return room ?? forbidden(`You are not in room ${roomId}.`);
  };

  const setMembership = (
    state: FakeHomeserverState,
    room: FakeMatrixRoom,
    sender: string,
    target: string,
    membership: Membership,
    reason?: string,
  ) => {
    appendEvent(
      state,
      room,
      {
        type: 'm.room.member',
        sender,
        state_key: target,
        content: { membership, ...(reason ? { reason } : {}) },
      },
      now(),
    );
    wake();
  };

  server.route('GET', '/_matrix/client/versions', () =>
    reply.json({
      versions: ['v1.1', 'v1.2', 'v1.3', 'v1.4', 'v1.5', 'v1.6', 'v1.7', 'v1.8'],
      unstable_features: {},
    }),
  );

  server.route('GET', `${API}/login`, () => reply.json({ flows: [{ type: 'm.login.password' }] }));

  /**
   * A password and a registration token — the right one or a mistyped one (a user's token for
   * another server) — are secrets: neither is kept in the recording of the request.
   */
  const redactCredentials = (req: FakeRequest) => {
    const body = req.body as { password?: unknown; auth?: unknown } | undefined;
    const auth = body?.auth as { token?: unknown } | undefined;
    const redacted: Record<string, unknown> = { ...(req.recorded.body as object) };
    let raw = req.recorded.rawBody;
    const hide = (secret: unknown) => {
      if (typeof secret !== 'string' || secret === '') return false;
      raw = raw.split(JSON.stringify(secret).slice(1, -1)).join('[redacted]');
      return true;
    };
    const password = hide(body?.password);
    const token = auth !== null && typeof auth === 'object' && hide(auth.token);
    if (!password && !token) return;
    if (password) redacted.password = '[redacted]';
    if (token) redacted.auth = { ...auth, token: '[redacted]' };
    req.recorded.body = redacted;
    req.recorded.rawBody = raw;
  };

  // Continuwuity's registration: the first call opens a UIA session, the second proves the token.
  server.route('POST', `${API}/register`, (req, state) => {
    redactCredentials(req);
    const parsed = jsonBody(req);
    if ('refused' in parsed) return parsed.refused;
    const body = parsed.body;
    const flows = { flows: [{ stages: ['m.login.registration_token'] }], params: {} };
    const auth = body.auth as { type?: unknown; token?: unknown; session?: unknown } | undefined;
    if (!auth) {
      const session = opaqueId(state, 'uia');
      state.uiaSessions[session] = true;
      return reply.json({ ...flows, session }, 401);
    }
    if (typeof auth.session !== 'string' || !state.uiaSessions[auth.session])
      return reply.json({ ...flows, errcode: 'M_UNKNOWN', error: 'Unknown UIA session.' }, 400);
    if (auth.type !== 'm.login.registration_token' || auth.token !== registrationToken)
      return reply.json(
        { ...flows, session: auth.session, errcode: 'M_FORBIDDEN', error: 'Invalid registration token.' },
        401,
      );
    const username = body.username;
    if (typeof username !== 'string' || !/^[a-z0-9._=\-/]+$/.test(username))
      return fail(400, 'M_INVALID_USERNAME', 'User ID can only contain characters a-z, 0-9, or =_-./');
    if (state.users[`@${username}:${state.serverName}`])
      return fail(400, 'M_USER_IN_USE', 'User ID already taken.');
    if (typeof body.password !== 'string' || body.password === '')
      return fail(400, 'M_MISSING_PARAM', 'A password is required.');
    delete state.uiaSessions[auth.session];
    const account = createAccount(state, username, body.password);
    return reply.json({
      user_id: account.userId,
      access_token: account.accessToken,
      device_id: account.deviceId,
    });
  });

  server.route('POST', `${API}/login`, (req, state) => {
    redactCredentials(req);
    const parsed = jsonBody(req);
    if ('refused' in parsed) return parsed.refused;
    const body = parsed.body;
    if (body.type !== 'm.login.password') return fail(400, 'M_UNKNOWN', 'Unknown login type.');
    const identifier = body.identifier as { type?: unknown; user?: unknown } | undefined;
    const user = identifier?.type === 'm.id.user' ? identifier.user : body.user;
    if (typeof user !== 'string') return fail(400, 'M_MISSING_PARAM', 'Missing identifier.');
    const userId = user.startsWith('@') ? user : `@${user}:${state.serverName}`;
    const account = state.users[userId];
    if (!account || account.password !== body.password) return forbidden('Invalid username or password.');
    const session = login(state, userId);
    return reply.json({
      user_id: session.userId,
      access_token: session.accessToken,
      device_id: session.deviceId,
    });
  });

  authed('GET', '/account/whoami', (_req, state, me) =>
    reply.json({ user_id: me.userId, device_id: state.tokens[me.token]!.deviceId, is_guest: false }),
  );

  authed('GET', '/sync', async (req, state, me) => {
    const since = req.query.get('since');
    if (since !== null && !/^s\d+$/.test(since))
      return fail(400, 'M_INVALID_PARAM', `Invalid since token '${since}'.`);
    const from = since === null ? undefined : Number(since.slice(1));
    const timeout = Math.min(Math.max(0, Number(req.query.get('timeout') ?? 0) || 0), MAX_LONG_POLL_MS);
    let body = syncFor(state, me.userId, from, now());
    if (from !== undefined && timeout > 0 && isEmpty(body)) {
      // Long-poll: answer at the first new event, or empty at the timeout.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeout);
        timer.unref?.();
        function done() {
          clearTimeout(timer);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
      body = syncFor(server.state, me.userId, from, now());
    }
    return reply.json(body);
  });

  authed('POST', '/createRoom', (req, state, me) => {
    const parsed = jsonBody(req);
    if ('refused' in parsed) return parsed.refused;
    const body = parsed.body;
    const request = body as CreateRoomRequest;
    const invites = request.invite ?? [];
    if (!Array.isArray(invites) || !invites.every(isUserId))
      return fail(400, 'M_INVALID_PARAM', "'invite' must be a list of user ids.");
    for (const userId of invites) {
      if (!state.users[userId]) return fail(404, 'M_NOT_FOUND', `Unknown user ${userId}.`);
    }
    const initial = request.initial_state ?? [];
    if (
      !Array.isArray(initial) ||
      !initial.every((e) => typeof e?.type === 'string' && typeof e.content === 'object')
    )
      return fail(400, 'M_INVALID_PARAM', "'initial_state' must be a list of state events.");
    const preset = request.preset ?? (request.visibility === 'public' ? 'public_chat' : 'private_chat');
    const roomId = `!${opaqueId(state, '')}:${state.serverName}`;
    const room: FakeMatrixRoom = { roomId, creator: me.userId, events: [], state: {} };
    state.rooms[roomId] = room;
    const t = now();
    const add = (type: string, content: Record<string, unknown>, key = '') =>
      appendEvent(state, room, { type, sender: me.userId, state_key: key, content }, t);
    add('m.room.create', { creator: me.userId, room_version: '10' });
    add('m.room.member', { membership: 'join' }, me.userId);
    add('m.room.power_levels', {
      users: { [me.userId]: 100 },
      users_default: 0,
      events_default: 0,
      state_default: 50,
      ban: 50,
      kick: 50,
      invite: 0,
      redact: 50,
    });
    add('m.room.join_rules', { join_rule: preset === 'public_chat' ? 'public' : 'invite' });
    add('m.room.history_visibility', { history_visibility: 'shared' });
    for (const event of initial) add(event.type, event.content, event.state_key ?? '');
    if (typeof request.name === 'string') add('m.room.name', { name: request.name });
    if (typeof request.topic === 'string') add('m.room.topic', { topic: request.topic });
    for (const userId of invites) add('m.room.member', { membership: 'invite' }, userId);
    wake();
    return reply.json({ room_id: roomId });
  });

  const join = (req: FakeRequest, state: FakeHomeserverState, me: { userId: string }, roomId: string) => {
    // Conduit refuses a join without a JSON body (why the reference dropped matrix-nio).
    const parsed = jsonBody(req);
    if ('refused' in parsed) return parsed.refused;
    const room = roomOf(state, roomId);
    if ('kind' in room) return room;
    const membership = membershipOf(room, me.userId);
    if (membership === 'ban') return forbidden('You are banned from this room.');
    if (membership === 'join') return reply.json({ room_id: roomId });
    const rule = currentState(room, 'm.room.join_rules')?.content.join_rule;
    if (membership !== 'invite' && rule !== 'public') return forbidden('You are not invited to this room.');
    setMembership(state, room, me.userId, me.userId, 'join');
    return reply.json({ room_id: roomId });
  };
  authed('POST', '/join/:room', (req, state, me) => join(req, state, me, req.params.room!));
  authed('POST', '/rooms/:room/join', (req, state, me) => join(req, state, me, req.params.room!));

  authed('POST', '/rooms/:room/leave', (req, state, me) => {
    const parsed = jsonBody(req);
    if ('refused' in parsed) return parsed.refused;
    const body = parsed.body;
    const room = roomOf(state, req.params.room!);
    if ('kind' in room) return room;
    const membership = membershipOf(room, me.userId);
    if (membership !== 'join' && membership !== 'invite') return forbidden('You are not in this room.');
    setMembership(
      state,
      room,
      me.userId,
      me.userId,
      'leave',
      typeof body.reason === 'string' ? body.reason : undefined,
    );
    return reply.json({});
  });

  const moderate = (action: 'invite' | 'kick' | 'ban' | 'unban') =>
    authed('POST', `/rooms/:room/${action}`, (req, state, me) => {
      const parsed = jsonBody(req);
      if ('refused' in parsed) return parsed.refused;
      const body = parsed.body;
      const room = roomOf(state, req.params.room!);
      if ('kind' in room) return room;
      const target = body.user_id;
      if (!isUserId(target)) return fail(400, 'M_INVALID_PARAM', "'user_id' must be a user id.");
      if (membershipOf(room, me.userId) !== 'join') return forbidden('You are not in this room.');
      const needed = requiredPower(room, action === 'unban' ? 'ban' : action);
      if (powerOf(room, me.userId) < needed) return forbidden(`You need power level ${needed} to ${action}.`);
      const current = membershipOf(room, target);
      const reason = typeof body.reason === 'string' ? body.reason : undefined;
      if (action === 'invite') {
        if (!state.users[target]) return fail(404, 'M_NOT_FOUND', `Unknown user ${target}.`);
        if (current === 'ban') return forbidden(`${target} is banned from the room.`);
        if (current === 'join') return forbidden(`${target} is already in the room.`);
        if (current !== 'invite') setMembership(state, room, me.userId, target, 'invite', reason);
      } else if (action === 'kick') {
        if (current !== 'join' && current !== 'invite') return forbidden(`${target} is not in the room.`);
        setMembership(state, room, me.userId, target, 'leave', reason);
      } else if (action === 'ban') {
        setMembership(state, room, me.userId, target, 'ban', reason);
      } else {
        if (current !== 'ban') return forbidden(`${target} is not banned.`);
        setMembership(state, room, me.userId, target, 'leave', reason);
      }
      return reply.json({});
    });
  moderate('invite');
  moderate('kick');
  moderate('ban');
  moderate('unban');

  /** The room, when the caller may read it (member now, or up to when it left). */
  const readable = (state: FakeHomeserverState, roomId: string, userId: string) => {
    const room = roomOf(state, roomId);
    if ('kind' in room) return room;
    const upTo = visibleUpTo(state, room, userId);
    if (upTo === undefined) return forbidden(`User ${userId} not in room ${roomId}.`);
    return { room, upTo };
  };

  /** State as the caller may see it: current for members, as of leaving for former members. */
  const stateAt = (room: FakeMatrixRoom, upTo: number): MatrixEvent[] => {
    const latest = new Map<string, MatrixEvent>();
    for (const { event, pos } of room.events) {
      if (pos > upTo || event.state_key === undefined) continue;
      latest.set(`${event.type}\u0000${event.state_key}`, event);
    }
    return [...latest.values()];
  };

  authed('GET', '/rooms/:room/state', (req, state, me) => {
    const found = readable(state, req.params.room!, me.userId);
    if ('kind' in found) return found;
    return reply.json(stateAt(found.room, found.upTo).map((e) => eventFor(e, me.userId, now())));
  });

  const getState = (req: FakeRequest, state: FakeHomeserverState, me: { userId: string }, key: string) => {
    const found = readable(state, req.params.room!, me.userId);
    if ('kind' in found) return found;
    const event = stateAt(found.room, found.upTo).find(
      (e) => e.type === req.params.type && e.state_key === key,
    );
    if (!event) return fail(404, 'M_NOT_FOUND', 'Event not found.');
    return reply.json(event.content);
  };
  authed('GET', '/rooms/:room/state/:type', (req, state, me) => getState(req, state, me, ''));
  authed('GET', '/rooms/:room/state/:type/:key', (req, state, me) =>
    getState(req, state, me, req.params.key!),
  );

  const putState = (req: FakeRequest, state: FakeHomeserverState, me: { userId: string }, key: string) => {
    const parsed = jsonBody(req);
    if ('refused' in parsed) return parsed.refused;
    const body = parsed.body;
    const room = roomOf(state, req.params.room!);
    if ('kind' in room) return room;
    if (membershipOf(room, me.userId) !== 'join') return forbidden('You are not in this room.');
    if (req.params.type === 'm.room.member')
      return forbidden('Use the membership endpoints to change membership.');
    if (powerOf(room, me.userId) < requiredPower(room, 'state'))
      return forbidden('Insufficient power level to send state.');
    const event = appendEvent(
      state,
      room,
      { type: req.params.type!, sender: me.userId, state_key: key, content: body },
      now(),
    );
    wake();
    return reply.json({ event_id: event.event_id });
  };
  authed('PUT', '/rooms/:room/state/:type', (req, state, me) => putState(req, state, me, ''));
  authed('PUT', '/rooms/:room/state/:type/:key', (req, state, me) =>
    putState(req, state, me, req.params.key!),
  );

  authed('GET', '/rooms/:room/members', (req, state, me) => {
    const found = readable(state, req.params.room!, me.userId);
    if ('kind' in found) return found;
    const members = stateAt(found.room, found.upTo).filter((e) => e.type === 'm.room.member');
    return reply.json({ chunk: members.map((e) => eventFor(e, me.userId, now())) });
  });

  authed('GET', '/rooms/:room/messages', (req, state, me) => {
    const found = readable(state, req.params.room!, me.userId);
    if ('kind' in found) return found;
    const dir = req.query.get('dir') ?? 'b';
    if (dir !== 'b' && dir !== 'f') return fail(400, 'M_INVALID_PARAM', "'dir' must be 'b' or 'f'.");
    const limitText = req.query.get('limit');
    const limit = limitText === null ? 10 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 0)
      return fail(400, 'M_INVALID_PARAM', "'limit' must be a non-negative integer.");
    const fromText = req.query.get('from');
    if (fromText !== null && !/^[st]\d+$/.test(fromText))
      return fail(400, 'M_INVALID_PARAM', `Invalid from token '${fromText}'.`);
    const visible = found.room.events.filter((e) => e.pos <= found.upTo);
    // Tokens point between events: `t<n>` is just after stream position n.
    const from = fromText === null ? (dir === 'b' ? found.upTo : 0) : Number(fromText.slice(1));
    const page =
      dir === 'b'
        ? visible
            .filter((e) => e.pos <= from)
            .reverse()
            .slice(0, Math.min(limit, 1000))
        : visible.filter((e) => e.pos > from).slice(0, Math.min(limit, 1000));
    const last = page.at(-1);
    const more =
      last !== undefined &&
      (dir === 'b' ? visible.some((e) => e.pos < last.pos) : visible.some((e) => e.pos > last.pos));
    return reply.json({
      chunk: page.map((e) => eventFor(e.event, me.userId, now())),
      start: `t${from}`,
      ...(more && last ? { end: `t${dir === 'b' ? last.pos - 1 : last.pos}` } : {}),
    });
  });

  authed('PUT', '/rooms/:room/send/:type/:txn', (req, state, me) => {
    const parsed = jsonBody(req);
    if ('refused' in parsed) return parsed.refused;
    const body = parsed.body;
    const room = roomOf(state, req.params.room!);
    if ('kind' in room) return room;
    const txnKey = `${me.token}\u0000${req.params.txn}`;
    const seen = state.transactions[txnKey];
    if (seen !== undefined) return reply.json({ event_id: seen });
    if (membershipOf(room, me.userId) !== 'join')
      return forbidden(`User ${me.userId} not in room ${room.roomId}.`);
    const event = appendEvent(
      state,
      room,
      { type: req.params.type!, sender: me.userId, content: body },
      now(),
      req.params.txn,
    );
    state.transactions[txnKey] = event.event_id;
    wake();
    return reply.json({ event_id: event.event_id });
  });

  const accountData = (room: boolean) => {
    const path = room ? '/user/:user/rooms/:room/account_data/:type' : '/user/:user/account_data/:type';
    type Store = Record<string, Record<string, unknown>>;
    const target = (
      req: FakeRequest,
      state: FakeHomeserverState,
      me: { userId: string },
    ): { store: Store } | { refused: FakeResponse } => {
      if (req.params.user !== me.userId)
        return { refused: forbidden('Cannot access account data for other users.') };
      if (room && !isRoomId(req.params.room))
        return { refused: fail(400, 'M_INVALID_PARAM', `'${req.params.room}' is not a valid room id.`) };
      const user = state.users[me.userId]!;
      if (!room) return { store: user.accountData };
      user.roomAccountData[req.params.room!] ??= {};
      return { store: user.roomAccountData[req.params.room!]! };
    };
    authed('GET', path, (req, state, me) => {
      const found = target(req, state, me);
      if ('refused' in found) return found.refused;
      const content = found.store[req.params.type!];
      return content === undefined
        ? fail(404, 'M_NOT_FOUND', 'Account data not found.')
        : reply.json(content);
    });
    authed('PUT', path, (req, state, me) => {
      const parsed = jsonBody(req);
      if ('refused' in parsed) return parsed.refused;
      const body = parsed.body;
      const found = target(req, state, me);
      if ('refused' in found) return found.refused;
      found.store[req.params.type!] = structuredClone(body);
      return reply.json({});
    });
  };
  accountData(false);
  accountData(true);

  const fake = server as FakeHomeserver;
  Object.defineProperties(fake, {
    serverName: { value: serverName },
    registrationToken: { value: registrationToken },
    registerUser: {
      value: (localpart: string, password = `${localpart}-password`) => {
        const userId = `@${localpart}:${fake.state.serverName}`;
        if (fake.state.users[userId]) throw new Error(`${userId} is already registered`);
        return createAccount(fake.state, localpart, password);
      },
    },
  });
  return fake;
}

function isEmpty(body: SyncResponse): boolean {
  const rooms = body.rooms ?? {};
  return (
    Object.keys(rooms.join ?? {}).length +
      Object.keys(rooms.invite ?? {}).length +
      Object.keys(rooms.leave ?? {}).length ===
    0
  );
}

/** One `/sync` answer for `userId`: everything (initial) or what changed after position `since`. */
function syncFor(
  state: FakeHomeserverState,
  userId: string,
  since: number | undefined,
  now: number,
): SyncResponse {
  const join: Record<string, JoinedRoomSync> = {};
  const invite: Record<string, InvitedRoomSync> = {};
  const leave: Record<string, LeftRoomSync> = {};
  for (const room of Object.values(state.rooms)) {
    const membership = membershipOf(room, userId);
    const changedAt = membershipPos(room, userId);
    const slice = (after: number, upTo: number) => {
      const events = room.events.filter((e) => e.pos > after && e.pos <= upTo);
      const limited = events.length > TIMELINE_LIMIT;
      const kept = events.slice(-TIMELINE_LIMIT);
      const firstPos = kept[0]?.pos ?? upTo + 1;
      const before = room.events.filter((e) => e.pos < firstPos && e.event.state_key !== undefined);
      const latest = new Map<string, MatrixEvent>();
      for (const { event } of before) latest.set(`${event.type}\u0000${event.state_key}`, event);
      return {
        state: {
          events:
            since === undefined || limited ? [...latest.values()].map((e) => eventFor(e, userId, now)) : [],
        },
        timeline: {
          events: kept.map((e) => eventFor(e.event, userId, now)),
          limited,
          prev_batch: `t${firstPos - 1}`,
        },
      };
    };
    if (membership === 'join') {
      const after = since ?? 0;
      if (since !== undefined && !room.events.some((e) => e.pos > since)) continue;
      join[room.roomId] = slice(after, state.pos);
      // The room's account data, as servers send it in a full sync (incremental syncs would carry
      // only what changed; this fake sends none there).
      const data = since === undefined ? state.users[userId]?.roomAccountData[room.roomId] : undefined;
      if (data && Object.keys(data).length > 0)
        join[room.roomId]!.account_data = {
          events: Object.entries(data).map(([type, content]) => ({
            type,
            content: structuredClone(content),
          })),
        };
    } else if (membership === 'invite') {
      if (since === undefined || changedAt > since)
        invite[room.roomId] = { invite_state: { events: strippedState(room, userId) } };
    } else if ((membership === 'leave' || membership === 'ban') && since !== undefined && changedAt > since) {
      leave[room.roomId] = slice(since, changedAt);
    }
  }
  return { next_batch: `s${state.pos}`, rooms: { join, invite: invite, leave } };
}
