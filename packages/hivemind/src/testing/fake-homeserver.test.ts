import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { MatrixEvent, SyncResponse } from '../matrix/types';
import type { Json } from '../test-support';
import { FAKE_REGISTRATION_TOKEN, startFakeHomeserver } from './index';

/**
 * The fake homeserver against the client-server API's shapes and rules, over real HTTP: what the
 * hivemind backend relies on (§5.2), and the membership semantics the reference's live-server
 * tests check (§5.10, §5.11.18–19).
 */
const server = await startFakeHomeserver({ now: () => Date.parse('2026-04-03T20:00:00Z') });
afterAll(() => server.close());
beforeEach(() => server.reset());

const API = `${server.url}/_matrix/client/v3`;

async function call(method: string, path: string, token?: string, body?: unknown) {
  const response = await fetch(`${API}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as Json) };
}

const enc = encodeURIComponent;
const sync = async (token: string, since?: string) =>
  (await call('GET', `/sync?timeout=0${since ? `&since=${since}` : ''}`, token)).body as SyncResponse;

function trio() {
  return {
    alice: server.registerUser('alice'),
    bob: server.registerUser('bob'),
    carol: server.registerUser('carol'),
  };
}

async function room(token: string, invite: string[] = [], extra: Record<string, unknown> = {}) {
  const created = await call('POST', '/createRoom', token, { preset: 'private_chat', invite, ...extra });
  expect(created.status).toBe(200);
  return created.body.room_id as string;
}

describe('fake homeserver: accounts', () => {
  it('§5.11.18 registration is two-step with a registration token (UIAA), then login works', async () => {
    const first = await fetch(`${API}/register`, {
      method: 'POST',
      body: JSON.stringify({ username: 'dave', password: 'pw-dave' }),
    });
    expect(first.status).toBe(401);
    const uia = (await first.json()) as { session: string; flows: Array<{ stages: string[] }> };
    expect(uia.flows[0]!.stages).toEqual(['m.login.registration_token']);
    const wrong = await call('POST', '/register', undefined, {
      username: 'dave',
      password: 'pw-dave',
      auth: { type: 'm.login.registration_token', token: 'nope', session: uia.session },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errcode).toBe('M_FORBIDDEN');
    const ok = await call('POST', '/register', undefined, {
      username: 'dave',
      password: 'pw-dave',
      auth: { type: 'm.login.registration_token', token: FAKE_REGISTRATION_TOKEN, session: uia.session },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.user_id).toBe('@dave:localhost');
    const again = await call('POST', '/register', undefined, { username: 'dave', password: 'x' });
    expect(again.status).toBe(401); // a new UIA session first; the name is checked after the token
    const login = await call('POST', '/login', undefined, {
      type: 'm.login.password',
      identifier: { type: 'm.id.user', user: 'dave' },
      password: 'pw-dave',
    });
    expect(login.status).toBe(200);
    expect((await call('GET', '/account/whoami', login.body.access_token)).body.user_id).toBe(
      '@dave:localhost',
    );
    const bad = await call('POST', '/login', undefined, {
      type: 'm.login.password',
      identifier: { type: 'm.id.user', user: 'dave' },
      password: 'x',
    });
    expect(bad).toMatchObject({ status: 403, body: { errcode: 'M_FORBIDDEN' } });
  });

  it('answers the Matrix error envelope: missing and unknown tokens, unknown endpoints; the registration token is never recorded', async () => {
    expect(await call('GET', '/account/whoami')).toMatchObject({
      status: 401,
      body: { errcode: 'M_MISSING_TOKEN' },
    });
    expect(await call('GET', '/account/whoami', 'syt_bogus')).toMatchObject({
      status: 401,
      body: { errcode: 'M_UNKNOWN_TOKEN' },
    });
    const unknown = await call('GET', '/no/such/endpoint', 'x');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ errcode: 'M_UNRECOGNIZED', error: expect.any(String) });
    const { alice } = trio();
    await call('GET', '/account/whoami', alice.accessToken);
    await call('POST', '/register', undefined, {
      username: 'x',
      password: 'y',
      auth: { type: 'm.login.registration_token', token: FAKE_REGISTRATION_TOKEN, session: 'z' },
    });
    // a mistyped token is a secret too (the user's real one for another server, off by a letter)
    await call('POST', '/register', undefined, {
      username: 'x',
      password: 'y',
      auth: { type: 'm.login.registration_token', token: 'mistyped-reg-token-7f3a', session: 'z' },
    });
    const recorded = JSON.stringify(server.requests);
    expect(recorded).not.toContain(alice.accessToken);
    expect(recorded).not.toContain(FAKE_REGISTRATION_TOKEN);
    expect(recorded).not.toContain('mistyped-reg-token-7f3a');
  });
});

describe('fake homeserver: rooms and sync', () => {
  it('createRoom applies the preset, initial state, name and invites; invitees see stripped state in sync', async () => {
    const { alice, bob } = trio();
    const roomId = await room(alice.accessToken, [bob.userId], {
      name: 'Introduction: bob <> carol',
      initial_state: [
        { type: 'm.room.encryption', state_key: '', content: { algorithm: 'm.megolm.v1.aes-sha2' } },
      ],
    });
    expect(roomId).toMatch(/^![^:]+:localhost$/);
    const state = (await call('GET', `/rooms/${enc(roomId)}/state`, alice.accessToken)).body as MatrixEvent[];
    const types = state.map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'm.room.create',
        'm.room.power_levels',
        'm.room.join_rules',
        'm.room.encryption',
        'm.room.name',
      ]),
    );
    expect(state.find((e) => e.type === 'm.room.join_rules')!.content).toEqual({ join_rule: 'invite' });
    expect(state.find((e) => e.type === 'm.room.create')!.sender).toBe(alice.userId);
    const bobSync = await sync(bob.accessToken);
    const invite = bobSync.rooms!.invite![roomId]!;
    expect(invite.invite_state.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['m.room.create', 'm.room.name', 'm.room.member', 'm.room.encryption']),
    );
    expect(bobSync.rooms!.join![roomId]).toBeUndefined();
    // An invitee cannot read the room before joining.
    expect((await call('GET', `/rooms/${enc(roomId)}/messages?dir=b`, bob.accessToken)).status).toBe(403);
  });

  it('join needs a JSON body (as Conduit), then since/next_batch give only what is new', async () => {
    const { alice, bob } = trio();
    const roomId = await room(alice.accessToken, [bob.userId]);
    const initial = await sync(bob.accessToken);
    expect(initial.next_batch).toMatch(/^s\d+$/);
    const noBody = await fetch(`${API}/join/${enc(roomId)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob.accessToken}` },
    });
    expect(noBody.status).toBe(400);
    expect(((await noBody.json()) as { errcode: string }).errcode).toBe('M_NOT_JSON');
    expect((await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {})).body).toEqual({
      room_id: roomId,
    });
    await call('PUT', `/rooms/${enc(roomId)}/send/m.room.message/t1`, alice.accessToken, {
      msgtype: 'm.text',
      body: 'hi bob',
    });
    const next = await sync(bob.accessToken, initial.next_batch);
    const timeline = next.rooms!.join![roomId]!.timeline.events;
    expect(timeline.map((e) => e.type)).toEqual(['m.room.member', 'm.room.message']);
    expect(timeline[1]!.content.body).toBe('hi bob');
    expect(next.rooms!.invite).toEqual({});
    const quiet = await sync(bob.accessToken, next.next_batch);
    expect(quiet.rooms!.join).toEqual({});
    expect(quiet.next_batch).toBe(next.next_batch);
    expect((await call('GET', '/sync?since=garbage', bob.accessToken)).status).toBe(400);
  });

  it('messages page backwards (dir=b, newest first) with end tokens; members list joined and invited', async () => {
    const { alice, bob, carol } = trio();
    const roomId = await room(alice.accessToken, [bob.userId, carol.userId]);
    for (let i = 1; i <= 5; i++) {
      await call('PUT', `/rooms/${enc(roomId)}/send/m.room.message/m${i}`, alice.accessToken, {
        msgtype: 'm.text',
        body: `message ${i}`,
      });
    }
    const first = (await call('GET', `/rooms/${enc(roomId)}/messages?dir=b&limit=3`, alice.accessToken)).body;
    expect(first.chunk.map((e: MatrixEvent) => e.content.body)).toEqual([
      'message 5',
      'message 4',
      'message 3',
    ]);
    expect(first.end).toBeDefined();
    const second = (
      await call('GET', `/rooms/${enc(roomId)}/messages?dir=b&limit=3&from=${first.end}`, alice.accessToken)
    ).body;
    expect(second.chunk.map((e: MatrixEvent) => e.content.body ?? e.type)).toEqual([
      'message 2',
      'message 1',
      'm.room.member',
    ]);
    const members = (await call('GET', `/rooms/${enc(roomId)}/members`, alice.accessToken)).body
      .chunk as MatrixEvent[];
    expect(Object.fromEntries(members.map((m) => [m.state_key, m.content.membership]))).toEqual({
      [alice.userId]: 'join',
      [bob.userId]: 'invite',
      [carol.userId]: 'invite',
    });
  });

  it('send is idempotent per access token and transaction id; the sender alone sees its transaction id', async () => {
    const { alice, bob } = trio();
    const roomId = await room(alice.accessToken, [bob.userId]);
    await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {});
    const path = `/rooms/${enc(roomId)}/send/m.room.message/txn-1`;
    const a = await call('PUT', path, alice.accessToken, { msgtype: 'm.text', body: 'once' });
    const b = await call('PUT', path, alice.accessToken, { msgtype: 'm.text', body: 'once' });
    expect(a.body.event_id).toMatch(/^\$/);
    expect(b.body.event_id).toBe(a.body.event_id);
    const bobSends = await call('PUT', path, bob.accessToken, { msgtype: 'm.text', body: 'mine' });
    expect(bobSends.body.event_id).not.toBe(a.body.event_id);
    const chunk = (await call('GET', `/rooms/${enc(roomId)}/messages?dir=b&limit=10`, bob.accessToken)).body
      .chunk as MatrixEvent[];
    expect(chunk.filter((e) => e.content.body === 'once')).toHaveLength(1);
    expect(chunk.find((e) => e.content.body === 'once')!.unsigned?.transaction_id).toBeUndefined();
    expect(chunk.find((e) => e.content.body === 'mine')!.unsigned?.transaction_id).toBe('txn-1');
  });

  it('room and global account data: 404 M_NOT_FOUND when unset, round trip, only for oneself', async () => {
    const { alice, bob } = trio();
    const roomId = await room(alice.accessToken);
    const global = `/user/${enc(alice.userId)}/account_data/social.awareness.sparks`;
    const inRoom = `/user/${enc(alice.userId)}/rooms/${enc(roomId)}/account_data/social.awareness.peer`;
    for (const path of [global, inRoom]) {
      expect(await call('GET', path, alice.accessToken)).toMatchObject({
        status: 404,
        body: { errcode: 'M_NOT_FOUND' },
      });
      expect((await call('PUT', path, alice.accessToken, { kind: 'x', n: 1 })).status).toBe(200);
      expect((await call('GET', path, alice.accessToken)).body).toEqual({ kind: 'x', n: 1 });
      expect((await call('GET', path, bob.accessToken)).status).toBe(403);
    }
    expect(
      (await call('GET', `/user/${enc(alice.userId)}/rooms/not-a-room/account_data/x`, alice.accessToken))
        .status,
    ).toBe(400);
  });

  it("a full sync carries each joined room's account data; an incremental one does not repeat it", async () => {
    const { alice } = trio();
    const roomId = await room(alice.accessToken);
    const inRoom = `/user/${enc(alice.userId)}/rooms/${enc(roomId)}/account_data/social.awareness.peer`;
    await call('PUT', inRoom, alice.accessToken, { peer_name: 'x' });
    const full = (await call('GET', '/sync?timeout=0', alice.accessToken)).body;
    expect(full.rooms.join[roomId].account_data).toEqual({
      events: [{ type: 'social.awareness.peer', content: { peer_name: 'x' } }],
    });
    await call('PUT', `/rooms/${enc(roomId)}/send/m.room.message/t1`, alice.accessToken, {
      msgtype: 'm.text',
      body: 'hi',
    });
    const next = (await call('GET', `/sync?timeout=0&since=${full.next_batch}`, alice.accessToken)).body;
    expect(next.rooms.join[roomId].account_data).toBeUndefined();
  });
});

describe('fake homeserver: membership rules', () => {
  it('§5.11.19 no sending to a room you left; leaving keeps history up to the leave; rejoin needs a new invite', async () => {
    const { alice, bob } = trio();
    const roomId = await room(alice.accessToken, [bob.userId]);
    await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {});
    await call('PUT', `/rooms/${enc(roomId)}/send/m.room.message/a1`, alice.accessToken, {
      msgtype: 'm.text',
      body: 'before',
    });
    expect((await call('POST', `/rooms/${enc(roomId)}/leave`, bob.accessToken, {})).status).toBe(200);
    await call('PUT', `/rooms/${enc(roomId)}/send/m.room.message/a2`, alice.accessToken, {
      msgtype: 'm.text',
      body: 'after',
    });
    const send = await call('PUT', `/rooms/${enc(roomId)}/send/m.room.message/b1`, bob.accessToken, {
      msgtype: 'm.text',
      body: 'x',
    });
    expect(send).toMatchObject({ status: 403, body: { errcode: 'M_FORBIDDEN' } });
    const seen = (await call('GET', `/rooms/${enc(roomId)}/messages?dir=b&limit=50`, bob.accessToken)).body
      .chunk as MatrixEvent[];
    expect(seen.map((e) => e.content.body).filter(Boolean)).toEqual(['before']);
    expect((await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {})).status).toBe(403);
    await call('POST', `/rooms/${enc(roomId)}/invite`, alice.accessToken, { user_id: bob.userId });
    expect((await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {})).status).toBe(200);
  });

  it('§5.11.19 a rejected invite prevents joining; a ban blocks rejoin and re-invite; kick then re-invite works', async () => {
    const { alice, bob, carol } = trio();
    const roomId = await room(alice.accessToken, [bob.userId, carol.userId]);
    await call('POST', `/rooms/${enc(roomId)}/leave`, bob.accessToken, {});
    expect((await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {})).status).toBe(403);
    expect((await call('GET', `/rooms/${enc(roomId)}/messages?dir=b`, bob.accessToken)).status).toBe(403);
    await call('POST', `/join/${enc(roomId)}`, carol.accessToken, {});
    expect(
      (await call('POST', `/rooms/${enc(roomId)}/kick`, carol.accessToken, { user_id: alice.userId })).status,
    ).toBe(403);
    expect(
      (await call('POST', `/rooms/${enc(roomId)}/kick`, alice.accessToken, { user_id: carol.userId })).status,
    ).toBe(200);
    await call('POST', `/rooms/${enc(roomId)}/invite`, alice.accessToken, { user_id: carol.userId });
    expect((await call('POST', `/join/${enc(roomId)}`, carol.accessToken, {})).status).toBe(200);
    await call('POST', `/rooms/${enc(roomId)}/ban`, alice.accessToken, {
      user_id: carol.userId,
      reason: 'spam',
    });
    expect((await call('POST', `/join/${enc(roomId)}`, carol.accessToken, {})).status).toBe(403);
    expect(
      (await call('POST', `/rooms/${enc(roomId)}/invite`, alice.accessToken, { user_id: carol.userId }))
        .status,
    ).toBe(403);
  });

  it('a leave shows in the leaver’s next sync under rooms.leave', async () => {
    const { alice, bob } = trio();
    const roomId = await room(alice.accessToken, [bob.userId]);
    await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {});
    const before = await sync(bob.accessToken);
    await call('POST', `/rooms/${enc(roomId)}/kick`, alice.accessToken, { user_id: bob.userId });
    const after = await sync(bob.accessToken, before.next_batch);
    expect(Object.keys(after.rooms!.leave!)).toEqual([roomId]);
    expect(after.rooms!.join).toEqual({});
  });

  it('a long-polling sync returns at the next event', async () => {
    const { alice, bob } = trio();
    const roomId = await room(alice.accessToken, [bob.userId]);
    await call('POST', `/join/${enc(roomId)}`, bob.accessToken, {});
    const since = (await sync(bob.accessToken)).next_batch;
    const waiting = call('GET', `/sync?timeout=20000&since=${since}`, bob.accessToken);
    await call('PUT', `/rooms/${enc(roomId)}/send/m.room.message/lp`, alice.accessToken, {
      msgtype: 'm.text',
      body: 'wake up',
    });
    const { body } = await waiting;
    expect(body.rooms.join[roomId].timeline.events.at(-1).content.body).toBe('wake up');
  });
});
