import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createBuiltinProvider } from '@hermes-memory/builtin';
import { MemoryManager } from '@hermes-memory/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SNAPSHOT_URI, createMemoryMcpServer, serveHttp } from '../src';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-mcp-test-'));
  fs.mkdirSync(path.join(home, 'memories'));
  fs.writeFileSync(path.join(home, 'memories', 'USER.md'), 'User is Maya', { mode: 0o600 });
  const builtin = createBuiltinProvider();
  const manager = new MemoryManager();
  manager.addProvider(builtin);
  await manager.initializeAll('20260101_000000_abcdef', { hermesHome: home });
  cleanups.push(async () => {
    await manager.shutdownAll();
    fs.rmSync(home, { recursive: true, force: true });
  });
  const make = () =>
    createMemoryMcpServer({
      manager,
      snapshot: () => builtin.memoryStore?.formatForSystemPrompt('user') ?? '',
    });
  return { home, make };
}

describe('createMemoryMcpServer', () => {
  it('serves the manager tools and the snapshot over an MCP connection', async () => {
    const { home, make } = await setup();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await make().connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    cleanups.push(() => client.close());

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['memory', 'session_search']);
    const r = await client.callTool({
      name: 'memory',
      arguments: { action: 'add', target: 'memory', content: 'Uses pnpm' },
    });
    expect(r.isError).toBe(false);
    expect(fs.readFileSync(path.join(home, 'memories', 'MEMORY.md'), 'utf8')).toBe('Uses pnpm');
    const unknown = await client.callTool({ name: 'nope', arguments: {} });
    expect(unknown.isError).toBe(true);
    const snap = await client.readResource({ uri: SNAPSHOT_URI });
    expect((snap.contents[0] as { text: string }).text).toContain('User is Maya');
    await expect(client.readResource({ uri: 'hermes-memory://other' })).rejects.toThrow(/Unknown resource/);
  });

  it('answers malformed requests with MCP protocol errors: -32602 invalid params, -32002 resource not found', async () => {
    const { make } = await setup();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await make().connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    cleanups.push(() => client.close());
    const codeOf = (method: string, params: Record<string, unknown>) =>
      client.request({ method, params }, z.object({}).passthrough()).then(
        () => 'answered',
        (error: { code?: number; message?: string }) => ({ code: error.code, message: error.message }),
      );

    for (const params of [{}, { name: 5 }, { name: 'memory', arguments: 'add' }, { name: 'memory', arguments: [1] }]) {
      const answer = await codeOf('tools/call', params);
      expect(answer, JSON.stringify(params)).toMatchObject({ code: ErrorCode.InvalidParams });
      expect((answer as { message: string }).message).toMatch(/Invalid tools\/call request: .*"(name|arguments)"/s);
    }
    expect(await codeOf('resources/read', {})).toMatchObject({
      code: ErrorCode.InvalidParams,
      message: expect.stringMatching(/params\.uri/),
    });
    expect(await codeOf('resources/read', { uri: 'hermes-memory://other' })).toMatchObject({
      code: -32002,
      message: expect.stringMatching(/Unknown resource: hermes-memory:\/\/other/),
    });
    // the connection survives: a good call still works
    expect((await client.callTool({ name: 'memory', arguments: { action: 'add', target: 'user', content: 'ok' } })).isError).toBe(false);
  });

  it('serves streamable HTTP on 127.0.0.1', async () => {
    const { make } = await setup();
    const handle = await serveHttp(make, { port: 0 });
    cleanups.push(() => handle.close());
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(handle.url), {
        requestInit: { headers: { authorization: `Bearer ${handle.token}` } },
      }),
    );
    cleanups.push(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('memory');
    const r = await client.callTool({
      name: 'memory',
      arguments: { action: 'add', target: 'user', content: 'Likes tea' },
    });
    expect(JSON.parse((r.content as Array<{ text: string }>)[0]!.text).success).toBe(true);
  });
});
