/** Helpers shared by the fake's route files: lookups that answer Honcho's 404s and 422s. */
import { type FakeRequest, type FakeResponse, reply } from '@hermes-memory/testkit/http';
import {
  type FakeHonchoState,
  type FakePeer,
  type FakeSession,
  type FakeWorkspace,
  ID_PATTERN,
  nextStamp,
} from './state';

/** Thrown by a lookup; the route wrapper turns it into the response. */
export class FakeAnswer extends Error {
  constructor(readonly response: FakeResponse) {
    super('fake answer');
  }
}

export function notFound(what: string): never {
  throw new FakeAnswer(reply.json({ detail: `${what} not found` }, 404));
}

/** A FastAPI validation error (422 with a `detail` list). */
export function invalid(location: string[], message: string): never {
  throw new FakeAnswer(reply.json({ detail: [{ loc: location, msg: message, type: 'value_error' }] }, 422));
}

export function body(req: FakeRequest): Record<string, unknown> {
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body)
    ? (req.body as Record<string, unknown>)
    : {};
}

export function checkId(value: unknown, location: string[], maxLength = 512): string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    invalid(location, 'String should match pattern ^[a-zA-Z0-9_-]+$');
  }
  if (value.length > maxLength) invalid(location, `String should have at most ${maxLength} characters`);
  return value;
}

export function workspaceOf(state: FakeHonchoState, req: FakeRequest): FakeWorkspace {
  return state.workspaces[req.params.workspace ?? ''] ?? notFound('Workspace');
}

export function peerOf(workspace: FakeWorkspace, id: string | undefined): FakePeer {
  return workspace.peers[id ?? ''] ?? notFound('Peer');
}

export function sessionOf(workspace: FakeWorkspace, id: string | undefined): FakeSession {
  return workspace.sessions[id ?? ''] ?? notFound('Session');
}

/** Get or create a peer (messages and session membership create peers implicitly, as Honcho does). */
export function ensurePeer(state: FakeHonchoState, workspace: FakeWorkspace, id: string): FakePeer {
  const existing = workspace.peers[id];
  if (existing) return existing;
  const stamp = nextStamp(state, 'peer');
  const peer: FakePeer = {
    id,
    workspace_id: workspace.id,
    metadata: {},
    configuration: {},
    created_at: stamp.createdAt,
    cards: {},
  };
  workspace.peers[id] = peer;
  return peer;
}

export function peerResponse(peer: FakePeer) {
  return {
    id: peer.id,
    workspace_id: peer.workspace_id,
    metadata: peer.metadata,
    configuration: peer.configuration,
    created_at: peer.created_at,
  };
}

export function sessionResponse(session: FakeSession) {
  return {
    id: session.id,
    workspace_id: session.workspace_id,
    is_active: session.is_active,
    metadata: session.metadata,
    configuration: session.configuration,
    created_at: session.created_at,
  };
}

/** `?page=&size=&reverse=true` of list routes. */
export function pageQuery(
  req: FakeRequest,
  defaultSize = 50,
): { page: number; size: number; reverse: boolean } {
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
  const size = Math.min(100, Math.max(1, Number(req.query.get('size') ?? defaultSize) || defaultSize));
  return { page, size, reverse: req.query.get('reverse') === 'true' };
}

/** A query flag as FastAPI reads it (`true`, `1`, `yes`, `on`). */
export function queryFlag(req: FakeRequest, name: string): boolean {
  return ['true', '1', 'yes', 'on'].includes((req.query.get(name) ?? '').toLowerCase());
}
