import {
  type FakeRequest,
  type FakeServer,
  type FakeServerOptions,
  reply,
  startFakeServer,
} from '@hermes-memory/testkit/http';

/** One stored memory, as the fake keeps it. */
export interface FakeRetaindbMemory {
  id: string;
  project: string;
  user_id: string;
  session_id: string;
  content: string;
  memory_type: string;
  importance: number;
  /** `session` (ingested turn), `memory` (an explicit write), `file` (an ingested file). */
  source: string;
  created_at: string;
}

/** One accepted `POST /v1/memory/ingest/session`. */
export interface FakeRetaindbIngest {
  idempotency_key: string | null;
  project: string;
  user_id: string;
  session_id: string;
  messages: Array<{ role: string; content: string; timestamp?: string }>;
}

export interface FakeRetaindbFile {
  id: string;
  name: string;
  path: string;
  scope: string;
  mime_type: string;
  rdb_uri: string;
  size: number;
  content: string;
}

export interface FakeRetaindbState {
  memories: FakeRetaindbMemory[];
  ingests: FakeRetaindbIngest[];
  /** Resent ingests answered from the idempotency record instead of being stored again. */
  duplicatesSuppressed: number;
  /** Agent id → SOUL.md seeds. */
  seeds: Record<string, string[]>;
  files: FakeRetaindbFile[];
  nextId: number;
}

export interface FakeRetaindbOptions {
  /** The key the fake accepts (Bearer, and X-API-Key where sent). Default `test-retaindb-key`. */
  apiKey?: string;
  /** Answer 404 on the current routes that have a legacy twin (profile, add, delete): an older API. */
  legacyOnly?: boolean;
  /**
   * Hold the answer to an ingest this long AFTER storing it: widens the window in which a crash
   * leaves a row the service already has (what idempotency keys are for). Default 0.
   */
  ingestReplyDelayMs?: number;
  /**
   * `false` ignores the Idempotency-Key header, as an API without idempotency keys would: a
   * resent row is stored again (at-least-once delivery). Default true.
   */
  idempotencyKeys?: boolean;
  /** Passed to `startFakeServer` (faults per request, more secrets, a name). */
  server?: Pick<FakeServerOptions<FakeRetaindbState>, 'faultFor' | 'secrets' | 'name'>;
}

export const FAKE_RETAINDB_KEY = 'test-retaindb-key';
const MEMORY_TYPES = new Set(['factual', 'preference', 'goal', 'instruction', 'event', 'opinion']);

/**
 * A protocol-faithful fake of the RetainDB REST API (`hermes-plugins-a.md` §4.3) on 127.0.0.1,
 * built on testkit's `startFakeServer`: it records requests (keys redacted), takes faults and
 * dumps its state. Bearer auth on every route; a wrong `X-API-Key` is refused where sent.
 *
 * Ingest de-duplicates by the `Idempotency-Key` header: a resent key is answered from the first
 * result and stored once (`duplicatesSuppressed` counts them). Error bodies are `{message}`.
 */
