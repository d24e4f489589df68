import { type FakeServer, type FakeServerOptions, reply, startFakeServer } from '@hermes-memory/testkit/http';

/** A stored document (`POST /v3/documents`) or an ingested conversation (`POST /v4/conversations`). */
export interface FakeSupermemoryDocument {
  id: string;
  customId: string | null;
  content: string;
  containerTags: string[];
  metadata: Record<string, unknown>;
  entityContext: string | null;
  /** `conversation` for ingests (keyed by conversationId), else `text`. */
  type: 'text' | 'conversation';
  messages?: { role: string; content: string }[];
  createdAt: string;
  updatedAt: string;
}

/** A memory extracted from a document: what search, profile and forget work on. */
export interface FakeSupermemoryMemory {
  id: string;
  documentId: string;
  memory: string;
  containerTag: string;
  /** Static profile facts come from explicit writes; dynamic ones from conversations. */
  kind: 'static' | 'dynamic';
  metadata: Record<string, unknown>;
  forgotten: boolean;
  updatedAt: string;
}

export interface FakeSupermemoryState {
  documents: FakeSupermemoryDocument[];
  memories: FakeSupermemoryMemory[];
  nextId: number;
}

export interface FakeSupermemoryOptions {
  /** The key accepted as `Authorization: Bearer <key>`. Default `test-supermemory-key`. */
  apiKey?: string;
  /** Timestamps of stored documents and memories (default `Date.now`): tests pass a fixed clock. */
  now?: () => number;
  server?: Pick<FakeServerOptions<FakeSupermemoryState>, 'faultFor' | 'secrets' | 'name'>;
}

/**
 * A conversation ingest the fake holds: received and recorded, but neither applied nor answered
 * until `release()` — a slow service that takes the request now and stores it later.
 */
export interface FakeSupermemoryHold {
  /** Resolves once the held request arrived. */
  readonly arrived: Promise<void>;
  /**
   * Apply the request and answer it (as the service would, late); with `status`, answer that
   * error instead and store nothing.
   */
  release(status?: number): void;
}

/** The fake: testkit's server plus holding conversation ingests. */
export type FakeSupermemory = FakeServer<FakeSupermemoryState> & {
  /** Hold the next `POST /v4/conversations` (after any queued fault) until released. */
  holdIngest(): FakeSupermemoryHold;
};

export const FAKE_SUPERMEMORY_KEY = 'test-supermemory-key';
/** The service's rule for container tags: letters, digits, `-`, `_`, `.`; at most 100. */
const TAG_PATTERN = /^[A-Za-z0-9_.-]{1,100}$/;
const SEARCH_MODES = new Set(['hybrid', 'memories', 'documents']);
/** Dynamic profile facts: the latest user messages of ingested conversations. */
const DYNAMIC_FACTS = 5;

/**
 * A protocol-faithful fake of the Supermemory API (the routes `supermemory` 4.25.4 calls, with its
 * bodies, Bearer auth and `{"error": …}` error bodies), on 127.0.0.1 with a port of its own.
 * Built on testkit's `startFakeServer`: recordings with the key redacted, per-route faults
 * (`fail({type: 'status', status: 503, retryAfter: 1})`, hangs, resets, malformed bodies).
 *
 * Extraction is deliberately simple and deterministic: each document's text (a conversation's
 * user messages) becomes memories; explicit documents feed the static profile, conversations the
 * dynamic one; search scores shared words (rarer words count more) as a 0–1 similarity.
 *
 * - `POST /v3/documents` `{content, containerTag?|containerTags?, metadata?, entityContext?, customId?}` → `{id, status}` (a known customId updates)
 * - `POST /v3/documents/list` `{containerTags?, limit?, page?, includeContent?}` → `{memories, pagination}`
 * - `DELETE /v3/documents/:id` → 204
 * - `POST /v4/search` `{q, containerTag?, limit?, searchMode?, threshold?}` → `{results, timing, total}`
 * - `POST /v4/profile` `{containerTag, q?}` → `{profile: {static, dynamic}, searchResults?}`
 * - `DELETE /v4/memories` `{containerTag, id?|content?}` → `{id, forgotten: true}`
 * - `POST /v4/conversations` `{conversationId, messages, containerTags?, metadata?}` → `{id, status}` (upsert by conversationId)
 *
 * `holdIngest()` holds the next conversation ingest open: a service that takes a request and
 * stores it only later, so a test can let newer requests overtake it.
 */
