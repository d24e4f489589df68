/** Messages, uploads, session context and search: the routes a conversation writes and reads through. */
import { type FakeServer, paginate, reply } from '@hermes-memory/testkit/http';
import { body, ensurePeer, invalid, pageQuery, queryFlag, sessionOf, workspaceOf } from './context';
import { representationOf, searchMessages } from './deriver';
import { compileFilters, MESSAGE_COLUMNS } from './filters';
import { guard } from './routes-core';
import {
  type FakeHonchoState,
  type FakeMessage,
  type FakeSession,
  type FakeWorkspace,
  nextStamp,
  tokenCount,
} from './state';

const WS = '/v3/workspaces/:workspace';
/** Honcho cloud refuses messages over 25 000 characters. */
export const MAX_MESSAGE_CHARS = 25_000;

function storeMessage(
  state: FakeHonchoState,
  workspace: FakeWorkspace,
  session: FakeSession,
  peerId: string,
  content: string,
  metadata: Record<string, unknown>,
  createdAt?: string,
): FakeMessage {
  ensurePeer(state, workspace, peerId);
  if (!(peerId in session.peers)) session.peers[peerId] = { observe_me: null, observe_others: null };
  const stamp = nextStamp(state, 'msg');
  const message: FakeMessage = {
    id: stamp.id,
    content,
    peer_id: peerId,
    session_id: session.id,
    workspace_id: workspace.id,
    metadata,
    created_at: createdAt ?? stamp.createdAt,
    token_count: tokenCount(content),
  };
  workspace.messages.push(message);
  return message;
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** Messages newest-last, the most recent that fit `tokens` (all when unset). */
function recentWithin(messages: readonly FakeMessage[], tokens: number | undefined): FakeMessage[] {
  if (tokens === undefined) return [...messages];
  const out: FakeMessage[] = [];
  let used = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (used + m.token_count > tokens) break;
    used += m.token_count;
    out.unshift(m);
  }
  return out;
}

/** Holds message writes (`POST …/messages`) before they are stored, for tests. */
export interface MessageHold {
  /** Hold every write from now until the returned function is called; then each is stored and answered. */
  hold(): () => void;
  /** Writes waiting on a hold right now. */
  held(): number;
}

