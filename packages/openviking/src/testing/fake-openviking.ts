import {
  type FakeAuth,
  type FakeRequest,
  type FakeServer,
  type FakeServerOptions,
  reply,
  startFakeServer,
} from '@hermes-memory/testkit/http';
import {
  childrenOf,
  directoryAbstract,
  directoryOverview,
  ensureDir,
  extractMemories,
  type FakeOpenvikingState,
  type FakeSessionMessage,
  isUnder,
  nameOf,
  newState,
  normalizeUri,
  ROOT,
  writeFile,
} from './viking-tree';

export interface FakeOpenvikingOptions {
  /** A user key the fake accepts (as `X-API-Key` or Bearer). Without one, it runs keyless: tenant headers name the user. */
  apiKey?: string;
  /** A root key (admin routes answer only to it). */
  rootKey?: string;
  /** The user id `system/status` reports. Default `default`. */
  userId?: string;
  /** What `GET /health` says: a modern server, a legacy one (status only), or unhealthy. Default modern. */
  health?: 'modern' | 'legacy' | 'unhealthy' | 'not-openviking';
  /** Keyed requests must also carry tenant headers (a trusted-mode server). */
  trustedMode?: boolean;
  /** Listen on this port (a local server's configured one). Default: an ephemeral port. */
  port?: number;
  /** Passed to `startFakeServer` (faults per request, more secrets, a name). */
  server?: Pick<FakeServerOptions<FakeOpenvikingState>, 'faultFor' | 'secrets' | 'name'>;
}

export const FAKE_OPENVIKING_KEY = 'test-openviking-key';
export const FAKE_OPENVIKING_VERSION = '0.3.0-fake';

/** Envelope error codes per status, as the server names them. */
const CODES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

const ok = (result: unknown, status = 200) => reply.json({ status: 'ok', result }, status);
const error = (status: number, message: string) =>
  reply.json({ status: 'error', error: { code: CODES[status] ?? 'UNKNOWN', message } }, status);

/**
 * A protocol-faithful fake OpenViking server on 127.0.0.1 (testkit's fake-server base: requests
 * recorded with keys redacted, faults per route, state dumps). It models what the provider relies
 * on: the `{status, result, error: {code, message}}` envelope (errors included), the identity
 * probe (`/health`, `/openapi.json`), key and tenant headers (and trusted mode), the `viking://`
 * tree with generated directory summaries, content reads and writes, search over memories,
 * resources and skills, sessions whose commit archives the messages and extracts memories, and
 * resource uploads. Extraction is deterministic (no model): see `extractMemories`.
 */
