import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * Serve one MCP server over stdin/stdout until the client disconnects. Nothing else may write to
 * stdout while it runs (logs go to stderr).
 */
export async function serveStdio(server: Server): Promise<{ closed: Promise<void> }> {
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    const previous = server.onclose;
    server.onclose = () => {
      previous?.();
      resolve();
    };
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  return { closed };
}

export interface HttpMcpHandle {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Streamable HTTP on loopback only. Each MCP session gets its own `Server` from `createServer`
 * (a server serves one connection). DNS-rebinding protection allows only loopback Host headers.
 */
export async function serveHttp(
  createServer: () => Server,
  options: { port?: number; host?: string; path?: string } = {},
): Promise<HttpMcpHandle> {
  const host = options.host ?? '127.0.0.1';
  const endpoint = options.path ?? '/mcp';
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let allowedHosts: string[] = [];

  const httpServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== endpoint) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    const existing = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !existing) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
        );
      return;
    }
    if (existing) {
      existing.handleRequest(req, res).catch((error: unknown) => fail(res, error));
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
      enableDnsRebindingProtection: true,
      allowedHosts,
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = createServer();
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch((error: unknown) => fail(res, error));
  });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  allowedHosts = [`${host}:${port}`, `localhost:${port}`, host, 'localhost'];

  return {
    url: `http://${host}:${port}${endpoint}`,
    port,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      sessions.clear();
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

function fail(res: http.ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const message = error instanceof Error ? error.message : String(error);
  res
    .writeHead(500, { 'content-type': 'application/json' })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message }, id: null }));
}
