import { APICallError } from '@hermes-memory/core';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { RetaindbClient } from './client';
import { FAKE_RETAINDB_KEY, startFakeRetaindb } from './testing';

const backend = await startFakeRetaindb();
afterAll(() => backend.close());
beforeEach(() => backend.reset());
const client = () =>
  new RetaindbClient({ baseURL: `${backend.url}//`, apiKey: FAKE_RETAINDB_KEY, project: 'p' });
const scope = { userId: 'u1', sessionId: 's1' };

describe('RetaindbClient wire protocol', () => {
  it('§4.9.5 Bearer and x-sdk-runtime on every request; X-API-Key only on /v1/memory* and /v1/context*', async () => {
    const c = client();
    await c.search(scope, 'tea', 8);
    await c.queryContext(scope, 'tea');
    await c.listFiles(undefined, 50);
    await c.getProfile('u1');
    for (const request of backend.requests) {
      expect(request.headers.authorization).toBe('Bearer [redacted]');
      expect(request.headers['x-sdk-runtime']).toBe('hermes-plugin');
      const keyed = request.path.startsWith('/v1/memory') || request.path.startsWith('/v1/context');
      expect(request.headers['x-api-key'] !== undefined, request.path).toBe(keyed);
    }
    // Recordings never hold the key.
    expect(JSON.stringify(backend.requests)).not.toContain(FAKE_RETAINDB_KEY);
  });

  it('§4.9.6 a non-2xx response is an error naming the method, the path, the status and the server message', async () => {
    backend.fail({ type: 'status', status: 422, body: JSON.stringify({ message: 'query too long' }) });
    const error = await client()
      .search(scope, 'x', 8)
      .catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    const message = (error as Error).message;
    for (const part of ['POST', '/v1/memory/search', '422', 'query too long'])
      expect(message).toContain(part);
    expect(message).not.toContain(FAKE_RETAINDB_KEY);
  });

  it('§4.9.7 add_memory posts /v1/memory with write_mode sync, and on any error /v1/memories without it (2 calls)', async () => {
    backend.fail({ type: 'status', status: 500, path: '/v1/memory' });
    const result = await client().addMemory(scope, {
      content: 'likes tea',
      memoryType: 'factual',
      importance: 0.7,
    });
    expect(result.id).toMatch(/^mem_/);
    const calls = backend.requests.map((r) => [
      r.method,
      r.path,
      (r.body as Record<string, unknown>).write_mode,
    ]);
    expect(calls).toEqual([
      ['POST', '/v1/memory', 'sync'],
      ['POST', '/v1/memories', undefined],
    ]);
  });

  it('§4.9.8 delete_memory and get_profile fall back to their legacy routes', async () => {
    const legacy = await startFakeRetaindb({ legacyOnly: true });
    try {
      const c = new RetaindbClient({ baseURL: legacy.url, apiKey: FAKE_RETAINDB_KEY, project: 'p' });
      const added = await c.addMemory(scope, {
        content: 'likes tea',
        memoryType: 'preference',
        importance: 0.7,
      });
      const profile = await c.getProfile('u1');
      expect((profile.memories as Array<{ content: string }>).map((m) => m.content)).toEqual(['likes tea']);
      await c.deleteMemory(String(added.id));
      expect(legacy.dump().memories).toEqual([]);
      expect(legacy.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
        'POST /v1/memory 404',
        'POST /v1/memories 201',
        'GET /v1/memory/profile/u1 404',
        'GET /v1/memories 200',
        `DELETE /v1/memory/${added.id} 404`,
        `DELETE /v1/memories/${added.id} 200`,
      ]);
      expect(legacy.requests[3]?.query.limit).toBe('200');
    } finally {
      await legacy.close();
    }
  });

  it('encodes path segments with no safe characters, and sends no JSON body on GET or DELETE', async () => {
    await client().getProfile('a/b c');
    expect(backend.requests[0]?.path).toBe('/v1/memory/profile/a%2Fb%20c');
    expect(backend.requests[0]?.rawBody).toBe('');
  });

  it('an aborted call does not fall back', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(client().getProfile('u1', controller.signal)).rejects.toThrow();
    expect(backend.requests).toHaveLength(0);
  });
});