export async function startFakeSupermemory(options: FakeSupermemoryOptions = {}): Promise<FakeSupermemory> {
  const now = options.now ?? Date.now;
  const stamp = () => new Date(now()).toISOString();
  const server = await startFakeServer<FakeSupermemoryState>({
    name: 'fake Supermemory',
    ...options.server,
    auth: { type: 'bearer', token: options.apiKey ?? FAKE_SUPERMEMORY_KEY },
    errorBody: (_status, message) => ({ error: message }),
    state: () => ({ documents: [], memories: [], nextId: 1 }),
  });

  const invalid = (message: string) => reply.json({ error: message }, 400);

  server.route('POST', '/v3/documents', (req, state) => {
    const body = record(req.body);
    if (typeof body.content !== 'string' || body.content.trim() === '') return invalid('content is required');
    const tags = containerTags(body);
    if (typeof tags === 'string') return invalid(tags);
    const metadata = record(body.metadata);
    const bad = badMetadata(metadata);
    if (bad) return invalid(bad);
    const time = stamp();
    const customId = typeof body.customId === 'string' && body.customId !== '' ? body.customId : null;
    // A known customId updates its document instead of adding one (the service's dedupe key).
    const existing = customId ? state.documents.find((d) => d.customId === customId) : undefined;
    if (existing) {
      existing.content = body.content;
      existing.containerTags = tags;
      existing.metadata = metadata;
      existing.updatedAt = time;
      state.memories = state.memories.filter((m) => m.documentId !== existing.id);
      for (const tag of tags) addMemory(state, existing, body.content.trim(), tag, 'static', time);
      return reply.json({ id: existing.id, status: 'queued' });
    }
    const doc: FakeSupermemoryDocument = {
      id: `doc_${state.nextId++}`,
      customId,
      content: body.content,
      containerTags: tags,
      metadata,
      entityContext: typeof body.entityContext === 'string' ? body.entityContext : null,
      type: 'text',
      createdAt: time,
      updatedAt: time,
    };
    state.documents.push(doc);
    for (const tag of tags) addMemory(state, doc, body.content.trim(), tag, 'static', time);
    return reply.json({ id: doc.id, status: 'queued' });
  });

  server.route('POST', '/v3/documents/list', (req, state) => {
    const body = record(req.body);
    const tags = Array.isArray(body.containerTags) ? body.containerTags.map(String) : null;
    const limit = clampInt(body.limit, 50, 1, 1100);
    const page = clampInt(body.page, 1, 1, 1_000_000);
    const matching = state.documents
      .filter((d) => !tags || d.containerTags.some((t) => tags.includes(t)))
      .sort(
        (a, b) =>
          (body.order === 'asc' ? 1 : -1) *
          (a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id, undefined, { numeric: true })),
      );
    const slice = matching.slice((page - 1) * limit, page * limit);
    return reply.json({
      memories: slice.map((d) => ({
        id: d.id,
        customId: d.customId,
        title: null,
        summary: null,
        status: 'done',
        type: d.type,
        metadata: d.metadata,
        containerTags: d.containerTags,
        createdAt: d.createdAt,
        updatedAt: d.updatedAt,
        ...(body.includeContent === true ? { content: d.content } : {}),
      })),
      pagination: {
        currentPage: page,
        limit,
        totalItems: matching.length,
        totalPages: Math.max(1, Math.ceil(matching.length / limit)),
      },
    });
  });

  server.route('DELETE', '/v3/documents/:id', (req, state) => {
    const index = state.documents.findIndex((d) => d.id === req.params.id || d.customId === req.params.id);
    if (index < 0) return reply.json({ error: 'Document not found' }, 404);
    const [doc] = state.documents.splice(index, 1);
    state.memories = state.memories.filter((m) => m.documentId !== doc?.id);
    return reply.empty(204);
  });

  server.route('POST', '/v4/search', (req, state) => {
    const body = record(req.body);
    if (typeof body.q !== 'string' || body.q.trim() === '') return invalid('q is required');
    if (body.searchMode !== undefined && !SEARCH_MODES.has(String(body.searchMode)))
      return invalid('searchMode must be one of hybrid, memories, documents');
    const tag = body.containerTag === undefined ? undefined : String(body.containerTag);
    const limit = clampInt(body.limit, 10, 1, 100);
    const threshold = typeof body.threshold === 'number' ? body.threshold : 0;
    const results = search(live(state, tag), body.q, limit, threshold);
    return reply.json({ results, timing: 1, total: results.length });
  });

  server.route('POST', '/v4/profile', (req, state) => {
    const body = record(req.body);
    if (typeof body.containerTag !== 'string' || !TAG_PATTERN.test(body.containerTag))
      return invalid('containerTag is required');
    const memories = live(state, body.containerTag);
    const statics = memories.filter((m) => m.kind === 'static').map((m) => m.memory);
    const dynamics = memories
      .filter((m) => m.kind === 'dynamic')
      .slice(-DYNAMIC_FACTS)
      .reverse()
      .map((m) => m.memory);
    const q = typeof body.q === 'string' && body.q.trim() !== '' ? body.q : undefined;
    return reply.json({
      profile: { static: statics, dynamic: dynamics },
      ...(q ? { searchResults: { results: search(memories, q, 10, 0), timing: 1, total: 0 } } : {}),
    });
  });

  server.route('DELETE', '/v4/memories', (req, state) => {
    const body = record(req.body);
    if (typeof body.containerTag !== 'string') return invalid('containerTag is required');
    const found = live(state, body.containerTag).find((m) =>
      typeof body.id === 'string' ? m.id === body.id : m.memory === body.content,
    );
    if (!found) return reply.json({ error: 'Memory not found' }, 404);
    found.forgotten = true;
    return reply.json({ id: found.id, forgotten: true });
  });

  const holds: Array<{ arrive: () => void; released: Promise<number | undefined> }> = [];
  const holdIngest = (): FakeSupermemoryHold => {
    let arrive = () => {};
    let release: (status?: number) => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      arrive = resolve;
    });
    const released = new Promise<number | undefined>((resolve) => {
      release = resolve;
    });
    holds.push({ arrive, released });
    return { arrived, release };
  };

  server.route('POST', '/v4/conversations', async (req, state) => {
    const hold = holds.shift();
    if (hold) {
      hold.arrive();
      const status = await hold.released;
      if (status !== undefined) return reply.json({ error: `Injected late answer: HTTP ${status}` }, status);
    }
    const body = record(req.body);
    if (typeof body.conversationId !== 'string' || body.conversationId === '')
      return invalid('conversationId is required');
    if (!Array.isArray(body.messages) || body.messages.length === 0) return invalid('messages are required');
    const messages: { role: string; content: string }[] = [];
    for (const raw of body.messages) {
      const m = record(raw);
      if (typeof m.role !== 'string' || typeof m.content !== 'string')
        return invalid('each message needs a role and a string content');
      messages.push({ role: m.role, content: m.content });
    }
    const tags = containerTags(body);
    if (typeof tags === 'string') return invalid(tags);
    const time = stamp();
    // One document per conversation: a repeated ingest replaces it (and its memories).
    const existing = state.documents.find(
      (d) => d.type === 'conversation' && d.customId === body.conversationId,
    );
    const doc: FakeSupermemoryDocument = existing ?? {
      id: `doc_${state.nextId++}`,
      customId: body.conversationId,
      content: '',
      containerTags: tags,
      metadata: {},
      entityContext: null,
      type: 'conversation',
      createdAt: time,
      updatedAt: time,
    };
    doc.messages = messages;
    doc.content = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
    doc.metadata = record(body.metadata);
    doc.containerTags = tags;
    doc.updatedAt = time;
    if (!existing) state.documents.push(doc);
    state.memories = state.memories.filter((m) => m.documentId !== doc.id);
    for (const tag of tags) {
      for (const m of messages)
        if (m.role === 'user') addMemory(state, doc, m.content.trim(), tag, 'dynamic', time);
    }
    return reply.json({ id: doc.id, status: 'queued' });
  });

  return Object.assign(server, { holdIngest });
}