export async function startFakeRetaindb(
  options: FakeRetaindbOptions = {},
): Promise<FakeServer<FakeRetaindbState>> {
  const key = options.apiKey ?? FAKE_RETAINDB_KEY;
  const server = await startFakeServer<FakeRetaindbState>({
    name: 'fake RetainDB',
    ...options.server,
    auth: { type: 'bearer', token: key },
    errorBody: (_status, message) => ({ message }),
    state: () => ({ memories: [], ingests: [], duplicatesSuppressed: 0, seeds: {}, files: [], nextId: 1 }),
  });
  const nextId = (state: FakeRetaindbState, prefix: string) => `${prefix}_${state.nextId++}`;
  const apiKeyOk = (req: FakeRequest) => {
    const sent = req.headers['x-api-key'];
    return sent === undefined || sent === key;
  };
  const legacyGone = () => reply.json({ message: 'Not Found' }, 404);
  const route = (method: string, pattern: string, handler: Parameters<typeof server.route>[2]) =>
    server.route(method, pattern, (req, state) =>
      apiKeyOk(req) ? handler(req, state) : reply.json({ message: 'invalid X-API-Key' }, 401),
    );

  const add = (
    state: FakeRetaindbState,
    body: Record<string, unknown>,
    source: string,
  ): FakeRetaindbMemory | string => {
    const content = body.content;
    if (typeof content !== 'string' || content.trim() === '') return 'content must be a non-empty string';
    const type = body.memory_type ?? 'factual';
    if (typeof type !== 'string' || !MEMORY_TYPES.has(type)) return `invalid memory_type '${String(type)}'`;
    const memory: FakeRetaindbMemory = {
      id: nextId(state, 'mem'),
      project: str(body.project, 'default'),
      user_id: str(body.user_id, 'default'),
      session_id: str(body.session_id, ''),
      content,
      memory_type: type,
      importance: typeof body.importance === 'number' ? body.importance : 0.7,
      source,
      created_at: new Date().toISOString(),
    };
    state.memories.push(memory);
    return memory;
  };
  const remove = (state: FakeRetaindbState, id: string) => {
    const index = state.memories.findIndex((m) => m.id === id);
    if (index < 0) return reply.json({ message: `memory ${id} not found` }, 404);
    state.memories.splice(index, 1);
    return reply.json({ deleted: true, id });
  };
  const scoped = (state: FakeRetaindbState, project: string | null, userId: string | null) =>
    state.memories.filter(
      (m) => (project === null || m.project === project) && (userId === null || m.user_id === userId),
    );

  route('POST', '/v1/context/query', (req, state) => {
    const body = record(req.body);
    if (typeof body.query !== 'string') return reply.json({ message: 'query must be a string' }, 422);
    const results = search(
      scoped(state, str(body.project, 'default'), str(body.user_id, 'default')),
      body.query,
      8,
    );
    return reply.json({ results, context: results.map((r) => r.content).join('\n') });
  });

  route('POST', '/v1/memory/search', (req, state) => {
    const body = record(req.body);
    if (typeof body.query !== 'string') return reply.json({ message: 'query must be a string' }, 422);
    const topK = typeof body.top_k === 'number' ? Math.max(1, Math.min(100, body.top_k)) : 8;
    const results = search(
      scoped(state, str(body.project, 'default'), str(body.user_id, 'default')),
      body.query,
      topK,
    );
    return reply.json({ results, total: results.length });
  });

  route('GET', '/v1/memory/profile/:userId', (req, state) => {
    if (options.legacyOnly) return legacyGone();
    const memories = scoped(state, req.query.get('project') ?? 'default', req.params.userId ?? 'default')
      .filter((m) => m.memory_type === 'preference' || m.memory_type === 'factual')
      .reverse();
    return reply.json({ user_id: req.params.userId, memories });
  });

  route('GET', '/v1/memories', (req, state) => {
    const limit = Number(req.query.get('limit') ?? 200);
    const memories = scoped(state, req.query.get('project'), req.query.get('user_id'))
      .slice(-limit)
      .reverse();
    return reply.json({ memories });
  });

  route('POST', '/v1/memory', (req, state) => {
    if (options.legacyOnly) return legacyGone();
    const body = record(req.body);
    if (body.write_mode !== undefined && body.write_mode !== 'sync' && body.write_mode !== 'async') {
      return reply.json({ message: 'invalid write_mode' }, 422);
    }
    const memory = add(state, body, 'memory');
    return typeof memory === 'string'
      ? reply.json({ message: memory }, 422)
      : reply.json({ memory, id: memory.id }, 201);
  });

  route('POST', '/v1/memories', (req, state) => {
    const body = record(req.body);
    if ('write_mode' in body) return reply.json({ message: 'write_mode is not accepted here' }, 422);
    const memory = add(state, body, 'memory');
    return typeof memory === 'string'
      ? reply.json({ message: memory }, 422)
      : reply.json({ memory, id: memory.id }, 201);
  });

  route('DELETE', '/v1/memory/:id', (req, state) =>
    options.legacyOnly ? legacyGone() : remove(state, req.params.id ?? ''),
  );
  route('DELETE', '/v1/memories/:id', (req, state) => remove(state, req.params.id ?? ''));

  route('POST', '/v1/memory/ingest/session', async (req, state) => {
    const body = record(req.body);
    if (!Array.isArray(body.messages)) return reply.json({ message: 'messages must be a list' }, 422);
    const header = req.headers['idempotency-key'];
    const idempotencyKey = typeof header === 'string' && header !== '' ? header : null;
    const honoured = options.idempotencyKeys !== false;
    if (honoured && idempotencyKey && state.ingests.some((i) => i.idempotency_key === idempotencyKey)) {
      state.duplicatesSuppressed++;
      return reply.json({ status: 'duplicate', idempotency_key: idempotencyKey });
    }
    const ingest: FakeRetaindbIngest = {
      idempotency_key: idempotencyKey,
      project: str(body.project, 'default'),
      user_id: str(body.user_id, 'default'),
      session_id: str(body.session_id, ''),
      messages: body.messages.map((m) => {
        const message = record(m);
        return {
          role: str(message.role, 'user'),
          content: str(message.content, ''),
          ...(typeof message.timestamp === 'string' ? { timestamp: message.timestamp } : {}),
        };
      }),
    };
    state.ingests.push(ingest);
    for (const message of ingest.messages) {
      if (message.content.trim() === '') continue;
      add(state, { ...ingest, content: message.content, memory_type: 'event' }, 'session');
    }
    if (options.ingestReplyDelayMs) await new Promise((r) => setTimeout(r, options.ingestReplyDelayMs));
    return reply.json({ status: 'ingested', messages: ingest.messages.length });
  });

  route('POST', '/v1/memory/profile/:userId/ask', (req, state) => {
    const body = record(req.body);
    if (typeof body.query !== 'string') return reply.json({ message: 'query must be a string' }, 422);
    if (!['low', 'medium', 'high'].includes(String(body.reasoning_level))) {
      return reply.json({ message: 'invalid reasoning_level' }, 422);
    }
    const hits = search(
      scoped(state, str(body.project, 'default'), req.params.userId ?? 'default'),
      body.query,
      3,
    );
    const answer = hits.length > 0 ? `Based on memory: ${hits.map((h) => h.content).join(' ')}` : '';
    return reply.json({ answer, reasoning_level: body.reasoning_level });
  });

  route('GET', '/v1/memory/agent/:agentId/model', (req, state) => {
    const seeds = state.seeds[req.params.agentId ?? ''] ?? [];
    const persona = seeds.at(-1)?.split('\n')[0] ?? '';
    return reply.json({
      agent_id: req.params.agentId,
      memory_count: seeds.length,
      persona,
      persistent_instructions: seeds.length > 0 ? ['Follow SOUL.md.'] : [],
      working_style: seeds.length > 0 ? 'concise' : '',
    });
  });

  route('POST', '/v1/memory/agent/:agentId/seed', (req, state) => {
    const body = record(req.body);
    if (typeof body.content !== 'string' || body.source !== 'soul_md') {
      return reply.json({ message: 'content and source are required' }, 422);
    }
    const agentId = req.params.agentId ?? '';
    const list = state.seeds[agentId] ?? [];
    state.seeds[agentId] = list;
    list.push(body.content);
    return reply.json({ seeded: true, memory_count: list.length });
  });

  route('POST', '/v1/files', (req, state) => {
    const form = parseMultipart(String(req.headers['content-type'] ?? ''), req.rawBody);
    const file = form.files.file;
    if (!file) return reply.json({ message: 'file is required' }, 422);
    const scope = form.fields.scope ?? 'PROJECT';
    if (!['USER', 'PROJECT', 'ORG'].includes(scope)) return reply.json({ message: 'invalid scope' }, 422);
    const id = nextId(state, 'file');
    const stored: FakeRetaindbFile = {
      id,
      name: file.name,
      path: form.fields.path ?? `/${file.name}`,
      scope,
      mime_type: file.type,
      rdb_uri: `rdb://files/${id}`,
      size: Buffer.byteLength(file.content),
      content: file.content,
    };
    state.files.push(stored);
    const { content: _content, ...meta } = stored;
    return reply.json({ file: meta }, 201);
  });

  route('GET', '/v1/files', (req, state) => {
    const prefix = req.query.get('prefix') ?? '';
    const limit = Number(req.query.get('limit') ?? 50);
    const files = state.files.filter((f) => f.path.startsWith(prefix)).slice(0, limit);
    return reply.json({ files: files.map(({ content: _c, ...meta }) => meta) });
  });

  const findFile = (state: FakeRetaindbState, id: string | undefined) => state.files.find((f) => f.id === id);
  route('GET', '/v1/files/:id', (req, state) => {
    const file = findFile(state, req.params.id);
    if (!file) return reply.json({ message: 'file not found' }, 404);
    const { content: _c, ...meta } = file;
    return reply.json({ file: meta });
  });
  route('GET', '/v1/files/:id/content', (req, state) => {
    const file = findFile(state, req.params.id);
    return file ? reply.text(file.content, 200) : reply.json({ message: 'file not found' }, 404);
  });
  route('POST', '/v1/files/:id/ingest', (req, state) => {
    const file = findFile(state, req.params.id);
    if (!file) return reply.json({ message: 'file not found' }, 404);
    const body = record(req.body);
    const chunks = file.content.split(/\n\s*\n/).filter((c) => c.trim() !== '');
    for (const chunk of chunks)
      add(state, { user_id: body.user_id, content: chunk, memory_type: 'factual' }, 'file');
    return reply.json({ ingested: true, memories: chunks.length });
  });
  route('DELETE', '/v1/files/:id', (req, state) => {
    const index = state.files.findIndex((f) => f.id === req.params.id);
    if (index < 0) return reply.json({ message: 'file not found' }, 404);
    state.files.splice(index, 1);
    return reply.json({ deleted: true });
  });

  return server;
}