export function registerMessageRoutes(server: FakeServer<FakeHonchoState>): MessageHold {
  let gate: Promise<void> | undefined;
  let held = 0;
  server.route(
    'POST',
    `${WS}/sessions/:session/messages`,
    guard(async (req, state) => {
      if (gate) {
        held += 1;
        await gate.finally(() => {
          held -= 1;
        });
      }
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      const list = body(req).messages;
      if (!Array.isArray(list) || list.length === 0)
        invalid(['body', 'messages'], 'List should have at least 1 item');
      if (list.length > 100) invalid(['body', 'messages'], 'List should have at most 100 items');
      // Validate the whole batch before storing any of it: a 422 stores nothing.
      const parsed = list.map((raw, i) => {
        const m = objectOrEmpty(raw);
        if (typeof m.peer_id !== 'string' || m.peer_id === '')
          invalid(['body', 'messages', String(i), 'peer_id'], 'Field required');
        if (typeof m.content !== 'string')
          invalid(['body', 'messages', String(i), 'content'], 'Field required');
        if (m.content.length > MAX_MESSAGE_CHARS) {
          invalid(
            ['body', 'messages', String(i), 'content'],
            `String should have at most ${MAX_MESSAGE_CHARS} characters`,
          );
        }
        return m as { peer_id: string; content: string; metadata?: unknown; created_at?: unknown };
      });
      const stored = parsed.map((m) =>
        storeMessage(
          state,
          workspace,
          session,
          m.peer_id,
          m.content,
          objectOrEmpty(m.metadata),
          typeof m.created_at === 'string' ? m.created_at : undefined,
        ),
      );
      return reply.json(stored);
    }),
  );
  server.route(
    'POST',
    `${WS}/sessions/:session/messages/list`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      const { page, size, reverse } = pageQuery(req);
      const matches = compileFilters(body(req).filters, MESSAGE_COLUMNS);
      const messages = workspace.messages.filter((m) => m.session_id === session.id && matches(m));
      if (reverse) messages.reverse();
      return reply.json(paginate(messages, page, size));
    }),
  );
  server.route(
    'POST',
    `${WS}/sessions/:session/messages/upload`,
    guard(async (req, state) => {
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      const type = String(req.headers['content-type'] ?? '');
      if (!type.startsWith('multipart/form-data')) invalid(['body'], 'Expected multipart/form-data');
      const form = await new Response(req.rawBody, { headers: { 'content-type': type } }).formData();
      const file = form.get('file');
      const peerId = form.get('peer_id');
      if (!(file instanceof Blob)) invalid(['body', 'file'], 'Field required');
      if (typeof peerId !== 'string' || !peerId) invalid(['body', 'peer_id'], 'Field required');
      const metadataRaw = form.get('metadata');
      const metadata = typeof metadataRaw === 'string' ? objectOrEmpty(JSON.parse(metadataRaw)) : {};
      const createdAt = form.get('created_at');
      const text = await file.text();
      // Honcho splits an uploaded file into messages of at most 25 000 characters.
      const stored: FakeMessage[] = [];
      for (let start = 0; start < Math.max(1, text.length); start += MAX_MESSAGE_CHARS) {
        stored.push(
          storeMessage(
            state,
            workspace,
            session,
            peerId,
            text.slice(start, start + MAX_MESSAGE_CHARS),
            { ...metadata, file_name: (file as File).name ?? 'upload' },
            typeof createdAt === 'string' ? createdAt : undefined,
          ),
        );
      }
      return reply.json(stored);
    }),
  );

  server.route(
    'GET',
    `${WS}/sessions/:session/context`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      const tokensRaw = req.query.get('tokens');
      const tokens = tokensRaw ? Number(tokensRaw) : undefined;
      const messages = recentWithin(
        workspace.messages.filter((m) => m.session_id === session.id),
        tokens,
      );
      const target = req.query.get('peer_target') ?? undefined;
      const perspective = req.query.get('peer_perspective') ?? target;
      const search = req.query.get('search_query') ?? undefined;
      const representation =
        target && perspective ? representationOf(workspace, perspective, target, search) || null : null;
      const card =
        target && perspective
          ? workspace.peers[perspective]?.cards[target === perspective ? 'self' : target]
          : undefined;
      return reply.json({
        id: session.id,
        messages,
        summary: queryFlag(req, 'summary') ? session.summary : null,
        peer_representation: representation,
        peer_card: card && card.length > 0 ? card : null,
      });
    }),
  );
  server.route(
    'GET',
    `${WS}/sessions/:session/summaries`,
    guard((req, state) => {
      const session = sessionOf(workspaceOf(state, req), req.params.session);
      return reply.json({ id: session.id, short_summary: session.summary, long_summary: null });
    }),
  );

  // search: workspace-wide (with a peer_perspective filter), per peer, per session
  server.route(
    'POST',
    `${WS}/search`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const b = body(req);
      if (typeof b.query !== 'string' || !b.query.trim()) invalid(['body', 'query'], 'Field required');
      // `peer_perspective` is the search route's own key; the rest filters messages.
      const { peer_perspective: perspectiveRaw, ...filters } = objectOrEmpty(b.filters);
      const perspective = typeof perspectiveRaw === 'string' ? perspectiveRaw : undefined;
      let pool = workspace.messages.filter(compileFilters(filters, MESSAGE_COLUMNS));
      if (perspective) {
        // What the perspective peer has seen: sessions it belongs to.
        pool = pool.filter((m) => perspective in (workspace.sessions[m.session_id]?.peers ?? {}));
      }
      return reply.json(searchMessages(pool, b.query, limitOf(b.limit)));
    }),
  );
  server.route(
    'POST',
    `${WS}/peers/:peer/search`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const b = body(req);
      if (typeof b.query !== 'string' || !b.query.trim()) invalid(['body', 'query'], 'Field required');
      const matches = compileFilters(b.filters, MESSAGE_COLUMNS);
      const pool = workspace.messages.filter((m) => m.peer_id === req.params.peer && matches(m));
      return reply.json(searchMessages(pool, b.query, limitOf(b.limit)));
    }),
  );
  server.route(
    'POST',
    `${WS}/sessions/:session/search`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const session = sessionOf(workspace, req.params.session);
      const b = body(req);
      if (typeof b.query !== 'string' || !b.query.trim()) invalid(['body', 'query'], 'Field required');
      const matches = compileFilters(b.filters, MESSAGE_COLUMNS);
      const pool = workspace.messages.filter((m) => m.session_id === session.id && matches(m));
      return reply.json(searchMessages(pool, b.query, limitOf(b.limit)));
    }),
  );
  server.route(
    'GET',
    `${WS}/queue/status`,
    guard((req, state) => {
      workspaceOf(state, req);
      return reply.json({
        total_work_units: 0,
        completed_work_units: 0,
        in_progress_work_units: 0,
        pending_work_units: 0,
      });
    }),
  );
  return {
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
    held: () => held,
  };
}

function limitOf(value: unknown): number {
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 10;
  if (n < 1 || n > 100) invalid(['body', 'limit'], 'Input should be between 1 and 100');
  return n;
}