function addMemory(
  state: FakeSupermemoryState,
  doc: FakeSupermemoryDocument,
  text: string,
  tag: string,
  kind: FakeSupermemoryMemory['kind'],
  time: string,
): void {
  if (text === '') return;
  state.memories.push({
    id: `mem_${state.nextId++}`,
    documentId: doc.id,
    memory: text,
    containerTag: tag,
    kind,
    metadata: doc.metadata,
    forgotten: false,
    updatedAt: time,
  });
}

function live(state: FakeSupermemoryState, tag: string | undefined): FakeSupermemoryMemory[] {
  return state.memories.filter((m) => !m.forgotten && (tag === undefined || m.containerTag === tag));
}

/** `containerTags` (or the older single `containerTag`), validated as the service does; default `sm_project_default`. */
function containerTags(body: Record<string, unknown>): string[] | string {
  const raw = Array.isArray(body.containerTags)
    ? body.containerTags
    : body.containerTag !== undefined
      ? [body.containerTag]
      : ['sm_project_default'];
  const tags = raw.map(String);
  for (const tag of tags) {
    if (!TAG_PATTERN.test(tag))
      return `containerTag '${tag}' is invalid: use letters, digits, '-', '_' and '.', at most 100 characters`;
  }
  return tags;
}

/** Metadata values must be strings, numbers, booleans or lists of strings. */
function badMetadata(metadata: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(metadata)) {
    const ok =
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      (Array.isArray(value) && value.every((v) => typeof v === 'string'));
    if (!ok) return `metadata.${key} must be a string, number, boolean or string array`;
  }
  return undefined;
}

