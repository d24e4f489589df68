import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { encodeSse } from './reply';
import type {
  FakeAuth,
  FakeFault,
  FakeHandler,
  FakeRequest,
  FakeResponse,
  FakeServer,
  FakeServerOptions,
  RecordedRequest,
} from './types';

const REDACTED = '[redacted]';
const DEFAULT_MAX_BODY = 32 * 1024 * 1024;
/** Query parameter names whose values are never recorded. */
const SECRET_NAME = /(key|token|secret|password|passwd|signature|auth|credential)/i;

interface Route<S> {
  method: string;
  pattern: string;
  /** `${method} ${pattern}` */
  id: string;
  matcher: RegExp;
  names: string[];
  handler: FakeHandler<S>;
}

type QueuedFault = FakeFault & { remaining: number };

/** `/v3/workspaces/:workspace/peers` → a regex with one group per `:name` (one segment each). */
function compile(pattern: string): { matcher: RegExp; names: string[] } {
  const names: string[] = [];
  const source = pattern
    .replace(/\/+$/, '')
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        names.push(segment.slice(1));
        return '([^/]+)';
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { matcher: new RegExp(`^${source}/?$`), names };
}

/**
 * A segment that is not valid percent-encoding (`100%`, a broken UTF-8 escape) stays raw, so the
 * route's handler answers it like a server would (usually 404) instead of a URIError crashing the fake.
 */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function authHeader(auth: FakeAuth): { name: string; value: string } {
  if (auth.type === 'header') return { name: auth.name.toLowerCase(), value: auth.value };
  return { name: 'authorization', value: `${auth.type === 'bearer' ? 'Bearer' : 'Token'} ${auth.token}` };
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Start a loopback fake backend on 127.0.0.1 (ephemeral port) that protocol-faithful fakes build
 * on: routes with `:param` segments, auth schemes (Bearer, Token, a header of its own), request
 * recording with secrets redacted, faults per route with a count (status with Retry-After, hang,
 * reset, malformed and truncated bodies, delay), SSE answers and a state object for dumps.
 *
 * ```ts
 * const server = await startFakeServer({ name: 'fake Mem0', auth: { type: 'token', token: 'm0-key' }, state: () => ({ memories: [] }) });
 * server.route('POST', '/v3/memories/search/', (req, state) => reply.json({ results: state.memories }));
 * server.fail({ type: 'status', status: 503, retryAfter: 1, route: 'POST /v3/memories/search/' });
 * ```
 */
export async function startFakeServer<S = undefined>(
  options: FakeServerOptions<S> = {},
): Promise<FakeServer<S>> {
  const name = options.name ?? 'fake server';
  const routes: Array<Route<S>> = [];
  const faults: QueuedFault[] = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const sockets = new Set<Socket>();
  const auths = options.auth === undefined ? [] : Array.isArray(options.auth) ? options.auth : [options.auth];
  const accepted = (auths as FakeAuth[]).map(authHeader);
  const publicRoutes = new Set(options.publicRoutes ?? []);
  const secrets = [
    ...(auths as FakeAuth[]).map((a) => (a.type === 'header' ? a.value : a.token)),
    ...(options.secrets ?? []),
  ].filter((s) => s.length >= 4);
  const authHeaderNames = new Set([
    'authorization',
    'proxy-authorization',
    'x-api-key',
    'api-key',
    ...accepted.map((a) => a.name),
  ]);
  const errorBody = options.errorBody ?? ((_status: number, message: string) => ({ error: { message } }));
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  let state = (options.state ? options.state() : undefined) as S;
  let index = 0;

  const scrub = (text: string): string => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join(REDACTED);
    return out;
  };

  /** Credentials the client sent (whatever their value): masked everywhere in its recording. */
  const learnSecrets = (headers: http.IncomingHttpHeaders): void => {
    for (const key of authHeaderNames) {
      const value = headers[key];
      if (typeof value !== 'string') continue;
      const credential = value.replace(/^(Bearer|Token|Basic)\s+/i, '').trim();
      if (credential.length >= 4 && !secrets.includes(credential)) secrets.push(credential);
    }
  };

  /** Auth headers keep their scheme (`Bearer [redacted]`), so a test can tell how the key was sent. */
  const recordHeaders = (headers: http.IncomingHttpHeaders): http.IncomingHttpHeaders => {
    const out: http.IncomingHttpHeaders = {};
    for (const [key, value] of Object.entries(headers)) {
      if (authHeaderNames.has(key) && typeof value === 'string') {
        const scheme = /^(Bearer|Token|Basic)\s+/i.exec(value)?.[1];
        out[key] = scheme ? `${scheme} ${REDACTED}` : REDACTED;
      } else if (Array.isArray(value)) out[key] = value.map(scrub);
      else if (typeof value === 'string') out[key] = scrub(value);
      else out[key] = value;
    }
    return out;
  };

  const recordQuery = (query: URLSearchParams): Record<string, string | string[]> => {
    const out: Record<string, string | string[]> = {};
    for (const key of new Set(query.keys())) {
      const values = query.getAll(key).map((v) => (SECRET_NAME.test(key) ? REDACTED : scrub(v)));
      out[key] = values.length === 1 ? values[0]! : values;
    }
    return out;
  };

  const match = (method: string, path: string) => {
    for (const route of routes) {
      if (route.method !== method) continue;
      const m = route.matcher.exec(path);
      if (!m) continue;
      const params: Record<string, string> = {};
      route.names.forEach((n, i) => {
        params[n] = decodeSegment(m[i + 1]!);
      });
      return { route, params };
    }
    return undefined;
  };

  const takeFault = (recorded: RecordedRequest): FakeFault | undefined => {
    const i = faults.findIndex(
      (f) =>
        (f.path === undefined || recorded.path.endsWith(f.path)) &&
        (f.route === undefined || f.route === recorded.route),
    );
    if (i >= 0) {
      const fault = faults[i]!;
      fault.remaining -= 1;
      if (fault.remaining <= 0) faults.splice(i, 1);
      return fault;
    }
    return options.faultFor?.(recorded, index - 1) ?? undefined;
  };

  const send = (res: http.ServerResponse, recorded: RecordedRequest, response: FakeResponse): void => {
    recorded.status = response.status;
    const headers = { ...(response.headers ?? {}) };
    switch (response.kind) {
      case 'json':
        res.writeHead(response.status, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(response.body));
        return;
      case 'text':
        res.writeHead(response.status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
        res.end(response.body);
        return;
      case 'empty':
        res.writeHead(response.status, headers);
        res.end();
        return;
      case 'sse':
        res.writeHead(response.status, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
          ...headers,
        });
        res.end(encodeSse(response.events, response.done));
        return;
    }
  };

  const body = (response: FakeResponse): string => {
    if (response.kind === 'json') return JSON.stringify(response.body);
    if (response.kind === 'text') return response.body;
    if (response.kind === 'sse') return encodeSse(response.events, response.done);
    return '';
  };

  async function answer(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    request: FakeRequest,
    route: Route<S> | undefined,
  ): Promise<FakeResponse | undefined> {
    const { recorded } = request;
    if (!route)
      return {
        kind: 'json',
        status: 404,
        body: errorBody(404, `Not found: ${request.method} ${request.path}`),
      };
    if ((accepted.length > 0 || options.authorize) && !publicRoutes.has(route.id)) {
      const ok =
        accepted.some((a) => req.headers[a.name] === a.value) || options.authorize?.(req.headers) === true;
      if (!ok) return { kind: 'json', status: 401, body: errorBody(401, 'Invalid or missing API key.') };
    }
    const fault = takeFault(recorded);
    if (fault) {
      recorded.fault = fault.type;
      switch (fault.type) {
        case 'status': {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
          recorded.status = fault.status;
          res.writeHead(fault.status, headers);
          res.end(
            fault.body ?? JSON.stringify(errorBody(fault.status, `Injected fault: HTTP ${fault.status}`)),
          );
          return undefined;
        }
        case 'timeout':
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return undefined;
        case 'reset':
          req.socket.destroy();
          return undefined;
        case 'malformed': {
          recorded.status = 200;
          const streaming =
            String(req.headers.accept ?? '').includes('text/event-stream') ||
            (typeof request.body === 'object' &&
              request.body !== null &&
              (request.body as { stream?: unknown }).stream === true);
          if (streaming) {
            res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
            res.end('data: {"broken":"trun\n\ndata: [DONE]\n\n');
          } else {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"results": [{"id": ');
          }
          return undefined;
        }
        case 'truncated': {
          const full = await route.handler(request, state);
          const text = body(full);
          recorded.status = full.status;
          res.writeHead(full.status, {
            'content-type': full.kind === 'sse' ? 'text/event-stream' : 'application/json',
            'content-length': String(Buffer.byteLength(text)),
          });
          res.write(text.slice(0, Math.floor(text.length / 2)));
          setImmediate(() => req.socket.destroy());
          return undefined;
        }
        case 'delay':
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, fault.ms)));
          break;
      }
    }
    return route.handler(request, state);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBody) {
        tooLarge = true;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const method = (req.method ?? 'GET').toUpperCase();
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const found = match(method, url.pathname);
      learnSecrets(req.headers);
      const recorded: RecordedRequest = {
        method,
        path: url.pathname,
        query: recordQuery(url.searchParams),
        headers: recordHeaders(req.headers),
        body: parseBody(scrub(rawBody)),
        rawBody: scrub(rawBody),
        params: found?.params ?? {},
        ...(found ? { route: found.route.id } : {}),
      };
      requests.push(recorded);
      index += 1;
      if (tooLarge) {
        send(res, recorded, { kind: 'json', status: 413, body: errorBody(413, 'Request body too large.') });
        return;
      }
      const request: FakeRequest = {
        method,
        path: url.pathname,
        params: found?.params ?? {},
        query: url.searchParams,
        headers: req.headers,
        body: parseBody(rawBody),
        rawBody,
        recorded,
      };
      answer(req, res, request, found?.route).then(
        (response) => {
          if (response && !res.headersSent && !res.destroyed) send(res, recorded, response);
        },
        (error: unknown) => {
          if (res.headersSent) {
            res.destroy();
            return;
          }
          send(res, recorded, {
            kind: 'json',
            status: 500,
            body: errorBody(500, `${name} error: ${error instanceof Error ? error.message : String(error)}`),
          });
        },
      );
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;

  const fake: FakeServer<S> = {
    url: `http://127.0.0.1:${port}`,
    port,
    get state() {
      return state;
    },
    dump: () => structuredClone(state),
    requests,
    requestsTo: (routeOrSuffix) =>
      requests.filter((r) => r.route === routeOrSuffix || r.path.endsWith(routeOrSuffix)),
    route(method, pattern, handler) {
      const verb = method.toUpperCase();
      const id = `${verb} ${pattern}`;
      if (routes.some((r) => r.id === id)) throw new Error(`${name}: route ${id} is already registered`);
      routes.push({ method: verb, pattern, id, handler, ...compile(pattern) });
      return fake;
    },
    fail(fault) {
      const spec: FakeFault = typeof fault === 'number' ? { type: 'status', status: fault } : fault;
      const count = spec.count ?? 1;
      if (!Number.isInteger(count) || count < 1)
        throw new RangeError('fault count must be a positive integer');
      if (spec.route !== undefined && !routes.some((r) => r.id === spec.route)) {
        throw new Error(`${name}: no route ${spec.route} to fail (register it first)`);
      }
      faults.push({ ...spec, remaining: count });
      return fake;
    },
    get pendingFaults() {
      return faults.reduce((sum, f) => sum + f.remaining, 0);
    },
    clearFaults() {
      faults.length = 0;
    },
    redact(...more) {
      const fresh = more.filter((secret) => secret.length >= 4 && !secrets.includes(secret));
      if (fresh.length === 0) return;
      secrets.push(...fresh);
      // Also masked where it was already recorded (the request that carried it came first).
      for (const recorded of requests) {
        recorded.rawBody = scrub(recorded.rawBody);
        recorded.body = parseBody(recorded.rawBody);
        for (const [key, value] of Object.entries(recorded.query))
          recorded.query[key] = Array.isArray(value) ? value.map(scrub) : scrub(value);
        for (const [key, value] of Object.entries(recorded.headers)) {
          if (typeof value === 'string') recorded.headers[key] = scrub(value);
          else if (Array.isArray(value)) recorded.headers[key] = value.map(scrub);
        }
      }
    },
    get hanging() {
      return hanging.size;
    },
    reset() {
      requests.length = 0;
      faults.length = 0;
      index = 0;
      state = (options.state ? options.state() : undefined) as S;
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        hanging.clear();
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
      return closing;
    },
  };
  return fake;
}
