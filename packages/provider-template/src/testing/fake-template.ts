import {
  type FakeServer,
  type FakeServerOptions,
  intParam,
  paginate,
  reply,
  startFakeServer,
} from '@hermes-memory/testkit/http';

/** One stored memory, as the backend keeps it. */
export interface FakeTemplateMemory {
  id: string;
  content: string;
  kind: 'turn' | 'note' | 'mirror';
  /** `memory` or `user` for mirrors of the builtin files. */
  target?: string;
  session_id?: string;
  created_at: string;
}

export interface FakeTemplateState {
  memories: FakeTemplateMemory[];
  /** The next id's number (ids are never reused, as a real backend's). */
  nextId: number;
}

export interface FakeTemplateOptions {
  /** The key the fake accepts as `Authorization: Bearer <key>`. Default `test-template-key`. */
  apiKey?: string;
  /** Passed to `startFakeServer` (faults per request, more secrets, a name). */
  server?: Pick<FakeServerOptions<FakeTemplateState>, 'faultFor' | 'secrets' | 'name'>;
}

export const FAKE_TEMPLATE_KEY = 'test-template-key';
const KINDS = new Set(['turn', 'note', 'mirror']);

/**
 * A protocol-faithful fake of the template's backend, for this package's tests and for anyone
 * testing code that talks to it: the same routes, auth, error bodies and status codes as the
 * service, on 127.0.0.1 with a port of its own. Built on testkit's `startFakeServer`, so it records
 * requests (keys redacted), takes faults (`fail({type: 'status', status: 503, retryAfter: 1})`,
 * hangs, resets, malformed bodies) and dumps its state for conformance snapshots.
 *
 * The API, FastAPI-style (`{"detail": "..."}` errors, Bearer auth):
 * - `GET /v1/health` (no key) → `{status: 'ok'}`
 * - `POST /v1/memories` `{content, kind?, target?, session_id?}` → 201 the memory
 * - `POST /v1/memories/search` `{query, limit?}` → `{results: [{...memory, score}]}`
 * - `GET /v1/memories?kind=&target=&page=&size=` → `{items, page, size, total, pages}`
 * - `DELETE /v1/memories/:id` → 204, or 404
 */
export async function startFakeTemplate(
  options: FakeTemplateOptions = {},
): Promise<FakeServer<FakeTemplateState>> {
  const server = await startFakeServer<FakeTemplateState>({
    name: 'fake template backend',
    ...options.server,
    auth: { type: 'bearer', token: options.apiKey ?? FAKE_TEMPLATE_KEY },
    publicRoutes: ['GET /v1/health'],
    errorBody: (_status, message) => ({ detail: message }),
    state: () => ({ memories: [], nextId: 1 }),
  });

  server.route('GET', '/v1/health', () => reply.json({ status: 'ok' }));

  server.route('POST', '/v1/memories', (req, state) => {
    const body = asRecord(req.body);
    const content = body.content;
    if (typeof content !== 'string' || content.trim() === '')
      return reply.json({ detail: 'content must be a non-empty string' }, 422);
    const kind = body.kind ?? 'note';
    if (typeof kind !== 'string' || !KINDS.has(kind))
      return reply.json({ detail: `kind must be one of ${[...KINDS].join(', ')}` }, 422);
    const memory: FakeTemplateMemory = {
      id: `mem_${state.nextId++}`,
      content,
      kind: kind as FakeTemplateMemory['kind'],
      ...(typeof body.target === 'string' ? { target: body.target } : {}),
      ...(typeof body.session_id === 'string' ? { session_id: body.session_id } : {}),
      created_at: new Date().toISOString(),
    };
    state.memories.push(memory);
    return reply.json(memory, 201);
  });

  server.route('POST', '/v1/memories/search', (req, state) => {
    const body = asRecord(req.body);
    if (typeof body.query !== 'string') return reply.json({ detail: 'query must be a string' }, 422);
    const limit = typeof body.limit === 'number' && body.limit >= 1 ? Math.min(100, body.limit) : 10;
    return reply.json({ results: search(state.memories, body.query, limit) });
  });

  server.route('GET', '/v1/memories', (req, state) => {
    const kind = req.query.get('kind');
    const target = req.query.get('target');
    const matching = state.memories.filter(
      (m) => (kind === null || m.kind === kind) && (target === null || m.target === target),
    );
    return reply.json(paginate(matching, intParam(req.query, 'page', 1), intParam(req.query, 'size', 50)));
  });

  server.route('DELETE', '/v1/memories/:id', (req, state) => {
    const index = state.memories.findIndex((m) => m.id === req.params.id);
    if (index < 0) return reply.json({ detail: `memory ${req.params.id} not found` }, 404);
    state.memories.splice(index, 1);
    return reply.empty(204);
  });

  return server;
}

/** Keyword search: each shared word scores, rarer words more; newest first on ties. */
function search(memories: readonly FakeTemplateMemory[], query: string, limit: number) {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) return [];
  const documents = memories.map((memory) => ({ memory, words: new Set(words(memory.content)) }));
  const scored = documents
    .map(({ memory, words: present }, index) => {
      let score = 0;
      for (const term of terms) {
        if (!present.has(term)) continue;
        const df = documents.filter((d) => d.words.has(term)).length;
        score += Math.log(1 + documents.length / df);
      }
      return { memory, score, index };
    })
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .slice(0, limit);
  return scored.map(({ memory, score }) => ({ ...memory, score: Math.round(score * 1000) / 1000 }));
}

const STOPWORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it me my of on or the this to was we what when where who with you your'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