/** Keyword search: each shared word scores, rarer words more; newest first on ties. */
function search(memories: readonly FakeRetaindbMemory[], query: string, limit: number) {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) return [];
  const documents = memories.map((memory) => ({ memory, words: new Set(words(memory.content)) }));
  return documents
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
    .slice(0, limit)
    .map(({ memory, score }) => ({ ...memory, score: Math.round(score * 1000) / 1000 }));
}

const STOPWORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it me my of on or the this to was we what when where who with you your'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
}

interface Multipart {
  fields: Record<string, string>;
  files: Record<string, { name: string; type: string; content: string }>;
}

/** A small multipart/form-data reader (text parts; what the upload tool sends). */
function parseMultipart(contentType: string, raw: string): Multipart {
  const out: Multipart = { fields: {}, files: {} };
  const boundary = /boundary=("?)([^";]+)\1/i.exec(contentType)?.[2];
  if (!boundary) return out;
  for (const part of raw.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const body = part.slice(split + 4).replace(/\r\n$/, '');
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    if (!name) continue;
    const filename = /filename="([^"]*)"/i.exec(head)?.[1];
    if (filename !== undefined) {
      const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? 'application/octet-stream';
      out.files[name] = { name: filename, type, content: body };
    } else {
      out.fields[name] = body;
    }
  }
  return out;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function str(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}
