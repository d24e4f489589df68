import { APICallError, createHttpClient, ManualClock } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeServer, intParam, paginate, reply, startFakeServer } from '../src/http';

interface State {
  memories: Array<{ id: string; memory: string }>;
}

let server: FakeServer<State>;
afterEach(async () => {
  await server?.close();
});

async function mem0Like(): Promise<FakeServer<State>> {
  server = await startFakeServer<State>({
    name: 'fake Mem0',
    auth: { type: 'token', token: 'm0-secret-key' },
    publicRoutes: ['GET /v1/ping/'],
    state: () => ({ memories: [] }),
    errorBody: (_status, message) => ({ detail: message }),
  });
  server
    .route('GET', '/v1/ping/', () => reply.json({ status: 'ok' }))
    .route('POST', '/v3/memories/add/', (req, state) => {
      const body = req.body as { messages: Array<{ content: string }> };
      const id = `m${state.memories.length + 1}`;
      state.memories.push({ id, memory: body.messages.map((m) => m.content).join(' ') });
      return reply.json({ status: 'PENDING', event_id: `e-${id}` });
    })
    .route('GET', '/v1/memories/:id/', (req, state) => {
      const found = state.memories.find((m) => m.id === req.params.id);
      return found ? reply.json(found) : reply.json({ detail: 'Memory not found' }, 404);
    })
    .route('POST', '/v3/memories/', (req, state) => {
      const page = paginate(
        state.memories,
        intParam(req.query, 'page', 1),
        intParam(req.query, 'page_size', 50),
      );
      return reply.json({
        count: page.total,
        results: page.items,
        next: page.page < page.pages ? page.page + 1 : null,
      });
    });
  return server;
}