export async function startFakeOpenviking(
  options: FakeOpenvikingOptions = {},
): Promise<FakeServer<FakeOpenvikingState>> {
  const keys = [options.apiKey, options.rootKey].filter(
    (k): k is string => typeof k === 'string' && k !== '',
  );
  const auth: FakeAuth[] = keys.flatMap((key) => [
    { type: 'header' as const, name: 'X-API-Key', value: key },
    { type: 'bearer' as const, token: key },
  ]);
  const userId = options.userId ?? 'default';
  const server = await startFakeServer<FakeOpenvikingState>({
    name: 'fake OpenViking',
    ...options.server,
    ...(options.port !== undefined ? { port: options.port } : {}),
    auth,
    publicRoutes: ['GET /health', 'GET /openapi.json'],
    errorBody: (status, message) => ({
      status: 'error',
      error: { code: CODES[status] ?? 'UNKNOWN', message },
    }),
    state: () => newState(userId, 'default'),
  });

  /** Trusted mode: a keyed request without the tenant headers is refused, as the server does. */
  const tenantRefusal = (req: FakeRequest) => {
    if (!options.trustedMode || keys.length === 0) return null;
    if (req.headers['x-openviking-account'] && req.headers['x-openviking-user']) return null;
    return error(
      400,
      'Trusted mode requests must include X-OpenViking-Account and X-OpenViking-User headers.',
    );
  };
  const route = (
    method: string,
    path: string,
    handler: (req: FakeRequest, state: FakeOpenvikingState) => ReturnType<typeof ok>,
  ) => server.route(method, path, (req, state) => tenantRefusal(req) ?? handler(req, state));
  const uriParam = (req: FakeRequest, name = 'uri'): string | null => normalizeUri(req.query.get(name) ?? '');

  server.route('GET', '/health', () => {
    if (options.health === 'legacy' || options.health === 'not-openviking')
      return reply.json({ status: 'ok' });
    if (options.health === 'unhealthy')
      return reply.json({ status: 'ok', healthy: false, version: FAKE_OPENVIKING_VERSION });
    return reply.json({ status: 'ok', healthy: true, version: FAKE_OPENVIKING_VERSION });
  });
  server.route('GET', '/openapi.json', () =>
    reply.json({
      openapi: '3.1.0',
      info: { title: options.health === 'not-openviking' ? 'Other API' : 'OpenViking API' },
    }),
  );

  route('GET', '/api/v1/system/status', (_req, state) =>
    ok({ status: 'running', user: state.userId, account: state.account, version: FAKE_OPENVIKING_VERSION }),
  );
  route('GET', '/api/v1/admin/accounts', (req, state) => {
    const key = req.headers['x-api-key'];
    if (!options.rootKey || key !== options.rootKey) return error(403, 'Root key required.');
    return ok([{ account_id: state.account }]);
  });

  // --- the tree --------------------------------------------------------------------------
  const entry = (state: FakeOpenvikingState, uri: string) => {
    const node = state.nodes[uri];
    const isDir = uri === ROOT || node?.isDir === true;
    return {
      name: nameOf(uri),
      uri,
      is_dir: isDir,
      abstract: isDir ? directoryAbstract(state, uri) : (node?.abstract ?? ''),
    };
  };
  const exists = (state: FakeOpenvikingState, uri: string) => uri === ROOT || state.nodes[uri] !== undefined;

  route('GET', '/api/v1/fs/ls', (req, state) => {
    const uri = uriParam(req);
    if (!uri) return error(400, 'uri must be a viking:// URI');
    if (!exists(state, uri)) return error(404, `No such directory: ${uri}`);
    if (!(uri === ROOT || state.nodes[uri]?.isDir)) return error(400, `Not a directory: ${uri}`);
    const recursive = req.query.get('recursive') === 'true';
    const limit = Number(req.query.get('node_limit') ?? 1000) || 1000;
    return ok(
      childrenOf(state, uri, recursive)
        .slice(0, limit)
        .map((n) => entry(state, n.uri)),
    );
  });
  route('GET', '/api/v1/fs/tree', (req, state) => {
    const uri = uriParam(req);
    if (!uri) return error(400, 'uri must be a viking:// URI');
    if (!exists(state, uri)) return error(404, `No such directory: ${uri}`);
    return ok(childrenOf(state, uri, true).map((n) => entry(state, n.uri)));
  });
  route('GET', '/api/v1/fs/stat', (req, state) => {
    const uri = uriParam(req);
    if (!uri || !exists(state, uri))
      return error(404, `No such file or directory: ${req.query.get('uri') ?? ''}`);
    const node = state.nodes[uri];
    return ok({
      uri,
      name: nameOf(uri),
      is_dir: uri === ROOT || node?.isDir === true,
      size: node?.content.length ?? 0,
    });
  });
  route('DELETE', '/api/v1/fs', (req, state) => {
    const uri = uriParam(req);
    if (!uri || !exists(state, uri)) return error(404, `No such file: ${req.query.get('uri') ?? ''}`);
    const node = state.nodes[uri];
    if (uri === ROOT || node?.isDir) {
      if (req.query.get('recursive') !== 'true' && childrenOf(state, uri, false).length > 0)
        return error(400, `Directory not empty: ${uri}`);
    }
    for (const child of childrenOf(state, uri, true)) delete state.nodes[child.uri];
    delete state.nodes[uri];
    return ok({ uri, estimated_deleted_count: 1, semantic_status: 'queued' });
  });

  // --- content ---------------------------------------------------------------------------
  const summary = (level: 'abstract' | 'overview') => (req: FakeRequest, state: FakeOpenvikingState) => {
    const uri = uriParam(req);
    if (!uri || !exists(state, uri)) return error(404, `No such directory: ${req.query.get('uri') ?? ''}`);
    if (!(uri === ROOT || state.nodes[uri]?.isDir))
      return error(400, `${level} is for directories; read files with content/read`);
    return ok(level === 'abstract' ? directoryAbstract(state, uri) : directoryOverview(state, uri));
  };
  route('GET', '/api/v1/content/abstract', summary('abstract'));
  route('GET', '/api/v1/content/overview', summary('overview'));
  route('GET', '/api/v1/content/read', (req, state) => {
    const uri = uriParam(req);
    const node = uri ? state.nodes[uri] : undefined;
    if (!node) return error(404, `No such file: ${req.query.get('uri') ?? ''}`);
    if (node.isDir) return error(400, `Is a directory: ${node.uri}`);
    return ok(node.content);
  });
  route('POST', '/api/v1/content/write', (req, state) => {
    const body = asRecord(req.body);
    const uri = typeof body.uri === 'string' ? normalizeUri(body.uri) : null;
    if (!uri || uri === ROOT) return error(400, 'uri must be a viking:// file URI');
    if (typeof body.content !== 'string') return error(400, 'content must be a string');
    const mode = body.mode ?? 'create';
    if (mode !== 'create' && mode !== 'replace') return error(400, 'mode must be create or replace');
    const current = state.nodes[uri];
    if (current?.isDir) return error(400, `Is a directory: ${uri}`);
    if (mode === 'create' && current) return error(409, `File exists: ${uri}`);
    if (mode === 'replace' && !current) return error(404, `No such file: ${uri}`);
    writeFile(state, uri, body.content);
    return ok({ uri, mode, status: 'written' });
  });

  // --- search ----------------------------------------------------------------------------
  const search = (req: FakeRequest, state: FakeOpenvikingState) => {
    const body = asRecord(req.body);
    if (typeof body.query !== 'string' || body.query.trim() === '')
      return error(400, 'query must be a non-empty string');
    if ('top_k' in body) return error(400, 'unknown field top_k; use limit');
    const limit = typeof body.limit === 'number' && body.limit > 0 ? Math.min(200, body.limit) : 10;
    const threshold = typeof body.score_threshold === 'number' ? body.score_threshold : 0;
    const types = new Set(
      Array.isArray(body.context_type)
        ? body.context_type
        : typeof body.context_type === 'string'
          ? [body.context_type]
          : ['memory', 'resource', 'skill'],
    );
    const target = typeof body.target_uri === 'string' ? normalizeUri(body.target_uri) : null;
    const terms = words(body.query);
    const buckets: Record<string, unknown[]> = { memories: [], resources: [], skills: [] };
    const hits = Object.values(state.nodes)
      .filter(
        (n) =>
          !n.isDir && types.has(n.contextType) && (!target || n.uri === target || isUnder(n.uri, target)),
      )
      .map((n) => ({ node: n, score: overlap(terms, words(n.content)) }))
      .filter((h) => h.score > threshold)
      .sort((a, b) => b.score - a.score || b.node.updatedAt - a.node.updatedAt)
      .slice(0, limit);
    for (const { node, score } of hits) {
      const bucket =
        node.contextType === 'memory' ? 'memories' : node.contextType === 'resource' ? 'resources' : 'skills';
      buckets[bucket]?.push({
        uri: node.uri,
        score: Math.round(score * 10_000) / 10_000,
        abstract: node.abstract,
        category: /\/memories\/([^/]+)\//.exec(node.uri)?.[1] ?? node.contextType,
        level: node.level,
        context_type: node.contextType,
      });
    }
    return ok({ ...buckets, total: hits.length });
  };
  route('POST', '/api/v1/search/find', search);
  route('POST', '/api/v1/search/search', (req, state) => {
    const sid = asRecord(req.body).session_id;
    if (typeof sid !== 'string' || sid === '') return error(400, 'session_id is required for session search');
    return search(req, state);
  });

  // --- sessions --------------------------------------------------------------------------
  const session = (state: FakeOpenvikingState, id: string) => {
    state.sessions[id] ??= { id, messages: [], archived: 0, commits: 0 };
    ensureDir(state, `viking://user/${state.userId}/sessions/${id}`);
    return state.sessions[id];
  };
  route('POST', '/api/v1/sessions/:sid/messages/batch', (req, state) => {
    const messages = asRecord(req.body).messages;
    if (!Array.isArray(messages) || messages.length === 0)
      return error(400, 'messages must be a non-empty list');
    if (messages.length > 100) return error(413, 'at most 100 messages per batch');
    const parsed = messages.map(parseMessage);
    const bad = parsed.findIndex((m) => typeof m === 'string');
    if (bad >= 0) return error(400, `messages[${bad}]: ${parsed[bad] as string}`);
    session(state, req.params.sid!).messages.push(...(parsed as FakeSessionMessage[]));
    return ok({ session_id: req.params.sid, added: parsed.length });
  });
  route('POST', '/api/v1/sessions/:sid/messages', (req, state) => {
    const parsed = parseMessage(req.body);
    if (typeof parsed === 'string') return error(400, parsed);
    session(state, req.params.sid!).messages.push(parsed);
    return ok({ session_id: req.params.sid, added: 1 });
  });
  route('GET', '/api/v1/sessions/:sid', (req, state) => {
    const found = state.sessions[req.params.sid!];
    if (!found) return error(404, `Session not found: ${req.params.sid}`);
    const pending = found.messages.reduce((sum, m) => sum + Math.ceil(JSON.stringify(m.parts).length / 4), 0);
    return ok({
      session_id: found.id,
      message_count: found.messages.length,
      total_message_count: found.messages.length + found.archived,
      pending_tokens: pending,
      commits: found.commits,
    });
  });
  route('POST', '/api/v1/sessions/:sid/commit', (req, state) => {
    const found = state.sessions[req.params.sid!];
    if (!found) return error(404, `Session not found: ${req.params.sid}`);
    const made = extractMemories(state, found);
    writeFile(
      state,
      `viking://user/${state.userId}/sessions/${found.id}/history/archive_${String(found.commits + 1).padStart(3, '0')}.jsonl`,
      found.messages.map((m) => JSON.stringify(m)).join('\n'),
    );
    found.archived += found.messages.length;
    found.messages = [];
    found.commits += 1;
    return ok({
      session_id: found.id,
      status: 'committed',
      memories_extracted: made.length,
      task_id: `task_${state.next++}`,
    });
  });

  // --- resources -------------------------------------------------------------------------
  route('POST', '/api/v1/resources/temp_upload', (req, state) => {
    const type = String(req.headers['content-type'] ?? '');
    const name = /filename="([^"]*)"/.exec(req.rawBody)?.[1];
    if (!type.startsWith('multipart/form-data') || !name)
      return error(400, 'expected a multipart upload with a file field');
    const id = `tmp_${state.next++}`;
    state.tempUploads[id] = { name, bytes: req.rawBody.length };
    return ok({ temp_file_id: id });
  });
  route('POST', '/api/v1/resources', (req, state) => {
    const body = asRecord(req.body);
    let name: string | undefined;
    if (typeof body.temp_file_id === 'string') {
      const upload = state.tempUploads[body.temp_file_id];
      if (!upload) return error(404, `Unknown temp_file_id ${body.temp_file_id}`);
      name = typeof body.source_name === 'string' ? body.source_name : upload.name;
    } else if (typeof body.path === 'string' && body.path !== '') {
      name = body.path
        .replace(/[?#].*$/, '')
        .replace(/\/+$/, '')
        .split(/[/:]/)
        .pop();
    } else return error(400, 'path or temp_file_id is required');
    if (body.to !== undefined && body.parent !== undefined)
      return error(400, 'to and parent are mutually exclusive');
    const base =
      typeof body.to === 'string'
        ? normalizeUri(body.to)
        : typeof body.parent === 'string'
          ? `${normalizeUri(body.parent)}/${safeName(name)}`
          : `viking://resources/${safeName(name)}`;
    if (!base) return error(400, 'to/parent must be viking:// URIs');
    writeFile(
      state,
      `${base}/README.md`,
      `${name} — ${typeof body.reason === 'string' ? body.reason : 'added resource'}`,
    );
    return ok({ root_uri: base, status: 'queued' });
  });

  return server;
}

function parseMessage(value: unknown): FakeSessionMessage | string {
  const m = asRecord(value);
  if (m.role !== 'user' && m.role !== 'assistant') return 'role must be user or assistant';
  if (!Array.isArray(m.parts) || m.parts.length === 0) return 'parts must be a non-empty list';
  for (const part of m.parts) {
    const p = asRecord(part);
    if (p.type === 'text' && typeof p.text === 'string') continue;
    if (p.type === 'tool' && typeof p.tool_name === 'string' && typeof p.tool_input === 'object') continue;
    return `unsupported part ${JSON.stringify(part).slice(0, 80)}`;
  }
  return { role: m.role, parts: m.parts, ...(typeof m.peer_id === 'string' ? { peer_id: m.peer_id } : {}) };
}

const STOPWORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it me my of on or the this to was we what when where who with you your'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return [...new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w)))];
}

/** The share of query words the text holds (0…1): a stand-in for the server's vector score. */
function overlap(query: readonly string[], text: readonly string[]): number {
  if (query.length === 0) return 0;
  const present = new Set(text);
  return query.filter((w) => present.has(w)).length / query.length;
}

function safeName(name: string | undefined): string {
  return (name ?? 'resource').replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80) || 'resource';
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export type { FakeOpenvikingState };
