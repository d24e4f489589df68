import http from 'node:http';
import type { ToolCallOptions, ToolSchema } from '@hermes-memory/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type HttpMcpHandle,
  type HttpMcpOptions,
  type McpMemoryManager,
  createMemoryMcpServer,
  serveHttp,
} from '../src';

// §12 (red team, medium): the HTTP mode accepted unauthenticated writes from any local process,
// checked Host but not Origin, had no body cap or work bound (one big call froze every client), and
// kept every session forever (2,000 sessions: +95 MB).

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A manager whose `slow` tool waits until the test releases it (no timers), and whose `fast` tool
 * answers at once; it records how many calls run at the same time.
 */
function gatedManager() {
  const waiting: Array<() => void> = [];
  const stats = { running: 0, maxRunning: 0, finished: 0 };
  const schema = (name: string): ToolSchema => ({
    name,
    description: name,
    parameters: { type: 'object', properties: {} },
  });
  const manager: McpMemoryManager = {
    getAllToolSchemas: () => [schema('slow'), schema('fast')],
    async handleToolCall(name: string, _args: unknown, _options?: ToolCallOptions) {
      if (name === 'fast') return JSON.stringify({ success: true });
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      const released = new Promise<void>((resolve) => waiting.push(resolve));
      notify();
      await released;
      stats.running--;
      stats.finished++;
      notify();
      return JSON.stringify({ success: true });
    },
  };
  return { manager, stats, waiting };
}

async function start(manager: McpMemoryManager, options: HttpMcpOptions = {}): Promise<HttpMcpHandle> {
  const handle = await serveHttp(() => createMemoryMcpServer({ manager }), { port: 0, ...options });
  cleanups.push(() => handle.close());
  return handle;
}

