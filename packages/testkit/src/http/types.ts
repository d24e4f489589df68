import type { IncomingHttpHeaders } from 'node:http';

/** How a fake backend checks a request's key. Several may be accepted at once. */
export type FakeAuth =
  /** `Authorization: Bearer <token>` (Honcho, Supermemory, Hindsight, OpenAI). */
  | { type: 'bearer'; token: string }
  /** `Authorization: Token <token>` (Mem0 Platform). */
  | { type: 'token'; token: string }
  /** A header of its own, e.g. `{ type: 'header', name: 'X-API-Key', value }` (Mem0 self-hosted). */
  | { type: 'header'; name: string; value: string };

/** One request as the server saw it, with secrets redacted, in arrival order. */
export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query parameters (repeated keys become arrays), secret-named values redacted. */
  query: Record<string, string | string[]>;
  /** Lower-cased names; `authorization`, auth headers and the server's secrets are redacted. */
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON (undefined when empty). */
  body: unknown;
  /** The body as received, secrets redacted. */
  rawBody: string;
  /** The route that matched (`POST /v3/workspaces/:workspace/peers`), undefined for a 404. */
  route?: string;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** The status the server answered with (undefined for hangs and resets). */
  status?: number;
  /** Set when a fault was injected for this request. */
  fault?: FakeFault['type'];
}

/** What a route handler receives. `body` and `rawBody` are the real ones (not redacted). */
export interface FakeRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  rawBody: string;
  /** The entry in `server.requests` for this request (set `status` is done for you). */
  recorded: RecordedRequest;
}

/** One Server-Sent Event. `data` that is not a string is sent as JSON. */
export interface SseEvent {
  event?: string;
  id?: string;
  data: unknown;
}

/** What a handler answers; build it with `reply.*`. */
export type FakeResponse =
  | { kind: 'json'; status: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'text'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'empty'; status: number; headers?: Record<string, string> }
  | {
      kind: 'sse';
      status: number;
      events: readonly SseEvent[];
      /** Written after the events, e.g. `[DONE]` (as `data: [DONE]`). */
      done?: string;
      headers?: Record<string, string>;
    };

export type FakeHandler<S> = (request: FakeRequest, state: S) => FakeResponse | Promise<FakeResponse>;

/**
 * A fault for the next matching request(s):
 * - `status`: answer this status with the server's error body (`retryAfter` sets Retry-After, in seconds);
 * - `timeout`: never answer; the request hangs until the client aborts or the server closes;
 * - `reset`: destroy the socket without a response;
 * - `malformed`: answer 200 with a body that is not valid JSON (a broken event for SSE);
 * - `truncated`: send the route's real answer cut in half, then close the connection;
 * - `delay`: answer normally after `ms` (real time: for benchmarks, not unit tests).
 */
export type FakeFault = (
  | { type: 'status'; status: number; retryAfter?: number; body?: string }
  | { type: 'timeout' }
  | { type: 'reset' }
  | { type: 'malformed' }
  | { type: 'truncated' }
  | { type: 'delay'; ms: number }
) & {
  /** How many matching requests get the fault (default 1). */
  count?: number;
  /** Only requests whose path ends with this (e.g. `/embeddings`). */
  path?: string;
  /** Only requests to this route, as registered (`GET /v1/memories/:id`). */
  route?: string;
};

export interface FakeServerOptions<S> {
  /** Names the backend in error bodies and messages ("fake Honcho"). */
  name?: string;
  /** Accepted keys; a request with none of them gets 401. Default: no auth. */
  auth?: FakeAuth | readonly FakeAuth[];
  /**
   * Credentials decided at run time (tokens the fake issued itself, e.g. over OAuth): a request
   * passes when a key of `auth` matches or this says yes. With `auth` unset, only this is asked.
   */
  authorize?: (headers: IncomingHttpHeaders) => boolean;
  /** Routes that need no key (`GET /health`). */
  publicRoutes?: readonly string[];
  /** The error body for a status and message (default `{ error: { message } }`). */
  errorBody?: (status: number, message: string) => unknown;
  /** More strings to redact from recordings (the auth keys always are). */
  secrets?: readonly string[];
  /** The backend's state: created by this function, and again on `reset()`. */
  state?: () => S;
  /**
   * Decide a fault per request, after queued faults (`fail`): the bench's fault runs use it to
   * fail "the first N" or "every" request. Return null for a normal answer.
   */
  faultFor?: (request: RecordedRequest, index: number) => FakeFault | null;
  /**
   * Listen on this port instead of an ephemeral one: for a server that must appear at an address
   * given earlier (a launcher that starts "the local server" on a configured port). Default 0.
   */
  port?: number;
  /** Largest accepted body (413 beyond). Default 32 MiB. */
  maxBodyBytes?: number;
}

export interface FakeServer<S = undefined> {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** The backend's state, for handlers and assertions. */
  readonly state: S;
  /** A deep copy of the state (for conformance snapshots). */
  dump(): S;
  /** Every request so far, oldest first, secrets redacted. */
  readonly requests: RecordedRequest[];
  /** Requests to a route (`GET /v1/memories/:id`) or whose path ends with a suffix. */
  requestsTo(routeOrSuffix: string): RecordedRequest[];
  /** Register a route: `route('POST', '/v3/workspaces/:workspace/peers', handler)`. */
  route(method: string, pattern: string, handler: FakeHandler<S>): FakeServer<S>;
  /** Queue a fault (or a bare status code) for the next matching request(s). */
  fail(fault: FakeFault | number): FakeServer<S>;
  /** Queued faults not triggered yet (summed counts). */
  readonly pendingFaults: number;
  /** Drop queued faults (state and recordings stay). */
  clearFaults(): void;
  /**
   * Never record these strings again (tokens, codes the fake issues at run time): masked in every
   * later recording. Strings shorter than 4 characters are ignored.
   */
  redact(...secrets: string[]): void;
  /** Requests currently held open by `timeout` faults. */
  readonly hanging: number;
  /** Drop recorded requests and queued faults; recreate the state. */
  reset(): void;
  /** Stop listening and drop every connection (hanging ones included). */
  close(): Promise<void>;
}
