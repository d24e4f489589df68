import {
  type FakeRequest,
  type FakeServer,
  intParam,
  paginate,
  reply,
  startFakeServer,
} from '@hermes-memory/testkit/http';
import { type HoldControls, holdableRoutes } from './holds';
import {
  addMemories,
  deleteMemory,
  ENTITY_KEYS,
  entitiesOf,
  type FakeMem0State,
  type FakeMemory,
  matchesFilter,
  namesEntity,
  newState,
  nextUuid,
  searchMemories,
  toWire,
  UUID,
  updateMemory,
} from './memory-store';

export interface FakeMem0PlatformOptions {
  /** The key the fake accepts as `Authorization: Token <key>`. Default `m0-test-key`. */
  apiKey?: string;
  /** The time stamped on memories. Default: the real clock. */
  now?: () => Date;
  /** Answer adds `PENDING` and store nothing until `processPending()`. Default false (stored at once). */
  deferAdds?: boolean;
}

export interface FakeMem0Platform extends FakeServer<FakeMem0State>, HoldControls {
  /** Run the queued adds of `deferAdds` (the Platform's background extraction). */
  processPending(): number;
}

type Body = Record<string, unknown>;

/**
 * A protocol-faithful fake of the Mem0 Platform API (api.mem0.ai), for the official `mem0ai`
 * `MemoryClient`: `GET /v1/ping/`, asynchronous `POST /v3/memories/add/` with events (and the
 * optional `timestamp`, Unix seconds, that memories are recorded at instead of now), `POST
 * /v3/memories/search/` (filters required), paginated `POST /v3/memories/`, `GET/PUT/DELETE
 * /v1/memories/{id}/` (ids are UUIDs), `DELETE /v1/memories/`, history. `Token` auth, FastAPI-style
 * `{detail}` errors. Extraction and search are simple stand-ins (sentences, word overlap).
 */