async function connectWithTransport(handle: HttpMcpHandle, token = handle.token) {
  const client = new Client({ name: 't', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(handle.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return { client, transport };
}

async function connect(handle: HttpMcpHandle, token = handle.token): Promise<Client> {
  return (await connectWithTransport(handle, token)).client;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function post(handle: HttpMcpHandle, headers: Record<string, string>, body = initialize): Promise<Response> {
  return fetch(handle.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

/** The JSON-RPC error object of a refused request. */
async function rpcError(res: Response): Promise<{ code: number; message: string }> {
  return ((await res.json()) as { error: { code: number; message: string } }).error;
}

/** Test state changes (a call starts, finishes, a response arrives) wake `until`: no polling, no sleeps. */
const listeners = new Set<() => void>();
function notify(): void {
  for (const listener of [...listeners]) listener();
}
function until(check: () => boolean): Promise<void> {
  if (check()) return Promise.resolve();
  return new Promise((resolve) => {
    const listener = () => {
      if (!check()) return;
      listeners.delete(listener);
      resolve();
    };
    listeners.add(listener);
  });
}

describe('serveHttp access control', () => {
  it('refuses requests without the per-start bearer token, with a wrong one, or from a foreign Origin', async () => {
    const { manager } = gatedManager();
    const handle = await start(manager);
    expect(handle.token.length).toBeGreaterThanOrEqual(40);
    expect((await start(manager)).token).not.toBe(handle.token); // new on every start
    const bearer = `Bearer ${handle.token}`;

    const none = await post(handle, {});
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await rpcError(none)).message).toMatch(/bearer token/);
    expect((await post(handle, { authorization: `Bearer ${handle.token}x` })).status).toBe(401);
    expect((await post(handle, { authorization: handle.token })).status).toBe(401);

    const evil = await post(handle, { authorization: bearer, origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect((await rpcError(evil)).message).toMatch(/Origin/);
    expect((await post(handle, { authorization: bearer, origin: 'http://localhost:1' })).status).toBe(403);

    const own = await post(handle, { authorization: bearer, origin: `http://127.0.0.1:${handle.port}` });
    expect(own.status).toBe(200);
    expect((await post(handle, { authorization: bearer })).status).toBe(200); // non-browser: no Origin
  });

  it('accepts a token given by the caller and refuses a short one', async () => {
    const { manager } = gatedManager();
    const handle = await start(manager, { token: 'a-token-set-by-flag-or-env' });
    expect(handle.token).toBe('a-token-set-by-flag-or-env');
    const client = await connect(handle);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['slow', 'fast']);
    await expect(start(manager, { token: 'short' })).rejects.toThrow(/at least 16/);
  });

  it('refuses a body over the cap with 413 before parsing it', async () => {
    const { manager } = gatedManager();
    const handle = await start(manager, { maxBodyBytes: 4096 });
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { pad: 'x'.repeat(150_000) },
    });
    const r = await post(handle, { authorization: `Bearer ${handle.token}` }, big);
    expect(r.status).toBe(413);
    expect((await rpcError(r)).message).toMatch(/over 4096 bytes/);
    const broken = await post(handle, { authorization: `Bearer ${handle.token}` }, '{"jsonrpc":');
    expect(broken.status).toBe(400);
    expect((await rpcError(broken)).code).toBe(-32700);
  });
});

describe('serveHttp bounded, fair work', () => {
  /** A raw tools/call POST on its own connection, so the test decides how many arrive at once. */
  function rawCall(
    handle: HttpMcpHandle,
    sessionId: string,
    id: number,
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = http.request(
        handle.url,
        {
          method: 'POST',
          agent: false,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${handle.token}`,
            'mcp-session-id': sessionId,
            'mcp-protocol-version': '2025-03-26',
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => {
            body += String(d);
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(
        JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } }),
      );
    });
  }

  it('one client flooding the server runs at most its share, queues the rest, and cannot starve another', async () => {
    const { manager, stats, waiting } = gatedManager();
    const handle = await start(manager, {
      maxConcurrent: 3,
      maxConcurrentPerSession: 2,
      maxQueuedPerSession: 4,
    });
    const { client: flooder, transport } = await connectWithTransport(handle);
    const other = await connect(handle);
    expect((await flooder.listTools()).tools).toHaveLength(2);
    const settled: Array<{ status: number; body: string }> = [];
    const flood = Array.from({ length: 8 }, (_, i) =>
      rawCall(handle, transport.sessionId!, 100 + i).then((r) => {
        settled.push(r);
        notify();
        return r;
      }),
    );
    // 2 run, 4 wait their turn, and the 2 beyond the queue are refused at once with a clear error.
    await until(() => stats.running === 2 && settled.length === 2);
    for (const r of settled) {
      expect(r.status).toBe(429);
      expect(r.body).toMatch(/Too many requests in flight/);
    }
    // The other client's call is served while the flooder's are still blocked.
    const answer = await other.callTool({ name: 'fast', arguments: {} });
    expect(JSON.parse((answer.content as Array<{ text: string }>)[0]!.text).success).toBe(true);
    expect(stats.running).toBe(2);
    for (let released = 0; released < 6; released++) {
      await until(() => waiting.length > 0);
      waiting.shift()!();
    }
    const outcomes = await Promise.all(flood);
    expect(outcomes.filter((o) => o.status === 200 && o.body.includes('success'))).toHaveLength(6);
    expect(stats.maxRunning).toBe(2);
  });
});

describe('serveHttp session expiry', () => {
  it('closes sessions idle past the timeout (injected clock)', async () => {
    let now = 1_000_000;
    const { manager } = gatedManager();
    const handle = await start(manager, { sessionIdleMs: 60_000, now: () => now });
    const a = await connect(handle);
    await connect(handle);
    expect(handle.sessionCount()).toBe(2);
    now += 30_000;
    await a.listTools(); // a is used; the other one is not
    now += 45_000;
    const c = await connect(handle); // any request sweeps: the session unused for 75 s is gone
    expect(handle.sessionCount()).toBe(2);
    now += 20_000;
    await c.listTools(); // now a has been idle for 65 s
    expect(handle.sessionCount()).toBe(1);
    await expect(a.listTools()).rejects.toThrow(/Session not found|404/);
  });

  it('caps the number of sessions, closing the least recently used', async () => {
    const { manager } = gatedManager();
    const handle = await start(manager, { maxSessions: 3 });
    const clients = [];
    for (let i = 0; i < 3; i++) clients.push(await connect(handle));
    await clients[0]!.listTools(); // 0 is now more recent than 1
    await connect(handle);
    expect(handle.sessionCount()).toBe(3);
    await expect(clients[1]!.listTools()).rejects.toThrow(/Session not found|404/);
    expect((await clients[0]!.listTools()).tools).toHaveLength(2);
  });
});
