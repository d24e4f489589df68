/**
 * The loopback half of a browser sign-in (the `gh` / `gcloud auth login` pattern): a one-shot
 * listener on 127.0.0.1 (port 0: the OS picks one) that waits for the browser to come back to
 * `/callback?…&state=…`. It listens before the caller opens anything, so a fast redirect cannot
 * miss it. A request without our state (a stray or forged one) gets a 400 page and neither
 * completes nor ends the wait. Bounded by a timeout on the injected clock and by a signal.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TimeoutError } from '../errors/memory-error';
import { type Clock, systemClock } from '../resilience/clock';

/** Five minutes for the user to finish in the browser, as the references wait. */
export const LOOPBACK_TIMEOUT_MS = 300_000;

/** The page the browser shows, and — when `error` is set — the reason the wait fails. */
export interface LoopbackAnswer {
  title: string;
  text: string;
  error?: unknown;
}

export interface LoopbackCallbackOptions {
  /** The random state the browser must bring back. */
  state: string;
  /** Names the flow in errors: `Honcho OAuth`, `Hindsight connect`. */
  label: string;
  /** What to answer a callback carrying our state; without `error`, the wait resolves with its parameters. */
  respond: (params: URLSearchParams) => LoopbackAnswer;
  /** Shown for a callback without our state. */
  strayPage?: { title: string; text: string };
  /** Default `LOOPBACK_TIMEOUT_MS`. */
  timeoutMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

export interface LoopbackCallback {
  port: number;
  /** `http://127.0.0.1:<port>/callback`. */
  redirectUri: string;
  /** The callback's query parameters. Rejects on a denial (`respond`'s error), the timeout, the signal or `close()`. */
  result: Promise<URLSearchParams>;
  /** Stop listening (idempotent); `result` rejects if it had not settled. */
  close(): void;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, text: string): string {
  return `<!doctype html><meta charset=utf-8><title>${escapeHtml(title)}</title><body style="font:14px ui-monospace,monospace;display:flex;align-items:center;justify-content:center;height:100vh;margin:0"><div>${escapeHtml(text)}</div>`;
}

export async function listenForLoopbackCallback(options: LoopbackCallbackOptions): Promise<LoopbackCallback> {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? LOOPBACK_TIMEOUT_MS;
  let settle!: { resolve: (params: URLSearchParams) => void; reject: (error: unknown) => void };
  const arrived = new Promise<URLSearchParams>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Awaited by the caller once the browser is open; a denial may arrive before that.
  arrived.catch(() => undefined);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    if (url.searchParams.get('state') !== options.state) {
      const stray = options.strayPage ?? {
        title: options.label,
        text: 'This link is not the one Hermes is waiting for.',
      };
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(stray.title, stray.text));
      return;
    }
    const answer = options.respond(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page(answer.title, answer.text));
    if (answer.error !== undefined) settle.reject(answer.error);
    else settle.resolve(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  let closed = false;
  const timer = clock.setTimeout(
    () => settle.reject(new TimeoutError(`${options.label}: no answer from the browser in time`, timeoutMs)),
    timeoutMs,
  );
  const onAbort = () => settle.reject(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();
  const close = () => {
    if (closed) return;
    closed = true;
    clock.clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    server.close();
    server.closeAllConnections();
    settle.reject(new Error(`${options.label}: the sign-in was closed`));
  };
  const result = arrived.finally(close);
  result.catch(() => undefined);
  return { port, redirectUri: `http://127.0.0.1:${port}/callback`, result, close };
}
