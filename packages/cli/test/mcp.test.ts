import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, run, tempHome } from './helpers';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) fs.rmSync(h, { recursive: true, force: true });
});

describe('hermes-memory mcp (stdio, built binary)', () => {
  it('lists tools, calls memory add, reads the snapshot resource', async () => {
    const home = tempHome();
    homes.push(home);
    expect(run(home, ['memory', 'add', 'User is called Maya', '--target', 'user']).code).toBe(0);

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--home', home],
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('memory');
      expect(names).toContain('session_search');
      expect(tools.find((t) => t.name === 'memory')?.inputSchema.type).toBe('object');

      const added = await client.callTool({
        name: 'memory',
        arguments: { action: 'add', target: 'memory', content: 'Project uses pnpm' },
      });
      expect(added.isError).toBe(false);
      const payload = JSON.parse((added.content as Array<{ text: string }>)[0]!.text);
      expect(payload.success).toBe(true);
      expect(fs.readFileSync(path.join(home, 'memories', 'MEMORY.md'), 'utf8')).toBe('Project uses pnpm');

      const bad = await client.callTool({
        name: 'memory',
        arguments: { action: 'add', target: 'nowhere', content: 'x' },
      });
      expect(bad.isError).toBe(true);

      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toContain('hermes-memory://snapshot');
      const snap = await client.readResource({ uri: 'hermes-memory://snapshot' });
      const text = (snap.contents[0] as { text: string }).text;
      // Read afresh: the profile and the write made through the server are both there...
      expect(text).toContain('USER PROFILE (who the user is)');
      expect(text).toContain('User is called Maya');
      expect(text).toContain('Project uses pnpm');
      // ...and so is a write made by another program while the server kept running.
      expect(run(home, ['memory', 'add', 'Written by another process', '--target', 'memory']).code).toBe(0);
      const again = await client.readResource({ uri: 'hermes-memory://snapshot' });
      expect((again.contents[0] as { text: string }).text).toContain('Written by another process');
      const prompt = await client.readResource({ uri: 'hermes-memory://system-prompt' });
      expect((prompt.contents[0] as { text: string }).text).toContain('Written by another process');
    } finally {
      await client.close();
    }
  });
});

describe('hermes-memory mcp with a provider this install lacks', () => {
  it('serves built-in memory and warns, instead of not starting (a Python home naming honcho)', async () => {
    // Before: "hermes-memory: Memory provider 'honcho' not found …", exit 1, and the MCP client
    // lost even MEMORY.md / USER.md.
    const home = tempHome();
    homes.push(home);
    fs.writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  provider: honcho-not-installed\n');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--home', home],
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['memory', 'session_search']);
      const added = await client.callTool({
        name: 'memory',
        arguments: { action: 'add', content: 'Uses pnpm' },
      });
      expect(added.isError).toBe(false);
    } finally {
      await client.close();
    }
    expect(stderr).toMatch(
      /Memory provider 'honcho-not-installed' not found\..*Continuing with built-in memory only\./,
    );
  });
});

describe('hermes-memory mcp --http (built binary)', () => {
  it('prints a per-start bearer token and refuses requests without it (§12)', async () => {
    const home = tempHome();
    homes.push(home);
    const child = spawn(process.execPath, [BIN, 'mcp', '--home', home, '--http', '0'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
        let stderr = '';
        child.stderr!.on('data', (d) => {
          stderr += String(d);
          const url = /server on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)?.[1];
          const token = /Authorization: Bearer (\S+)/.exec(stderr)?.[1];
          if (url && token) resolve({ url, token });
        });
        child.once('exit', (code) => reject(new Error(`mcp exited ${code}: ${stderr}`)));
      });
      const anonymous = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      expect(anonymous.status).toBe(401);
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const added = await client.callTool({
          name: 'memory',
          arguments: { action: 'add', target: 'memory', content: 'Added over HTTP' },
        });
        expect(added.isError).toBe(false);
        expect(fs.readFileSync(path.join(home, 'memories', 'MEMORY.md'), 'utf8')).toBe('Added over HTTP');
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });

  it('takes the token from --token or HERMES_MEMORY_MCP_TOKEN, and refuses a short one', () => {
    const home = tempHome();
    homes.push(home);
    const short = run(home, ['mcp', '--http', '0', '--token', 'short']);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/at least 16 characters/);
    const stdio = run(home, ['mcp', '--token', 'a-long-enough-token']);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toMatch(/only applies to --http/);
  });
});
