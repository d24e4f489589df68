import type { MatrixEvent, Membership, StrippedStateEvent } from '../matrix/types';

/** One account on the fake homeserver. */
export interface FakeMatrixUser {
  userId: string;
  password: string;
  /** Global account data by type. */
  accountData: Record<string, Record<string, unknown>>;
  /** Room account data: room id → type → content. */
  roomAccountData: Record<string, Record<string, Record<string, unknown>>>;
}

/** An event with its position in the server's single stream (what sync tokens count). */
export interface StoredEvent {
  event: MatrixEvent;
  pos: number;
}

export interface FakeMatrixRoom {
  roomId: string;
  creator: string;
  /** Every event, oldest first. */
  events: StoredEvent[];
  /** Current state: `${type}\u0000${state_key}` → event. */
  state: Record<string, MatrixEvent>;
}

export interface FakeHomeserverState {
  serverName: string;
  users: Record<string, FakeMatrixUser>;
  /** Access token → the user and device it logs in. */
  tokens: Record<string, { userId: string; deviceId: string }>;
  rooms: Record<string, FakeMatrixRoom>;
  /** `${accessToken}\u0000${txnId}` → event id (transaction idempotency is per device). */
  transactions: Record<string, string>;
  /** Registration sessions (UIAA) handed out and not used yet. */
  uiaSessions: Record<string, true>;
  /** The stream position of the newest event. */
  pos: number;
  /** Counter for ids (rooms, events, devices, tokens). */
  nextId: number;
}

export function newHomeserverState(serverName: string): FakeHomeserverState {
  return {
    serverName,
    users: {},
    tokens: {},
    rooms: {},
    transactions: {},
    uiaSessions: {},
    pos: 0,
    nextId: 1,
  };
}

const stateKey = (type: string, key: string) => `${type}\u0000${key}`;

/** An opaque id from the counter (deterministic, so recordings compare across runs). */
export function opaqueId(state: FakeHomeserverState, prefix: string): string {
  const n = state.nextId++;
  return `${prefix}${(n * 2654435761).toString(36).slice(-6)}${n.toString(36)}`;
}

export function currentState(room: FakeMatrixRoom, type: string, key = ''): MatrixEvent | undefined {
  return room.state[stateKey(type, key)];
}

export function membershipOf(room: FakeMatrixRoom, userId: string): Membership | undefined {
  const event = currentState(room, 'm.room.member', userId);
  return event?.content.membership as Membership | undefined;
}

/** The stream position of the user's latest membership change in the room. */
export function membershipPos(room: FakeMatrixRoom, userId: string): number {
  for (let i = room.events.length - 1; i >= 0; i--) {
    const { event, pos } = room.events[i]!;
    if (event.type === 'm.room.member' && event.state_key === userId) return pos;
  }
  return 0;
}

/**
 * The newest stream position the user may see (history visibility `shared`): everything while
 * joined — history before joining included — and nothing after leaving. Undefined: no access.
 */
export function visibleUpTo(
  state: FakeHomeserverState,
  room: FakeMatrixRoom,
  userId: string,
): number | undefined {
  const membership = membershipOf(room, userId);
  if (membership === 'join') return state.pos;
  if (membership === 'leave' || membership === 'ban') {
    // Only someone who was joined once saw the room; a rejected invite never did.
    const wasJoined = room.events.some(
      (e) =>
        e.event.type === 'm.room.member' &&
        e.event.state_key === userId &&
        e.event.content.membership === 'join',
    );
    return wasJoined ? membershipPos(room, userId) : undefined;
  }
  return undefined;
}

export function powerOf(room: FakeMatrixRoom, userId: string): number {
  const levels = currentState(room, 'm.room.power_levels')?.content as
    | { users?: Record<string, number>; users_default?: number }
    | undefined;
  return levels?.users?.[userId] ?? levels?.users_default ?? 0;
}

export function requiredPower(room: FakeMatrixRoom, action: 'kick' | 'ban' | 'invite' | 'state'): number {
  const levels = (currentState(room, 'm.room.power_levels')?.content ?? {}) as Record<string, unknown>;
  const key = action === 'state' ? 'state_default' : action;
  const value = levels[key];
  return typeof value === 'number' ? value : action === 'invite' ? 0 : 50;
}

/** Append an event to a room (and its state, for state events) at the next stream position. */
export function appendEvent(
  state: FakeHomeserverState,
  room: FakeMatrixRoom,
  fields: { type: string; sender: string; content: Record<string, unknown>; state_key?: string },
  now: number,
  transactionId?: string,
): MatrixEvent {
  const event: MatrixEvent = {
    type: fields.type,
    content: structuredClone(fields.content),
    sender: fields.sender,
    event_id: `$${opaqueId(state, '')}`,
    origin_server_ts: now,
    room_id: room.roomId,
    ...(fields.state_key !== undefined ? { state_key: fields.state_key } : {}),
    ...(transactionId !== undefined ? { unsigned: { transaction_id: transactionId } } : {}),
  };
  state.pos += 1;
  room.events.push({ event, pos: state.pos });
  if (fields.state_key !== undefined) room.state[stateKey(fields.type, fields.state_key)] = event;
  return event;
}

/** The event as a given user receives it: `unsigned.transaction_id` only for its own sender. */
export function eventFor(event: MatrixEvent, userId: string, now: number): MatrixEvent {
  const { unsigned, ...rest } = event;
  const out: MatrixEvent = {
    ...structuredClone(rest),
    unsigned: { age: Math.max(0, now - event.origin_server_ts) },
  };
  if (unsigned?.transaction_id !== undefined && event.sender === userId) {
    out.unsigned = { ...out.unsigned, transaction_id: unsigned.transaction_id };
  }
  return out;
}

/** What an invitee sees of a room before joining (`invite_state`). */
export function strippedState(room: FakeMatrixRoom, userId: string): StrippedStateEvent[] {
  const keep = ['m.room.create', 'm.room.name', 'm.room.join_rules', 'm.room.encryption', 'm.room.topic'];
  const out: StrippedStateEvent[] = [];
  for (const event of Object.values(room.state)) {
    const inviter = membershipEventOf(room, userId)?.sender;
    if (
      keep.includes(event.type) ||
      (event.type === 'm.room.member' && (event.state_key === userId || event.state_key === inviter))
    ) {
      out.push({
        type: event.type,
        state_key: event.state_key ?? '',
        sender: event.sender,
        content: structuredClone(event.content),
      });
    }
  }
  return out;
}

function membershipEventOf(room: FakeMatrixRoom, userId: string): MatrixEvent | undefined {
  return currentState(room, 'm.room.member', userId);
}
