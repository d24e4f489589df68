import {
  type FakeServer,
  type FakeServerOptions,
  intParam,
  reply,
  startFakeServer,
} from '@hermes-memory/testkit/http';

/** One stored entry, as the notebook keeps it. */
export interface FakeNotebookEntry {
  id: string;
  /** The public name the notebook shows ("Wandering Echo#4f2a1b"). */
  pseudonym: string;
  content: string;
  created_at: string;
}

export interface FakeNotebookState {
  entries: FakeNotebookEntry[];
}

export interface FakeNotebookOptions {
  /** The key that unlocks entries' text in search results (`?key=`). Default `notebook-dev-key`. */
  secretKey?: string;
  /** Entries present from the start, newest last. */
  entries?: ReadonlyArray<Pick<FakeNotebookEntry, 'pseudonym' | 'content'> & Partial<FakeNotebookEntry>>;
  /** Answer searches with a bare list instead of `{results: [...]}` (the reference accepts both). */
  bareList?: boolean;
  /** The clock for `created_at`. Default `Date.now`. */
  now?: () => number;
  /** Passed to `startFakeServer` (faults per request, a name). */
  server?: Pick<FakeServerOptions<FakeNotebookState>, 'faultFor' | 'name'>;
}

export interface FakeNotebook extends FakeServer<FakeNotebookState> {
  readonly secretKey: string;
  /** Store an entry directly (test setup; `POST /api/entries` does the same over HTTP). */
  addEntry(pseudonym: string, content: string): FakeNotebookEntry;
}

export const FAKE_NOTEBOOK_KEY = 'notebook-dev-key';
const MAX_LIMIT = 50;

/**
 * A fake of the shared Hermes notebook the reference's hivemind searches (spec §5.6; the
 * notebook's skill documents the two calls): `GET /api/search?q=&limit=[&key=]` answers
 * `{results: [{id, pseudonym, created_at, content?}]}` — the entries whose text holds a query
 * word, best match first (more query words, then newer), at most `limit` (default 10, up to 50);
 * an entry's `content` only with the right `key` — and `POST /api/entries {content, secret_key}`
 * stores one (`{id}`, 201). A missing `q` is a 400. Unauthenticated, as the service is.
 */
export async function startFakeNotebook(options: FakeNotebookOptions = {}): Promise<FakeNotebook> {
  const secretKey = options.secretKey ?? FAKE_NOTEBOOK_KEY;
  const now = options.now ?? Date.now;
  let counter = 0;
  const entry = (pseudonym: string, content: string, extra: Partial<FakeNotebookEntry> = {}) => {
    counter += 1;
    return {
      id: extra.id ?? `e${counter.toString(16).padStart(6, '0')}`,
      pseudonym,
      content,
      created_at: extra.created_at ?? new Date(now()).toISOString(),
    };
  };
  const server = await startFakeServer<FakeNotebookState>({
    name: 'fake Hermes notebook',
    ...options.server,
    secrets: [secretKey],
    errorBody: (_status, message) => ({ error: message }),
    state: () => ({
      entries: (options.entries ?? []).map((e) => entry(e.pseudonym, e.content, e)),
    }),
  });

  server.route('GET', '/api/search', (req, state) => {
    const q = (req.query.get('q') ?? '').trim();
    if (q === '') return reply.json({ error: "Missing query parameter 'q'." }, 400);
    const limit = Math.min(MAX_LIMIT, Math.max(1, intParam(req.query, 'limit', 10)));
    const unlocked = req.query.get('key') === secretKey;
    const words = [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
    const scored = state.entries
      .map((e, index) => {
        const text = e.content.toLowerCase();
        return { e, index, score: words.filter((w) => text.includes(w)).length };
      })
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || b.index - a.index)
      .slice(0, limit)
      .map(({ e }) => ({
        id: e.id,
        pseudonym: e.pseudonym,
        created_at: e.created_at,
        ...(unlocked ? { content: e.content } : {}),
      }));
    return reply.json(options.bareList ? scored : { results: scored, count: scored.length });
  });

  server.route('POST', '/api/entries', (req, state) => {
    const body = req.body as { content?: unknown; secret_key?: unknown } | undefined;
    // Each entry's edit key is the writer's secret: never kept in the recording.
    if (typeof body?.secret_key === 'string' && body.secret_key !== '') {
      const secret = body.secret_key;
      req.recorded.body = { ...(req.recorded.body as object), secret_key: '[redacted]' };
      req.recorded.rawBody = req.recorded.rawBody.split(secret).join('[redacted]');
    }
    if (typeof body?.content !== 'string' || body.content.trim() === '')
      return reply.json({ error: "'content' must be a non-empty string." }, 400);
    if (typeof body.secret_key !== 'string' || body.secret_key === '')
      return reply.json({ error: "'secret_key' is required." }, 400);
    const stored = entry(`Writer#${(state.entries.length + 1).toString(16).padStart(6, '0')}`, body.content);
    state.entries.push(stored);
    return reply.json({ id: stored.id }, 201);
  });

  const fake = server as FakeNotebook;
  Object.defineProperties(fake, {
    secretKey: { value: secretKey },
    addEntry: {
      value: (pseudonym: string, content: string): FakeNotebookEntry => {
        const stored = entry(pseudonym, content);
        fake.state.entries.push(stored);
        return stored;
      },
    },
  });
  return fake;
}
