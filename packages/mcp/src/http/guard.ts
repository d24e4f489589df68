import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/** An HTTP refusal: status, a JSON-RPC error body, extra headers. */
export interface Refusal {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** A fresh bearer token: 32 random bytes, base64url. */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The Host and Origin values a loopback server on `port` answers to. */
export function loopbackNames(host: string, port: number): { hosts: Set<string>; origins: Set<string> } {
  const names = [...new Set([host, '127.0.0.1', 'localhost', '[::1]'])];
  return {
    hosts: new Set(names.flatMap((n) => [`${n}:${port}`, n])),
    origins: new Set(names.map((n) => `http://${n}:${port}`)),
  };
}

/**
 * Who may talk to the server, checked before any body is read:
 * - Host must be a loopback name (a DNS-rebinding page reaches us under its own name);
 * - Origin, when sent (browsers always send it), must be this server's own loopback origin, so a web
 *   page cannot drive it even through a loopback name;
 * - `Authorization: Bearer <token>` must carry this start's token, so another local process or user
 *   cannot read or write memory. Compared in constant time.
 */
export function checkAccess(
  req: http.IncomingMessage,
  allowed: { hosts: Set<string>; origins: Set<string> },
  token: string,
): Refusal | undefined {
  const host = header(req, 'host') ?? '';
  if (!allowed.hosts.has(host.toLowerCase()))
    return { status: 403, message: `Host '${host}' is not allowed.` };
  const origin = header(req, 'origin');
  if (origin !== undefined && !allowed.origins.has(origin.toLowerCase()))
    return { status: 403, message: `Origin '${origin}' is not allowed.` };
  const auth = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '')?.[1];
  if (auth === undefined || !timingSafeEqual(digest(auth), digest(token)))
    return {
      status: 401,
      message:
        'Missing or wrong bearer token (Authorization: Bearer <token>, printed when the server started).',
      headers: { 'www-authenticate': 'Bearer realm="hermes-memory"' },
    };
  return undefined;
}

/**
 * Read a JSON request body of at most `maxBytes`. A larger one is refused (413) as soon as its
 * Content-Length, or the bytes received, say so, without buffering the rest.
 */
export async function readJsonBody(
  req: http.IncomingMessage,
  maxBytes: number,
): Promise<{ value: unknown } | Refusal> {
  const tooLarge: Refusal = {
    status: 413,
    message: `Request body over ${maxBytes} bytes.`,
    headers: { connection: 'close' },
  };
  if (Number(header(req, 'content-length') ?? 0) > maxBytes) return tooLarge;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (result: { value: unknown } | Refusal) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        req.pause(); // the 413 goes out with "connection: close"; the rest is never buffered
        settle(tooLarge);
      } else chunks.push(chunk);
    });
    req.once('error', () => settle({ status: 400, message: 'The request body could not be read.' }));
    req.once('end', () => {
      try {
        settle({ value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        settle({ status: 400, message: 'Parse error: the body is not valid JSON.' });
      }
    });
  });
}

/** Send a refusal as a JSON-RPC error object. */
export function refuse(res: http.ServerResponse, refusal: Refusal, code = -32000): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res
    .writeHead(refusal.status, { 'content-type': 'application/json', ...refusal.headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code, message: refusal.message }, id: null }));
}
