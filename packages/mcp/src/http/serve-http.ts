import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { FairGate } from './fair-gate';
import { type Refusal, checkAccess, loopbackNames, newToken, readJsonBody, refuse } from './guard';
import { SessionTable } from './session-table';

export interface HttpMcpOptions {
  /** Port on 127.0.0.1 (default 0: any free port). */
  port?: number;
  host?: string;
  /** Endpoint path (default `/mcp`). */
  path?: string;
  /**
   * Bearer token every request must carry (`Authorization: Bearer <token>`). Default: 32 random
   * bytes, new on every start; read it from the handle.
   */
  token?: string;
  /** Largest request body accepted (default 256 KiB); larger is refused with 413 before parsing. */
  maxBodyBytes?: number;
  /** Requests handled at once, over all sessions (default 4). */
  maxConcurrent?: number;
  /** Requests handled at once for one session (default 2). */
  maxConcurrentPerSession?: number;
  /** Requests one session may have waiting; more are refused with 429 (default 16). */
  maxQueuedPerSession?: number;
  /** A session unused this long is closed (default 30 minutes). */
  sessionIdleMs?: number;
  /** Open sessions at most; a new one closes the least recently used idle one (default 64). */
  maxSessions?: number;
  /** Clock for session expiry (tests inject one). */
  now?: () => number;
}

export interface HttpMcpHandle {
  /** `http://127.0.0.1:<port>/mcp` */
  url: string;
  port: number;
  /** The bearer token clients must send. */
  token: string;
  /** Open MCP sessions. */
  sessionCount(): number;
  close(): Promise<void>;
}

/** Limits the server starts with unless told otherwise (documented in the README). */
export const HTTP_DEFAULTS: Readonly<Record<HttpLimit, number>> = Object.freeze({
  maxBodyBytes: 256 * 1024,
  maxConcurrent: 4,
  maxConcurrentPerSession: 2,
  maxQueuedPerSession: 16,
  sessionIdleMs: 30 * 60_000,
  maxSessions: 64,
});

type HttpLimit =
  | 'maxBodyBytes'
  | 'maxConcurrent'
  | 'maxConcurrentPerSession'
  | 'maxQueuedPerSession'
  | 'sessionIdleMs'
  | 'maxSessions';

/** Requests that open a session share one queue, so a burst of them cannot starve open sessions. */
const NEW_SESSION_KEY = '\0new-session';

/**
 * Streamable HTTP on loopback only. Each MCP session gets its own `Server` from `createServer` (a
 * server serves one connection). Every request must come from a loopback Host, from no browser
 * page but our own Origin, and carry the bearer token; bodies are capped; POSTs (the requests that
 * do work) pass a fair, bounded gate; idle sessions expire and their number is capped.
 */
export async function serveHttp(
  createServer: () => Server,
  options: HttpMcpOptions = {},
): Promise<HttpMcpHandle> {
  const host = options.host ?? '127.0.0.1';
  const endpoint = options.path ?? '/mcp';
  const token = options.token ?? newToken();
  if (token.length < 16) throw new RangeError('The MCP bearer token must be at least 16 characters.');
  const limits = { ...HTTP_DEFAULTS, ...definedOnly(options) };
  const sessions = new SessionTable<StreamableHTTPServerTransport>({
    idleMs: limits.sessionIdleMs,
    maxSessions: limits.maxSessions,
    now: options.now ?? Date.now,
  });
  const gate = new FairGate({
    maxRunning: limits.maxConcurrent,
    maxRunningPerKey: limits.maxConcurrentPerSession,
    maxQueuedPerKey: limits.maxQueuedPerSession,
  });
  let allowed = loopbackNames(host, 0);

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== endpoint) return refuse(res, { status: 404, message: 'Not found' });
    const denied = checkAccess(req, allowed, token);
    if (denied) return refuse(res, denied);
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    // A POST (work) marks its session used and busy until answered; the GET event stream, open
    // for good, does not keep a session from expiring.
    const working = req.method === 'POST';
    const transport =
      sessionId === undefined ? undefined : working ? sessions.begin(sessionId) : sessions.peek(sessionId);
    sessions.sweep(); // every request expires the idle sessions (the timer does it without traffic)
    if (sessionId === undefined) return serve(req, res, undefined);
    if (!transport) return refuse(res, { status: 404, message: 'Session not found' }, -32001);
    if (working) res.once('close', () => sessions.done(sessionId));
    await serve(req, res, { id: sessionId, transport });
  }

  async function serve(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    session: { id: string; transport: StreamableHTTPServerTransport } | undefined,
  ): Promise<void> {
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req, limits.maxBodyBytes);
      if (!('value' in read)) return refuse(res, read, read.status === 400 ? -32700 : -32000);
      body = read.value;
      // Only POSTs carry work; GET is the long-lived event stream, DELETE ends a session.
      const admission = gate.enter(session?.id ?? NEW_SESSION_KEY);
      if (!admission) return refuse(res, tooBusy());
      let release: (() => void) | undefined;
      let closed = false;
      res.once('close', () => {
        closed = true;
        release?.();
      });
      release = await admission;
      if (closed) return release(); // the client gave up while waiting
    }
    const transport = session?.transport ?? openSession(res);
    if (transport) await transport.handleRequest(req, res, body);
  }

  function openSession(res: http.ServerResponse): StreamableHTTPServerTransport | undefined {
    if (!sessions.makeRoom()) {
      refuse(res, { status: 503, message: 'Too many open MCP sessions; retry shortly.' });
      return undefined;
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.add(id, transport),
      enableDnsRebindingProtection: true,
      allowedHosts: [...allowed.hosts],
      allowedOrigins: [...allowed.origins],
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.forget(transport.sessionId);
    };
    createServer()
      .connect(transport)
      .catch(() => undefined);
    return transport;
  }

  const httpServer = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      refuse(res, { status: 500, message: error instanceof Error ? error.message : String(error) }, -32603),
    );
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (httpServer.address() as AddressInfo).port;
  allowed = loopbackNames(host, port);
  // Expire idle sessions even when no request comes in to trigger the sweep.
  const sweeper = setInterval(() => sessions.sweep(), Math.min(limits.sessionIdleMs, 60_000));
  sweeper.unref();

  return {
    url: `http://${host}:${port}${endpoint}`,
    port,
    token,
    sessionCount: () => sessions.size,
    async close() {
      clearInterval(sweeper);
      await sessions.closeAll();
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      httpServer.closeAllConnections();
      await closed;
    },
  };
}

function tooBusy(): Refusal {
  return {
    status: 429,
    message: 'Too many requests in flight for this session; wait for earlier ones to finish.',
    headers: { 'retry-after': '1' },
  };
}

function definedOnly(options: HttpMcpOptions): Partial<Record<HttpLimit, number>> {
  const out: Partial<Record<HttpLimit, number>> = {};
  for (const key of Object.keys(HTTP_DEFAULTS) as HttpLimit[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value <= 0)
      throw new RangeError(`serveHttp: '${key}' must be a positive number.`);
    out[key] = value;
  }
  return out;
}