/** Shared words, rarer ones counting more, as a 0–1 similarity; newest first on ties. */
function search(memories: readonly FakeSupermemoryMemory[], query: string, limit: number, threshold: number) {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) return [];
  const docs = memories.map((memory) => ({ memory, words: new Set(words(memory.memory)) }));
  const weight = (term: string) =>
    Math.log(1 + (docs.length + 1) / (1 + docs.filter((d) => d.words.has(term)).length));
  const total = terms.reduce((sum, t) => sum + weight(t), 0);
  return docs
    .map(({ memory, words: present }, index) => {
      const score = terms.filter((t) => present.has(t)).reduce((sum, t) => sum + weight(t), 0);
      return { memory, similarity: Math.round((score / total) * 100) / 100, index };
    })
    .filter((hit) => hit.similarity > 0 && hit.similarity >= threshold)
    .sort((a, b) => b.similarity - a.similarity || b.index - a.index)
    .slice(0, limit)
    .map(({ memory, similarity }) => ({
      id: memory.id,
      memory: memory.memory,
      similarity,
      metadata: memory.metadata,
      updatedAt: memory.updatedAt,
      version: 1,
    }));
}

const STOPWORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it me my of on or the this to was we what when where who with you your'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function clampInt(value: unknown, fallback: number, min: number, max: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.trunc(n))) : fallback;
}
