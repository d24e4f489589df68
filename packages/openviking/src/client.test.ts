import { APICallError } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenvikingClient } from './client';
import { startFakeOpenviking } from './testing';

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function server(options: Parameters<typeof startFakeOpenviking>[0] = {}) {
  const s = await startFakeOpenviking(options);
  servers.push(s);
  return s;
}

function client(url: string, extra: Partial<ConstructorParameters<typeof OpenvikingClient>[0]> = {}) {
  return new OpenvikingClient({
    endpoint: url,
    apiKey: '',
    account: '',
    user: '',
    agent: '',
    timeoutMs: 2000,
    version: '1.2.3',
    ...extra,
  });
}

describe('client', () => {
  it('§4.9.3 with a key: X-API-Key and Bearer, no tenant headers; the key never reaches the recording', async () => {
    const s = await server({ apiKey: 'user-key-123' });
    await client(s.url, {
      apiKey: 'user-key-123',
      account: 'acme',
      user: 'bob',
      agent: 'hermes',
    }).systemStatus();
    const [request] = s.requests;
    expect(request!.headers).toMatchObject({
      'x-api-key': '[redacted]',
      authorization: 'Bearer [redacted]',
      'x-openviking-actor-peer': 'hermes',
      'user-agent': 'openviking-memory-hermes/1.2.3',
    });
    expect(request!.headers['x-openviking-account']).toBeUndefined();
    expect(request!.headers['x-openviking-user']).toBeUndefined();
    expect(JSON.stringify(s.requests)).not.toContain('user-key-123');
  });

  it('§4.9.3 without a key: tenant headers (default/default unless set), no actor peer without an agent', async () => {
    const s = await server();
    await client(s.url).systemStatus();
    await client(s.url, { account: 'acme', user: 'bob' }).systemStatus();
    expect(s.requests[0]!.headers).toMatchObject({
      'x-openviking-account': 'default',
      'x-openviking-user': 'default',
    });
    expect(s.requests[0]!.headers['x-openviking-actor-peer']).toBeUndefined();
    expect(s.requests[0]!.headers.authorization).toBeUndefined();
    expect(s.requests[1]!.headers).toMatchObject({
      'x-openviking-account': 'acme',
      'x-openviking-user': 'bob',
    });
  });

  it('§4.9.3 multipart upload: the form sets its own content type, no tenant headers with a key, actor peer kept', async () => {
    const s = await server({ apiKey: 'user-key-123' });
    const id = await client(s.url, { apiKey: 'user-key-123', agent: 'hermes' }).tempUpload(
      new TextEncoder().encode('hello'),
      'notes.txt',
    );
    expect(id).toMatch(/^tmp_/);
    const [request] = s.requests;
    expect(String(request!.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    expect(request!.headers['x-openviking-account']).toBeUndefined();
    expect(request!.headers['x-openviking-actor-peer']).toBe('hermes');
  });

  it('§4.9.4 a trusted-mode refusal of a keyed request is retried exactly once, with tenant headers', async () => {
    const s = await server({ apiKey: 'user-key-123', trustedMode: true });
    const status = await client(s.url, {
      apiKey: 'user-key-123',
      account: 'acme',
      user: 'bob',
    }).systemStatus();
    expect(status.user).toBe('default');
    expect(s.requests.map((r) => r.status)).toEqual([400, 200]);
    expect(s.requests[1]!.headers).toMatchObject({
      'x-openviking-account': 'acme',
      'x-openviking-user': 'bob',
    });
    // Any other 400 is not retried.
    s.requests.length = 0;
    await expect(client(s.url, { apiKey: 'user-key-123' }).search({ query: '' })).rejects.toThrow();
    expect(s.requests).toHaveLength(2); // trusted retry once, then the real 400 (empty query)
    expect(s.requests[1]!.status).toBe(400);
  });

  it('§4.9.5 identity probe: modern, legacy (confirmed by openapi.json), unhealthy and invalid — anonymously', async () => {
    const modern = await server({ apiKey: 'k-12345' });
    expect(await client(modern.url, { apiKey: 'k-12345' }).identify()).toEqual({
      kind: 'modern',
      version: '0.3.0-fake',
    });
    expect(modern.requests[0]!.headers.authorization).toBeUndefined();
    expect(modern.requests[0]!.headers['x-api-key']).toBeUndefined();
    expect(modern.requests[0]!.headers['x-openviking-account']).toBeUndefined();
    const legacy = await server({ health: 'legacy' });
    expect(await client(legacy.url).identify()).toEqual({ kind: 'legacy' });
    expect(legacy.requests.map((r) => r.path)).toEqual(['/health', '/openapi.json']);
    expect((await client((await server({ health: 'unhealthy' })).url).identify()).kind).toBe('unhealthy');
    expect((await client((await server({ health: 'not-openviking' })).url).identify()).kind).toBe('invalid');
    const closed = await server();
    const url = closed.url;
    await closed.close();
    expect((await client(url).identify()).kind).toBe('unreachable');
  });

  it('§4.9.5 a /health that needs a key (401) is asked again once with the key, still without tenant headers', async () => {
    const s = await server({ apiKey: 'k-12345' });
    s.fail({ type: 'status', status: 401, route: 'GET /health' });
    expect((await client(s.url, { apiKey: 'k-12345' }).identify()).kind).toBe('modern');
    expect(s.requests.map((r) => [r.status, r.headers['x-api-key'] ?? null])).toEqual([
      [401, null],
      [200, '[redacted]'],
    ]);
  });

  it('envelope errors: HTTP errors read "CODE: message", a 200 with status "error" is an error, HTML pages reduced to their title', async () => {
    const s = await server();
    const c = client(s.url);
    const notFound = await c
      .content('read', 'viking://user/default/memories/nope.md')
      .catch((e: unknown) => e);
    expect(APICallError.isInstance(notFound)).toBe(true);
    expect((notFound as Error).message).toContain('NOT_FOUND: No such file');
    s.fail({
      type: 'status',
      status: 200,
      body: JSON.stringify({ status: 'error', error: { code: 'INTERNAL', message: 'index offline' } }),
      route: 'GET /api/v1/fs/stat',
    });
    await expect(c.stat('viking://')).rejects.toThrow(/INTERNAL: index offline/);
    s.fail({
      type: 'status',
      status: 502,
      body: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
      route: 'GET /api/v1/fs/tree',
    });
    s.fail({
      type: 'status',
      status: 502,
      body: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
      route: 'GET /api/v1/fs/tree',
    });
    const html = (await c.tree('viking://').catch((e: unknown) => e)) as Error;
    expect(html.message).toContain('502 Bad Gateway');
    expect(html.message).not.toContain('nginx');
  });
});