describe('startFakeServer', () => {
  it('routes with path params, checks the auth scheme, and keeps state for dumps', async () => {
    await mem0Like();
    const client = createHttpClient({ baseURL: server.url, auth: { type: 'token', token: 'm0-secret-key' } });
    expect(await fetch(`${server.url}/v1/ping/`).then((r) => r.json())).toEqual({ status: 'ok' });
    await client.post('/v3/memories/add/', { messages: [{ role: 'user', content: 'likes tea' }] });
    expect(await client.get('/v1/memories/m1/')).toEqual({ id: 'm1', memory: 'likes tea' });
    expect(server.requests.at(-1)).toMatchObject({
      route: 'GET /v1/memories/:id/',
      params: { id: 'm1' },
      status: 200,
    });
    const missing = await client.get('/v1/memories/nope/').catch((e: unknown) => e);
    expect((missing as APICallError).serverMessage).toBe('Memory not found');
    const wrongScheme = createHttpClient({
      baseURL: server.url,
      auth: { type: 'bearer', token: 'm0-secret-key' },
      retry: false,
    });
    expect(
      ((await wrongScheme.get('/v1/memories/m1/').catch((e: unknown) => e)) as APICallError).statusCode,
    ).toBe(401);
    expect(server.dump()).toEqual({ memories: [{ id: 'm1', memory: 'likes tea' }] });
    server.state.memories.push({ id: 'm2', memory: 'x' });
    expect(server.dump().memories).toHaveLength(2);
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
  });

  it('records requests with secrets redacted (headers keep their scheme, bodies and secret query values masked)', async () => {
    server = await startFakeServer({ auth: { type: 'header', name: 'X-API-Key', value: 'sh-key-123456' } });
    server.route('POST', '/echo', (req) => reply.json({ got: req.body }));
    const response = await fetch(`${server.url}/echo?api_key=sh-key-123456&q=tea`, {
      method: 'POST',
      headers: {
        'x-api-key': 'sh-key-123456',
        authorization: 'Bearer other-secret-999',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ note: 'my key is sh-key-123456 and other-secret-999' }),
    });
    expect(await response.json()).toEqual({ got: { note: 'my key is sh-key-123456 and other-secret-999' } });
    const recorded = server.requests[0]!;
    expect(recorded.headers['x-api-key']).toBe('[redacted]');
    expect(recorded.headers.authorization).toBe('Bearer [redacted]');
    expect(recorded.query).toEqual({ api_key: '[redacted]', q: 'tea' });
    expect(recorded.body).toEqual({ note: 'my key is [redacted] and [redacted]' });
    expect(JSON.stringify(server.requests)).not.toMatch(/sh-key-123456|other-secret-999/);
  });

  it('injects faults per route with a count: status with Retry-After, malformed, truncated, reset, hang', async () => {
    await mem0Like();
    const clock = new ManualClock();
    const client = createHttpClient({
      baseURL: server.url,
      auth: { type: 'token', token: 'm0-secret-key' },
      clock,
    });
    server.fail({ type: 'status', status: 503, retryAfter: 1, route: 'GET /v1/ping/', count: 2 });
    const ping = await fetch(`${server.url}/v1/ping/`);
    expect(ping.status).toBe(503);
    expect(ping.headers.get('retry-after')).toBe('1');
    expect(await ping.json()).toEqual({ detail: 'Injected fault: HTTP 503' });
    // Other routes are untouched by a route fault.
    expect(await client.get('/v1/memories/nope/').catch((e: APICallError) => e.statusCode)).toBe(404);
    expect(server.pendingFaults).toBe(1);
    expect((await fetch(`${server.url}/v1/ping/`)).status).toBe(503);
    expect((await fetch(`${server.url}/v1/ping/`)).status).toBe(200);

    server.fail({ type: 'malformed', path: '/v3/memories/' });
    const malformed = await client.post('/v3/memories/', {}, { retry: false }).catch((e: unknown) => e);
    expect((malformed as APICallError).message).toMatch(/not JSON/);
    server.fail({ type: 'truncated', route: 'POST /v3/memories/' });
    expect(
      APICallError.isInstance(
        await client.post('/v3/memories/', {}, { retry: false }).catch((e: unknown) => e),
      ),
    ).toBe(true);
    server.fail({ type: 'reset' });
    const reset = (await client.get('/v1/ping/', { retry: false }).catch((e: unknown) => e)) as APICallError;
    expect(reset.statusCode).toBeUndefined();

    server.fail({ type: 'timeout' });
    const hanging = client.get('/v1/ping/', { timeoutMs: 3000, retry: false }).catch((e: unknown) => e);
    while (server.hanging === 0) await new Promise((resolve) => setTimeout(resolve, 2));
    await clock.advance(3000);
    expect(((await hanging) as APICallError).message).toMatch(/timed out after 3000 ms/);
    expect(server.requests.filter((r) => r.fault).map((r) => r.fault)).toEqual([
      'status',
      'status',
      'malformed',
      'truncated',
      'reset',
      'timeout',
    ]);
    expect(() => server.fail({ type: 'reset', route: 'GET /unknown' })).toThrow(/no route GET \/unknown/);
  });

  it('answers SSE streams and pages lists', async () => {
    server = await startFakeServer();
    server.route('POST', '/chat', () =>
      reply.sse(
        [
          { data: { delta: { content: 'hel' } } },
          { data: { delta: { content: 'lo' } } },
          { data: { done: true } },
        ],
        {
          done: '[DONE]',
        },
      ),
    );
    const text = await (await fetch(`${server.url}/chat`, { method: 'POST' })).text();
    expect(text).toBe(
      'data: {"delta":{"content":"hel"}}\n\ndata: {"delta":{"content":"lo"}}\n\ndata: {"done":true}\n\ndata: [DONE]\n\n',
    );
    expect(paginate([1, 2, 3, 4, 5], 2, 2)).toEqual({ items: [3, 4], page: 2, size: 2, total: 5, pages: 3 });
    expect(paginate([], 1, 10)).toEqual({ items: [], page: 1, size: 10, total: 0, pages: 1 });
  });

  it('faultFor decides per request (the bench fails the first N or every request)', async () => {
    server = await startFakeServer({
      faultFor: (_req, index) => (index < 2 ? { type: 'status', status: 500 } : null),
    });
    server.route('GET', '/x', () => reply.json({ ok: true }));
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${server.url}/x`)).status);
    expect(statuses).toEqual([500, 500, 200]);
    server.reset();
    expect(server.requests).toEqual([]);
  });

  it('keeps a path segment raw when it is not valid percent-encoding (answers like a server, never crashes)', async () => {
    await mem0Like();
    server.state.memories.push({ id: 'a b', memory: 'spaced' });
    const get = (path: string) =>
      fetch(`${server.url}${path}`, { headers: { authorization: 'Token m0-secret-key' } });
    // Well-formed escapes are decoded as before.
    expect(await get('/v1/memories/a%20b/').then((r) => r.json())).toEqual({
      id: 'a b',
      memory: 'spaced',
    });
    // A lone `%` or a broken UTF-8 escape reaches the handler raw: its own 404, not a thrown URIError.
    for (const segment of ['100%', '%E0%A4%A', '%zz']) {
      const response = await get(`/v1/memories/${segment}/`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Memory not found' });
      expect(server.requests.at(-1)).toMatchObject({ params: { id: segment }, status: 404 });
    }
    // The server is still answering afterwards.
    expect((await fetch(`${server.url}/v1/ping/`)).status).toBe(200);
  });

  it('clearFaults drops queued faults but keeps state and recordings', async () => {
    await mem0Like();
    server.state.memories.push({ id: 'm1', memory: 'kept' });
    server.fail({ type: 'status', status: 500, count: 5 });
    await fetch(`${server.url}/v1/ping/`);
    server.clearFaults();
    expect(server.pendingFaults).toBe(0);
    expect(server.requests).toHaveLength(1);
    expect(server.dump().memories).toHaveLength(1);
  });

  it('authorize accepts credentials decided at run time next to the static key; redact masks strings issued later, in recordings already made too', async () => {
    const issued = new Set<string>();
    server = await startFakeServer<State>({
      auth: { type: 'bearer', token: 'static-key-1' },
      authorize: (headers) => issued.has(String(headers.authorization ?? '').replace(/^Bearer /, '')),
      state: () => ({ memories: [] }),
    });
    server.route('POST', '/token', (req) => {
      const token = `tok-${issued.size + 1}-abcdef`;
      issued.add(token);
      server.redact(token, String(req.body));
      return reply.json({ access_token: token });
    });
    server.route('GET', '/me', () => reply.json({ ok: true }));
    const get = (token: string) =>
      fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get('static-key-1')).status).toBe(200);
    expect((await get('tok-1-abcdef')).status).toBe(401);
    await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { authorization: 'Bearer static-key-1' },
      body: 'grant-code-xyz',
    });
    expect((await get('tok-1-abcdef')).status).toBe(200);
    await fetch(`${server.url}/token`, {
      method: 'POST',
      headers: { authorization: 'Bearer static-key-1' },
      body: 'refresh=tok-1-abcdef&code=grant-code-xyz',
    });
    const recorded = JSON.stringify(server.requests);
    expect(recorded).not.toContain('tok-1-abcdef');
    expect(recorded).not.toContain('grant-code-xyz');
    expect(recorded).toContain('refresh=[redacted]');
  });
});
