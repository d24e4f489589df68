import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { APICallError, CircuitOpenError, SettingsError } from '../errors/memory-error';
import { HealthMonitor } from '../health/health';
import { CircuitBreaker, ManualClock } from '../resilience';
import { createHttpClient, globalFetch } from './index';

type Handler = (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void;

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const servers: http.Server[] = [];

/** A loopback server answering with `handlers` in turn (the last one repeats). */
async function serve(...handlers: Handler[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const handler = handlers[Math.min(seen.length - 1, handlers.length - 1)]!;
      handler(req, body, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, _body, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

/** Let real I/O happen until `condition` holds (bounded; no fixed sleeps). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > 2000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('HttpClient', () => {
  it('sends JSON with auth schemes, repeated query params, and parses the answer', async () => {
    const { url, seen } = await serve(json(200, { id: 'p1' }));
    const client = createHttpClient({
      baseURL: `${url}/v3/`,
      auth: [
        { type: 'header', name: 'X-API-Key', value: 'key-abc-123' },
        { type: 'bearer', token: 'key-abc-123' },
      ],
      headers: { 'User-Agent': 'hermes-test/1' },
    });
    const data = await client.post(
      '/workspaces/ws/peers',
      { id: 'alice' },
      { query: { k: ['a', 'b'], n: 2, skip: undefined } },
    );
    expect(data).toEqual({ id: 'p1' });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v3/workspaces/ws/peers?k=a&k=b&n=2',
      body: '{"id":"alice"}',
    });
    expect(seen[0]!.headers).toMatchObject({
      'x-api-key': 'key-abc-123',
      authorization: 'Bearer key-abc-123',
      'content-type': 'application/json',
      'user-agent': 'hermes-test/1',
    });
    const token = createHttpClient({ baseURL: url, auth: { type: 'token', token: 'm0-key-xyz' } });
    await token.get('/v1/ping/');
    expect(seen[1]!.headers.authorization).toBe('Token m0-key-xyz');
  });

  it('maps an error response to APICallError with method, path, status, server message, headers; secrets redacted', async () => {
    const { url } = await serve(
      json(
        404,
        { detail: 'Peer not found for key sk-live-secret-value' },
        { 'x-request-id': 'r1', 'set-cookie': 'a=b' },
      ),
    );
    const client = createHttpClient({
      baseURL: url,
      name: 'Honcho',
      auth: { type: 'bearer', token: 'sk-live-secret-value' },
    });
    const error = await client
      .get('/v3/peers/bob', { query: { api_key: 'sk-live-secret-value' } })
      .catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    const e = error as APICallError;
    expect(e.message).toBe(
      'Honcho: GET /v3/peers/bob failed with HTTP 404: Peer not found for key [redacted]',
    );
    expect(e).toMatchObject({ method: 'GET', path: '/v3/peers/bob', statusCode: 404, isRetryable: false });
    expect(e.serverMessage).toBe('Peer not found for key [redacted]');
    expect(e.responseHeaders).toMatchObject({ 'x-request-id': 'r1' });
    expect(e.responseHeaders?.['set-cookie']).toBeUndefined();
    expect(e.url).not.toContain('sk-live-secret-value');
    expect(e.responseBody).not.toContain('sk-live-secret-value');
    expect(JSON.stringify(e.data)).toContain('Peer not found');
  });

  it('retries idempotent requests on 5xx honouring Retry-After, on the injected clock', async () => {
    const clock = new ManualClock();
    const { url, seen } = await serve(
      json(503, { message: 'busy' }, { 'retry-after': '2' }),
      json(200, { ok: true }),
    );
    const client = createHttpClient({ baseURL: url, clock });
    const call = client.get('/status');
    await until(() => clock.nextTimerAt === 2000, 'the Retry-After sleep');
    await clock.advance(2000);
    await expect(call).resolves.toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    expect(clock.now()).toBe(2000);
  });

  it('does not repeat a POST the server may have acted on, but does after 429', async () => {
    const clock = new ManualClock();
    const { url, seen } = await serve(json(500, { error: { message: 'boom' } }));
    const client = createHttpClient({ baseURL: url, clock });
    const error = await client.post('/memories', { text: 'x' }).catch((e: unknown) => e);
    expect((error as APICallError).statusCode).toBe(500);
    expect((error as APICallError).isRetryable).toBe(false);
    expect(seen).toHaveLength(1);

    const limited = await serve(
      json(429, { detail: 'slow down' }, { 'retry-after': '0' }),
      json(201, { id: 'm1' }),
    );
    const again = createHttpClient({ baseURL: limited.url, clock }).post('/memories', { text: 'x' });
    await until(() => limited.seen.length === 1 && clock.nextTimerAt === clock.now(), 'the retry sleep');
    await clock.advance(0);
    await expect(again).resolves.toEqual({ id: 'm1' });
    expect(limited.seen).toHaveLength(2);
    // An idempotency key makes a POST safe to repeat.
    const keyed = await serve(json(502, {}), json(200, { ok: 1 }));
    const call = createHttpClient({
      baseURL: keyed.url,
      clock,
      retry: { baseDelayMs: 100, jitter: 'none' },
    }).post('/queue', {}, { idempotent: true });
    await until(() => keyed.seen.length === 1 && clock.nextTimerAt === clock.now() + 100, 'the backoff');
    await clock.advance(100);
    await expect(call).resolves.toEqual({ ok: 1 });
  });

  it('times out an attempt at its budget (clock-driven) and reports it', async () => {
    const clock = new ManualClock();
    const { url, seen } = await serve(() => {
      /* never answers */
    });
    const client = createHttpClient({ baseURL: url, clock, timeoutMs: 3000, retry: false, name: 'Mem0' });
    const call = client.get('/v1/memories/').catch((e: unknown) => e);
    await until(() => seen.length === 1, 'the request');
    await clock.advance(3000);
    const error = (await call) as APICallError;
    expect(error.message).toBe('Mem0: GET /v1/memories/ timed out after 3000 ms');
    expect(error.isRetryable).toBe(true);
    expect(seen).toHaveLength(1);
  });

  it("passes the caller's abort through untouched", async () => {
    const controller = new AbortController();
    const slow = await serve(() => {});
    const call = createHttpClient({ baseURL: slow.url })
      .get('/slow', { signal: controller.signal })
      .catch((e: unknown) => e);
    await until(() => slow.seen.length === 1, 'the request');
    const reason = new Error('turn budget spent');
    controller.abort(reason);
    expect(await call).toBe(reason);
  });

  it('reports resets, refused connections and malformed bodies as APICallError', async () => {
    const clock = new ManualClock();
    const reset = await serve((req) => req.socket.destroy());
    const e1 = (await createHttpClient({ baseURL: reset.url, clock, retry: false })
      .get('/x')
      .catch((e: unknown) => e)) as APICallError;
    expect(APICallError.isInstance(e1)).toBe(true);
    expect(e1.statusCode).toBeUndefined();
    expect(e1.isRetryable).toBe(true);

    const malformed = await serve((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"results": [');
    });
    const e2 = (await createHttpClient({ baseURL: malformed.url, clock })
      .get('/x')
      .catch((e: unknown) => e)) as APICallError;
    expect(e2.message).toMatch(/returned HTTP 200 with a body that is not JSON/);
    expect(e2.isRetryable).toBe(false);
    expect(malformed.seen).toHaveLength(1);

    const truncated = await serve((req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setImmediate(() => req.socket.destroy());
    });
    const e3 = await createHttpClient({ baseURL: truncated.url, clock, retry: false })
      .get('/x')
      .catch((e: unknown) => e);
    expect(APICallError.isInstance(e3)).toBe(true);

    // A port nothing listens on: refused, so even a POST may be retried.
    const closed = await serve(json(200, {}));
    const port = new URL(closed.url).port;
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
    const e4 = (await createHttpClient({ baseURL: `http://127.0.0.1:${port}`, retry: false })
      .post('/x', {})
      .catch((e: unknown) => e)) as APICallError;
    expect(e4.isRetryable).toBe(true);
    expect(e4.message).toMatch(/ECONNREFUSED/);
  });

  it('resolves the global fetch per call, so a replaced fetch observes the request', async () => {
    const { url } = await serve(json(200, { via: 'server' }));
    const client = createHttpClient({ baseURL: url });
    const original = globalThis.fetch;
    const calls: string[] = [];
    globalThis.fetch = (input, init) => {
      calls.push(String(input));
      return original(input, init);
    };
    try {
      await client.get('/observed');
      await globalFetch(`${url}/direct`);
    } finally {
      globalThis.fetch = original;
    }
    expect(calls).toEqual([`${url}/observed`, `${url}/direct`]);
  });

  it('goes through a breaker and records health; client errors count as answers', async () => {
    const clock = new ManualClock();
    const { url, seen } = await serve(
      json(500, {}),
      json(500, {}),
      json(404, { detail: 'nope' }),
      json(200, {}),
    );
    const health = new HealthMonitor({ clock, downAfter: 2 });
    const breaker = new CircuitBreaker({ threshold: 2, cooldownMs: 1000, clock });
    const client = createHttpClient({ baseURL: url, clock, retry: false, breaker, health });
    await expect(client.get('/a')).rejects.toThrow('HTTP 500');
    expect(health.snapshot()).toMatchObject({
      status: 'degraded',
      reason: 'HTTP: GET /a failed with HTTP 500',
    });
    await expect(client.get('/a')).rejects.toThrow('HTTP 500');
    expect(health.status).toBe('down');
    const refused = await client.get('/a').catch((e: unknown) => e);
    expect(CircuitOpenError.isInstance(refused)).toBe(true);
    expect(seen).toHaveLength(2);
    await clock.advance(1000);
    await expect(client.get('/a')).rejects.toThrow('HTTP 404');
    expect(breaker.state).toBe('closed');
    expect(health.status).toBe('ok');
  });

  it('a refused key (401, 403) counts against health: a wrong or revoked key does not read as healthy', async () => {
    const clock = new ManualClock();
    const { url } = await serve(
      json(401, { error: 'bad key' }),
      json(403, { error: 'forbidden' }),
      json(422, { error: 'bad field' }),
    );
    const health = new HealthMonitor({ clock, downAfter: 2 });
    const client = createHttpClient({ baseURL: url, clock, retry: false, health });
    await expect(client.get('/a')).rejects.toThrow('HTTP 401');
    // Before: 'ok' (every 4xx was an answer).
    expect(health.snapshot()).toMatchObject({ status: 'degraded', reason: expect.stringContaining('HTTP 401') });
    await expect(client.get('/a')).rejects.toThrow('HTTP 403');
    expect(health.status).toBe('down');
    // Any other 4xx is still an answer: the backend is up, the request was wrong.
    await expect(client.get('/a')).rejects.toThrow('HTTP 422');
    expect(health.status).toBe('ok');
  });

  it('refuses a base URL that is not http(s)', () => {
    expect(() => createHttpClient({ baseURL: 'file:///etc' })).toThrow(SettingsError);
    expect(() => createHttpClient({ baseURL: 'not a url' })).toThrow(/not a valid URL/);
  });
});
