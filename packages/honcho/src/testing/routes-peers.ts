/** Dialectic chat, representations, peer cards and conclusions: what Honcho derives about peers. */
import { type FakeServer, paginate, reply } from '@hermes-memory/testkit/http';
import { body, checkId, invalid, notFound, pageQuery, peerOf, workspaceOf } from './context';
import { dialecticAnswer, rank, representationOf } from './deriver';
import { compileFilters } from './filters';
import { guard } from './routes-core';
import { type FakeConclusion, type FakeHonchoState, type FakeWorkspace, nextStamp } from './state';

const WS = '/v3/workspaces/:workspace';
const LEVELS = ['minimal', 'low', 'medium', 'high', 'max'];

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Who a card or representation request is about: `target`, else the peer itself. */
function cardKey(observer: string, target: string | undefined): string {
  return !target || target === observer ? 'self' : target;
}

function conclusionResponse(c: FakeConclusion) {
  return { ...c };
}

function conclusionOf(workspace: FakeWorkspace, id: string | undefined): FakeConclusion {
  return workspace.conclusions.find((c) => c.id === id) ?? notFound('Conclusion');
}

export function registerPeerRoutes(server: FakeServer<FakeHonchoState>): void {
  server.route(
    'POST',
    `${WS}/peers/:peer/chat`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const observer = peerOf(workspace, req.params.peer).id;
      const b = body(req);
      const query = text(b.query);
      if (!query) invalid(['body', 'query'], 'Field required');
      if (b.reasoning_level !== undefined && !LEVELS.includes(String(b.reasoning_level))) {
        invalid(['body', 'reasoning_level'], `Input should be ${LEVELS.map((l) => `'${l}'`).join(', ')}`);
      }
      const target = text(b.target) ?? observer;
      if (!workspace.peers[target]) notFound('Peer');
      const content = dialecticAnswer(workspace, observer, target, query);
      if (b.stream === true) {
        const events =
          content === null
            ? []
            : content.match(/[\s\S]{1,40}/g)!.map((part) => ({ data: { delta: { content: part } } }));
        return reply.sse([...events, { data: { done: true } }]);
      }
      return reply.json({ content });
    }),
  );
  server.route(
    'POST',
    `${WS}/peers/:peer/representation`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const observer = peerOf(workspace, req.params.peer).id;
      const b = body(req);
      const target = text(b.target) ?? observer;
      const topK = typeof b.search_top_k === 'number' ? b.search_top_k : 10;
      return reply.json({
        representation: representationOf(workspace, observer, target, text(b.search_query), topK),
      });
    }),
  );
  server.route(
    'GET',
    `${WS}/peers/:peer/context`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const observer = peerOf(workspace, req.params.peer);
      const target = req.query.get('target') || observer.id;
      const topK = Number(req.query.get('search_top_k') ?? 10) || 10;
      const card = observer.cards[cardKey(observer.id, target)];
      return reply.json({
        peer_id: observer.id,
        target_id: target,
        representation: representationOf(
          workspace,
          observer.id,
          target,
          req.query.get('search_query') ?? undefined,
          topK,
        ),
        peer_card: card && card.length > 0 ? card : null,
      });
    }),
  );
  server.route(
    'GET',
    `${WS}/peers/:peer/card`,
    guard((req, state) => {
      const observer = peerOf(workspaceOf(state, req), req.params.peer);
      const card = observer.cards[cardKey(observer.id, req.query.get('target') ?? undefined)];
      return reply.json({ peer_card: card && card.length > 0 ? card : null });
    }),
  );
  server.route(
    'PUT',
    `${WS}/peers/:peer/card`,
    guard((req, state) => {
      const observer = peerOf(workspaceOf(state, req), req.params.peer);
      const card = body(req).peer_card;
      if (!Array.isArray(card) || card.some((fact) => typeof fact !== 'string')) {
        invalid(['body', 'peer_card'], 'Input should be a valid list of strings');
      }
      observer.cards[cardKey(observer.id, req.query.get('target') ?? undefined)] = [...card];
      return reply.json({ peer_card: card });
    }),
  );

  // conclusions
  server.route(
    'POST',
    `${WS}/conclusions`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const list = body(req).conclusions;
      if (!Array.isArray(list) || list.length === 0)
        invalid(['body', 'conclusions'], 'List should have at least 1 item');
      const parsed = list.map((raw, i) => {
        const c = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
        const where = ['body', 'conclusions', String(i)];
        if (!text(c.content)) invalid([...where, 'content'], 'Field required');
        const observer = checkId(c.observer_id, [...where, 'observer_id']);
        const observed = checkId(c.observed_id, [...where, 'observed_id']);
        peerOf(workspace, observer);
        peerOf(workspace, observed);
        return { content: String(c.content), observer, observed, session: text(c.session_id) ?? null };
      });
      const created = parsed.map((c) => {
        const stamp = nextStamp(state, 'concl');
        const conclusion: FakeConclusion = {
          id: stamp.id,
          content: c.content,
          observer_id: c.observer,
          observed_id: c.observed,
          session_id: c.session,
          level: 'explicit',
          created_at: stamp.createdAt,
        };
        workspace.conclusions.push(conclusion);
        return conclusionResponse(conclusion);
      });
      return reply.json(created);
    }),
  );
  server.route(
    'POST',
    `${WS}/conclusions/list`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const { page, size, reverse } = pageQuery(req);
      const items = workspace.conclusions.filter(compileFilters(body(req).filters)).map(conclusionResponse);
      if (reverse) items.reverse();
      return reply.json(paginate(items, page, size));
    }),
  );
  server.route(
    'POST',
    `${WS}/conclusions/query`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const b = body(req);
      const query = text(b.query);
      if (!query) invalid(['body', 'query'], 'Field required');
      const topK = typeof b.top_k === 'number' ? Math.max(1, Math.min(100, b.top_k)) : 10;
      const pool = workspace.conclusions.filter(compileFilters(b.filters));
      const ranked = rank(
        pool.map((c) => ({ text: c.content, createdAt: c.created_at, id: c.id })),
        query,
        topK,
      );
      return reply.json(ranked.map((r) => conclusionResponse(conclusionOf(workspace, r.id))));
    }),
  );
  server.route(
    'GET',
    `${WS}/conclusions/:conclusion`,
    guard((req, state) =>
      reply.json(conclusionResponse(conclusionOf(workspaceOf(state, req), req.params.conclusion))),
    ),
  );
  server.route(
    'DELETE',
    `${WS}/conclusions/:conclusion`,
    guard((req, state) => {
      const workspace = workspaceOf(state, req);
      const found = conclusionOf(workspace, req.params.conclusion);
      workspace.conclusions = workspace.conclusions.filter((c) => c !== found);
      return reply.empty(204);
    }),
  );
}