export async function startFakeMem0Platform(
  options: FakeMem0PlatformOptions = {},
): Promise<FakeMem0Platform> {
  const apiKey = options.apiKey ?? 'm0-test-key';
  const now = () => (options.now ? options.now() : new Date()).toISOString();
  const pending: Array<() => void> = [];
  const server = await startFakeServer<FakeMem0State>({
    name: 'fake Mem0 Platform',
    auth: { type: 'token', token: apiKey },
    state: newState,
    errorBody: (_status, message) => ({ detail: message }),
  });
  const { route, controls } = holdableRoutes(server);
  const bad = (message: string, status = 400) => reply.json({ detail: message }, status);
  const body = (req: FakeRequest): Body =>
    typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Body) : {};
  const wire = toWire;
  const find = (state: FakeMem0State, id: string) => state.memories.find((m) => m.id === id);

  route('GET', '/v1/ping/', () =>
    reply.json({
      status: 'ok',
      org_id: 'org-fake',
      project_id: 'project-fake',
      user_email: 'developer@example.com',
    }),
  );

  route('POST', '/v3/memories/add/', (req, state) => {
    const input = body(req);
    const messages = input.messages;
    if (!Array.isArray(messages) || messages.length === 0) return bad('messages must be a non-empty list');
    const entities = entitiesOf((key) => input[key]);
    if (Object.keys(entities).length === 0)
      return bad('At least one of user_id, agent_id, app_id or run_id is required.');
    const metadata =
      typeof input.metadata === 'object' && input.metadata !== null ? (input.metadata as Body) : null;
    // Memory timestamps: a Unix time (seconds) the memories are recorded at instead of now.
    const timestamp = input.timestamp;
    if (
      timestamp !== undefined &&
      timestamp !== null &&
      !(typeof timestamp === 'number' && Number.isFinite(timestamp) && timestamp >= 0)
    )
      return bad('timestamp must be a Unix timestamp in seconds');
    const at =
      typeof timestamp === 'number' ? new Date(Math.floor(timestamp) * 1000).toISOString() : undefined;
    const event = {
      id: nextUuid(state),
      status: 'PENDING' as 'PENDING' | 'SUCCEEDED',
      results: [] as FakeMem0State['events'][number]['results'],
    };
    state.events.push(event);
    const run = () => {
      const added = addMemories(state, {
        messages,
        infer: input.infer !== false,
        entities,
        metadata,
        now: at ?? now(),
      });
      event.status = 'SUCCEEDED';
      event.results = added.map((m) => ({ id: m.id, event: 'ADD', data: { memory: m.memory } }));
    };
    if (options.deferAdds) pending.push(run);
    else run();
    return reply.json({
      message: 'Memory processing has been queued for background execution',
      status: 'PENDING',
      event_id: event.id,
    });
  });

  route('GET', '/v1/event/:id/', (req, state) => {
    const event = state.events.find((e) => e.id === req.params.id);
    return event ? reply.json(event) : bad('Event not found', 404);
  });

  route('POST', '/v3/memories/search/', (req, state) => {
    const input = body(req);
    if (typeof input.query !== 'string' || input.query.trim() === '') return bad('query is required');
    if (!namesEntity(input.filters))
      return bad('filters must name at least one of user_id, agent_id, app_id or run_id.');
    const filters = input.filters as Body;
    const topK = typeof input.top_k === 'number' ? input.top_k : 10;
    const threshold = typeof input.threshold === 'number' ? input.threshold : 0;
    const hits = searchMemories(
      state.memories.filter((m) => matchesFilter(m, filters)),
      input.query,
      { topK, threshold },
    );
    return reply.json({ results: hits.map(wire) });
  });

  route('POST', '/v3/memories/', (req, state) => {
    const input = body(req);
    if (!namesEntity(input.filters))
      return bad('filters must name at least one of user_id, agent_id, app_id or run_id.');
    const matching = state.memories.filter((m) => matchesFilter(m, input.filters as Body));
    const page = intParam(req.query, 'page', 1);
    const size = Math.min(1000, intParam(req.query, 'page_size', 100));
    const slice = paginate(matching, page, size);
    const link = (p: number) => `/v3/memories/?page=${p}&page_size=${slice.size}`;
    return reply.json({
      count: slice.total,
      next: slice.page < slice.pages ? link(slice.page + 1) : null,
      previous: slice.page > 1 ? link(slice.page - 1) : null,
      results: slice.items.map(wire),
    });
  });

  const withMemory =
    (
      handler: (req: FakeRequest, state: FakeMem0State, memory: FakeMemory) => ReturnType<typeof reply.json>,
    ) =>
    (req: FakeRequest, state: FakeMem0State) => {
      const id = req.params.id ?? '';
      if (!UUID.test(id)) return bad(`'${id}' is not a valid UUID.`);
      const memory = find(state, id);
      return memory ? handler(req, state, memory) : bad('Memory not found', 404);
    };

  route(
    'GET',
    '/v1/memories/:id/',
    withMemory((_req, _state, memory) => reply.json(wire(memory))),
  );

  route(
    'PUT',
    '/v1/memories/:id/',
    withMemory((req, state, memory) => {
      const input = body(req);
      if (input.text === undefined && input.metadata === undefined)
        return bad('text or metadata is required');
      updateMemory(
        state,
        memory,
        {
          ...(typeof input.text === 'string' ? { text: input.text } : {}),
          ...(typeof input.metadata === 'object' && input.metadata !== null
            ? { metadata: input.metadata as Body }
            : {}),
        },
        now(),
      );
      return reply.json(wire(memory));
    }),
  );

  route(
    'DELETE',
    '/v1/memories/:id/',
    withMemory((_req, state, memory) => {
      deleteMemory(state, memory, now());
      return reply.json({ message: 'Memory deleted successfully!' });
    }),
  );

  route(
    'GET',
    '/v1/memories/:id/history/',
    withMemory((_req, state, memory) => reply.json(state.history.filter((h) => h.memory_id === memory.id))),
  );

  route('DELETE', '/v1/memories/', (req, state) => {
    const filter: Body = {};
    for (const key of ENTITY_KEYS) {
      const value = req.query.get(key);
      if (value) filter[key] = value;
    }
    if (Object.keys(filter).length === 0)
      return bad('At least one of user_id, agent_id, app_id or run_id is required.');
    state.memories = state.memories.filter((m) => !matchesFilter(m, filter));
    return reply.json({ message: 'Memories deleted successfully!' });
  });

  return Object.assign(server, controls, {
    processPending(): number {
      const runs = pending.splice(0);
      for (const run of runs) run();
      return runs.length;
    },
  });
}
