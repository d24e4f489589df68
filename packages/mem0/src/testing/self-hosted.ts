import { type FakeRequest, type FakeServer, reply, startFakeServer } from '@hermes-memory/testkit/http';
import { type HoldControls, holdableRoutes } from './holds';
import {
  addMemories,
  deleteMemory,
  entitiesOf,
  type FakeMem0State,
  type FakeMemory,
  matchesFilter,
  namesEntity,
  newState,
  searchMemories,
  toWire,
  updateMemory,
} from './memory-store';

export interface FakeMem0ServerOptions {
  /** When set, every request must carry `X-API-Key: <key>`. Default: no key (as a local server). */
  apiKey?: string;
  now?: () => Date;
}

type Body = Record<string, unknown>;

/**
 * A protocol-faithful fake of the self-hosted Mem0 REST server (the FastAPI app of mem0's
 * `server/`): `POST /memories` (stored at once), `GET /memories?user_id=`, `GET/PUT/DELETE
 * /memories/{id}`, `POST /search`, `GET /memories/{id}/history`, `DELETE /memories`. Optional
 * `X-API-Key` auth, `{detail}` errors.
 */
export type FakeMem0Server = FakeServer<FakeMem0State> & HoldControls;

export async function startFakeMem0Server(options: FakeMem0ServerOptions = {}): Promise<FakeMem0Server> {
  const now = () => (options.now ? options.now() : new Date()).toISOString();
  const server = await startFakeServer<FakeMem0State>({
    name: 'fake Mem0 server',
    ...(options.apiKey
      ? { auth: { type: 'header' as const, name: 'X-API-Key', value: options.apiKey } }
      : {}),
    state: newState,
    errorBody: (_status, message) => ({ detail: message }),
  });
  const { route, controls } = holdableRoutes(server);
  const bad = (message: string, status = 400) => reply.json({ detail: message }, status);
  const body = (req: FakeRequest): Body =>
    typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Body) : {};
  const wire = toWire;

  route('POST', '/memories', (req, state) => {
    const input = body(req);
    if (!Array.isArray(input.messages) || input.messages.length === 0)
      return bad('messages must be a non-empty list', 422);
    const entities = entitiesOf((key) => input[key]);
    if (Object.keys(entities).length === 0)
      return bad('At least one identifier (user_id, agent_id, run_id) is required.');
    const metadata =
      typeof input.metadata === 'object' && input.metadata !== null ? (input.metadata as Body) : null;
    const added = addMemories(state, {
      messages: input.messages,
      infer: input.infer !== false,
      entities,
      metadata,
      now: now(),
    });
    return reply.json({ results: added.map((m) => ({ id: m.id, memory: m.memory, event: 'ADD' })) });
  });

  route('GET', '/memories', (req, state) => {
    const entities = entitiesOf((key) => req.query.get(key));
    if (Object.keys(entities).length === 0) return bad('At least one identifier is required.');
    return reply.json({ results: state.memories.filter((m) => matchesFilter(m, entities)).map(wire) });
  });

  route('POST', '/search', (req, state) => {
    const input = body(req);
    if (typeof input.query !== 'string') return bad('query is required', 422);
    const filters = {
      ...entitiesOf((key) => input[key]),
      ...(typeof input.filters === 'object' && input.filters ? (input.filters as Body) : {}),
    };
    if (!namesEntity(filters)) return bad('At least one identifier is required.');
    const topK =
      typeof input.top_k === 'number' ? input.top_k : typeof input.limit === 'number' ? input.limit : 10;
    const hits = searchMemories(
      state.memories.filter((m) => matchesFilter(m, filters)),
      input.query,
      { topK, threshold: 0 },
    );
    return reply.json({ results: hits.map(wire) });
  });

  const withMemory =
    (
      handler: (req: FakeRequest, state: FakeMem0State, memory: FakeMemory) => ReturnType<typeof reply.json>,
    ) =>
    (req: FakeRequest, state: FakeMem0State) => {
      const memory = state.memories.find((m) => m.id === req.params.id);
      return memory ? handler(req, state, memory) : bad('Memory not found', 404);
    };

  route(
    'GET',
    '/memories/:id',
    withMemory((_req, _state, memory) => reply.json(wire(memory))),
  );
  route(
    'GET',
    '/memories/:id/history',
    withMemory((_req, state, memory) => reply.json(state.history.filter((h) => h.memory_id === memory.id))),
  );
  route(
    'PUT',
    '/memories/:id',
    withMemory((req, state, memory) => {
      const text = body(req).text;
      if (typeof text !== 'string' || text === '') return bad('text is required', 422);
      updateMemory(state, memory, { text }, now());
      return reply.json({ message: 'Memory updated successfully!' });
    }),
  );
  route(
    'DELETE',
    '/memories/:id',
    withMemory((_req, state, memory) => {
      deleteMemory(state, memory, now());
      return reply.json({ message: 'Memory deleted successfully' });
    }),
  );
  route('DELETE', '/memories', (req, state) => {
    const entities = entitiesOf((key) => req.query.get(key));
    if (Object.keys(entities).length === 0) return bad('At least one identifier is required.');
    state.memories = state.memories.filter((m) => !matchesFilter(m, entities));
    return reply.json({ message: 'All relevant memories deleted' });
  });
  return Object.assign(server, controls);
}
