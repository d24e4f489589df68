/**
 * The Matrix client-server shapes this package reads and writes (spec v1.x, `ClientEvent`,
 * `/sync`, `/messages`, `/members`, `/createRoom`), shared by the client and the fake homeserver
 * so both are checked against the same definitions.
 */

/** `ClientEvent` as `/messages`, `/state` and the sync timeline return it. */
export interface MatrixEvent {
  type: string;
  content: Record<string, unknown>;
  sender: string;
  event_id: string;
  origin_server_ts: number;
  room_id: string;
  /** Present on state events only. */
  state_key?: string;
  unsigned?: { age?: number; transaction_id?: string };
}

/** `StrippedStateEvent`: what an invite shows before joining. */
export interface StrippedStateEvent {
  type: string;
  state_key: string;
  sender: string;
  content: Record<string, unknown>;
}

export interface SyncTimeline {
  events: MatrixEvent[];
  limited: boolean;
  prev_batch?: string;
}

export interface AccountDataEvent {
  type: string;
  content: Record<string, unknown>;
}

export interface JoinedRoomSync {
  state: { events: MatrixEvent[] };
  timeline: SyncTimeline;
  /** The room's account data for this user (a full sync carries all of it). */
  account_data?: { events: AccountDataEvent[] };
}

export interface InvitedRoomSync {
  invite_state: { events: StrippedStateEvent[] };
}

export interface LeftRoomSync {
  state: { events: MatrixEvent[] };
  timeline: SyncTimeline;
}

export interface SyncResponse {
  next_batch: string;
  rooms?: {
    join?: Record<string, JoinedRoomSync>;
    invite?: Record<string, InvitedRoomSync>;
    leave?: Record<string, LeftRoomSync>;
  };
  account_data?: { events: AccountDataEvent[] };
}

/** `GET /rooms/{roomId}/messages`. */
export interface MessagesResponse {
  chunk: MatrixEvent[];
  start: string;
  /** Absent when there are no more events in that direction. */
  end?: string;
  state?: MatrixEvent[];
}

export interface CreateRoomRequest {
  name?: string;
  topic?: string;
  preset?: 'private_chat' | 'public_chat' | 'trusted_private_chat';
  visibility?: 'public' | 'private';
  invite?: string[];
  initial_state?: Array<{ type: string; state_key?: string; content: Record<string, unknown> }>;
  is_direct?: boolean;
}

export type Membership = 'invite' | 'join' | 'leave' | 'ban' | 'knock';

/** The error envelope every failed call answers with. */
export interface MatrixErrorBody {
  errcode: string;
  error: string;
}

/** `@localpart:server` → `localpart`. */
export function localpartOf(userId: string): string {
  const colon = userId.indexOf(':');
  return (userId.startsWith('@') ? userId.slice(1, colon < 0 ? undefined : colon) : userId).trim();
}

/** `@localpart:server` → `localpart@server` (the agent-facing peer id; never a room id). */
export function agentFacingId(userId: string): string {
  const bare = userId.startsWith('@') ? userId.slice(1) : userId;
  return bare.replace(':', '@');
}

/** A syntactically valid user id (`@local:server`). */
export function isUserId(value: unknown): value is string {
  return typeof value === 'string' && /^@[^:\s]+:[^\s]+$/.test(value) && value.length <= 255;
}

/** A syntactically valid room id (`!opaque:server`). */
export function isRoomId(value: unknown): value is string {
  return typeof value === 'string' && /^![^:\s]+:[^\s]+$/.test(value) && value.length <= 255;
}
