import { APICallError, SettingsError, TimeoutError } from '../errors/memory-error';
import type { HealthMonitor } from '../health/health';
import type { CircuitBreaker } from '../resilience/circuit-breaker';
import { type Clock, systemClock } from '../resilience/clock';
import { createDeadline } from '../resilience/deadline';
import { type RetryOptions, retry } from '../resilience/retry';
import { errorCodeOf, safeCause, splitCredentials } from './credentials';
import { createScrubber, headerRecord, safeUrl, serverMessage, summarizeText } from './error-body';

/** How a backend wants its key. Several may be combined (OpenViking sends X-API-Key and Bearer). */
export type HttpAuth =
  /** `Authorization: Bearer <token>` (Honcho, Supermemory, Hindsight, OpenAI). */
  | { type: 'bearer'; token: string }
  /** `Authorization: Token <token>` (Mem0 Platform). */
  | { type: 'token'; token: string }
  /** A header of its own: `{ type: 'header', name: 'X-API-Key', value }` (Mem0 self-hosted). */
  | { type: 'header'; name: string; value: string };

export type QueryValue = string | number | boolean;

export interface HttpClientOptions {
  /** Origin plus any path prefix, e.g. `http://127.0.0.1:8000` or `https://api.example.com/v1`. */
  baseURL: string;
  auth?: HttpAuth | readonly HttpAuth[];
  /** Sent with every request (a request's own headers win; `undefined` there removes one). */
  headers?: Readonly<Record<string, string>>;
  /** Per attempt. Default 30 000 ms. */
  timeoutMs?: number;
  /** Retry policy for failed attempts (see `retry`); `false` disables retries. Default 2 retries. */
  retry?: RetryOptions | false;
  /** Names the backend in error messages ("Honcho"). Default "HTTP". */
  name?: string;
  /** More strings never to echo in errors (the auth values are always masked). */
  secrets?: readonly string[];
  /** Counts failures and refuses calls while open; client errors are not counted. */
  breaker?: CircuitBreaker;
  /** Records each call's outcome (client errors count as the backend answering). */
  health?: HealthMonitor;
  /**
   * The fetch to use. Default: `globalThis.fetch`, looked up on every call (not captured), so a
   * test or a host that swaps the global fetch observes every request.
   */
  fetch?: typeof globalThis.fetch;
  clock?: Clock;
  /** Extracts the server's message from a parsed error body. Default: `serverMessage`. */
  errorMessage?: (body: unknown) => string | undefined;
}

export interface HttpRequestOptions {
  /** Query parameters; arrays are sent repeated (`?k=a&k=b`), `undefined` values skipped. */
  query?: Readonly<Record<string, QueryValue | readonly QueryValue[] | undefined>>;
  /** Sent as JSON. */
  body?: unknown;
  /** A body sent as is (multipart `FormData`, text); its content type is the caller's. */
  rawBody?: RequestInit['body'];
  headers?: Readonly<Record<string, string | undefined>>;
  signal?: AbortSignal;
  /** Per attempt; overrides the client's. */
  timeoutMs?: number;
  /** Overrides the client's retry policy for this call. */
  retry?: RetryOptions | false;
  /**
   * Whether repeating the request is harmless. Default: true for GET, HEAD, PUT, DELETE and
   * OPTIONS, false for POST and PATCH. A non-idempotent request is retried only when the server
   * cannot have acted on it: a refused connection, 408, 429 or 503. Pass `true` for a POST that
   * carries an idempotency key or is a search.
   */
  idempotent?: boolean;
  /** How to read a successful response. Default `json` (an empty body gives `undefined`). */
  responseType?: 'json' | 'text' | 'none';
}

export interface HttpResponse<T> {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  data: T;
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** Statuses that say the server did not act on the request, so even a POST may be repeated. */
const NOT_ACTED_ON = new Set([408, 429, 503]);
const MAX_ERROR_BODY = 2000;

/** A fetch that looks up `globalThis.fetch` on every call: hand it to SDKs that capture `fetch`. */
export const globalFetch: typeof globalThis.fetch = (input, init) => globalThis.fetch(input, init);

/**
 * A small JSON client over `fetch` for backends without an SDK and for provider code that talks
 * HTTP next to one: timeouts per attempt, retries through core's `retry`, an optional breaker and
 * health monitor, and every failure as an `APICallError` that names the method, the path, the
 * status and the server's message, with response headers and a redacted body.
 */
export class HttpClient {
  /** The base URL requests go to, without user-info or query (those are applied per request). */
  readonly baseURL: string;
  readonly name: string;
  /** The base URL's own query parameters (`?api-version=…`), added to every request. */
  private readonly baseQuery: URLSearchParams;
  private readonly options: HttpClientOptions;
  private readonly clock: Clock;
  private readonly scrub: (text: string) => string;
  private readonly defaultHeaders: Record<string, string>;

  constructor(options: HttpClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseURL);
    } catch (cause) {
      throw new SettingsError('baseURL', `${options.name ?? 'HTTP'} base URL is not a valid URL.`, { cause });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new SettingsError('baseURL', `${options.name ?? 'HTTP'} base URL must be http or https.`);
    }
    const auths =
      options.auth === undefined ? [] : Array.isArray(options.auth) ? options.auth : [options.auth];
    // User-info in the base URL becomes Basic auth; it and secret query values are never echoed.
    const credentials = splitCredentials(base);
    if (credentials.basicAuth && auths.some((a) => a.type !== 'header')) {
      throw new SettingsError(
        'baseURL',
        `${options.name ?? 'HTTP'} base URL carries credentials (user:password@) and an API key is set too; use one of them.`,
      );
    }
    const [path, query] = splitQuery(credentials.url);
    this.baseURL = path;
    this.baseQuery = query;
    this.name = options.name ?? 'HTTP';
    this.options = options;
    this.clock = options.clock ?? systemClock;
    this.defaultHeaders = { accept: 'application/json', ...lowerKeys(options.headers ?? {}) };
    if (credentials.basicAuth) this.defaultHeaders.authorization = credentials.basicAuth;
    const secrets: string[] = [...(options.secrets ?? []), ...credentials.secrets];
    for (const auth of auths as HttpAuth[]) {
      if (auth.type === 'header') {
        this.defaultHeaders[auth.name.toLowerCase()] = auth.value;
        secrets.push(auth.value);
      } else {
        this.defaultHeaders.authorization = `${auth.type === 'bearer' ? 'Bearer' : 'Token'} ${auth.token}`;
        secrets.push(auth.token);
      }
    }
    this.scrub = createScrubber(secrets);
  }

  async get<T = unknown>(path: string, options: HttpRequestOptions = {}): Promise<T> {
    return (await this.request<T>('GET', path, options)).data;
  }

  async post<T = unknown>(path: string, body?: unknown, options: HttpRequestOptions = {}): Promise<T> {
    return (await this.request<T>('POST', path, { ...options, ...(body !== undefined ? { body } : {}) }))
      .data;
  }

  async put<T = unknown>(path: string, body?: unknown, options: HttpRequestOptions = {}): Promise<T> {
    return (await this.request<T>('PUT', path, { ...options, ...(body !== undefined ? { body } : {}) })).data;
  }

  async patch<T = unknown>(path: string, body?: unknown, options: HttpRequestOptions = {}): Promise<T> {
    return (await this.request<T>('PATCH', path, { ...options, ...(body !== undefined ? { body } : {}) }))
      .data;
  }

  async delete<T = unknown>(path: string, options: HttpRequestOptions = {}): Promise<T> {
    return (await this.request<T>('DELETE', path, options)).data;
  }

  /** One logical call: attempts with retries, through the breaker, recorded in health. */
  async request<T = unknown>(
    method: string,
    path: string,
    options: HttpRequestOptions = {},
  ): Promise<HttpResponse<T>> {
    const verb = method.toUpperCase();
    const url = this.url(path, options.query);
    const policy = options.retry ?? this.options.retry ?? {};
    const run = () =>
      policy === false
        ? this.attempt<T>(verb, url, options)
        : retry(() => this.attempt<T>(verb, url, options), {
            clock: this.clock,
            ...policy,
            ...(options.signal ? { signal: options.signal } : {}),
          });
    const breaker = this.options.breaker;
    const health = this.options.health;
    try {
      const response = breaker ? await breaker.run(run) : await run();
      health?.recordSuccess();
      return response;
    } catch (error) {
      if (health && !options.signal?.aborted) health.recordError(error);
      throw error;
    }
  }

  private url(path: string, query: HttpRequestOptions['query']): URL {
    const url = new URL(`${this.baseURL}${path.startsWith('/') ? path : `/${path}`}`);
    for (const [key, value] of this.baseQuery) url.searchParams.append(key, value);
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(key, String(item));
    }
    return url;
  }

  private async attempt<T>(method: string, url: URL, options: HttpRequestOptions): Promise<HttpResponse<T>> {
    const path = url.pathname;
    const shown = safeUrl(url);
    const idempotent = options.idempotent ?? IDEMPOTENT.has(method);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const deadline = createDeadline({
      timeoutMs,
      clock: this.clock,
      label: `${this.name} ${method} ${path}`,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const headers: Record<string, string> = { ...this.defaultHeaders };
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === undefined) delete headers[name.toLowerCase()];
      else headers[name.toLowerCase()] = value;
    }
    let body: RequestInit['body'] = options.rawBody;
    if (body === undefined && options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const fail = (extra: {
      message: string;
      statusCode?: number;
      isRetryable: boolean;
      cause?: unknown;
      responseBody?: string;
      responseHeaders?: Record<string, string>;
      serverMessage?: string;
      data?: unknown;
    }): APICallError =>
      new APICallError({
        url: shown,
        method,
        path,
        ...extra,
        message: this.scrub(`${this.name}: ${method} ${path} ${extra.message}`),
      });
    try {
      let response: Response;
      try {
        const fetchImpl = this.options.fetch ?? globalThis.fetch;
        response = await fetchImpl(url, { method, headers, body, signal: deadline.signal });
      } catch (cause) {
        throw this.transportError(cause, options, deadline.signal, timeoutMs, idempotent, fail);
      }
      let text: string;
      try {
        text = options.responseType === 'none' ? '' : await response.text();
      } catch (cause) {
        // The connection broke mid-body (a reset, a truncated response).
        throw this.transportError(cause, options, deadline.signal, timeoutMs, idempotent, fail);
      }
      const responseHeaders = headerRecord(response.headers);
      if (!response.ok) {
        const parsed = tryParse(text);
        const said = parsed.ok
          ? (this.options.errorMessage ?? serverMessage)(parsed.value)
          : text.trim() !== ''
            ? summarizeText(text)
            : undefined;
        const statusRetryable =
          response.status >= 500 ||
          response.status === 408 ||
          response.status === 409 ||
          response.status === 429;
        throw fail({
          message: `failed with HTTP ${response.status}${said ? `: ${this.scrub(said)}` : ''}`,
          statusCode: response.status,
          isRetryable: statusRetryable && (idempotent || NOT_ACTED_ON.has(response.status)),
          responseBody: this.scrub(text.slice(0, MAX_ERROR_BODY)),
          responseHeaders,
          ...(said !== undefined ? { serverMessage: this.scrub(said) } : {}),
          ...(parsed.ok ? { data: parsed.value } : {}),
        });
      }
      if (options.responseType === 'text')
        return { status: response.status, headers: responseHeaders, data: text as T };
      if (options.responseType === 'none' || text.trim() === '') {
        return { status: response.status, headers: responseHeaders, data: undefined as T };
      }
      const parsed = tryParse(text);
      if (!parsed.ok) {
        throw fail({
          message: `returned HTTP ${response.status} with a body that is not JSON`,
          statusCode: response.status,
          isRetryable: false,
          responseBody: this.scrub(text.slice(0, MAX_ERROR_BODY)),
          responseHeaders,
        });
      }
      return { status: response.status, headers: responseHeaders, data: parsed.value as T };
    } finally {
      deadline.dispose();
    }
  }

  /** A failure before a complete response: the caller's abort passes through, the rest is an APICallError. */
  private transportError(
    cause: unknown,
    options: HttpRequestOptions,
    signal: AbortSignal,
    timeoutMs: number,
    idempotent: boolean,
    fail: (extra: { message: string; isRetryable: boolean; cause?: unknown }) => APICallError,
  ): unknown {
    if (options.signal?.aborted) return options.signal.reason ?? cause;
    if (signal.aborted && TimeoutError.isInstance(signal.reason)) {
      return fail({
        message: `timed out after ${timeoutMs} ms`,
        isRetryable: idempotent,
        cause: signal.reason,
      });
    }
    const refused = errorCodeOf(cause) === 'ECONNREFUSED';
    return fail({
      message: `failed: ${describeCause(cause)}`,
      isRetryable: idempotent || refused,
      cause: safeCause(cause, this.scrub),
    });
  }
}

/** Create an `HttpClient`. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  return new HttpClient(options);
}

/** A URL string split into its part before the query and its query parameters. */
function splitQuery(url: string): [string, URLSearchParams] {
  const at = url.indexOf('?');
  if (at < 0) return [url.replace(/\/+$/, ''), new URLSearchParams()];
  return [url.slice(0, at).replace(/\/+$/, ''), new URLSearchParams(url.slice(at + 1))];
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

function lowerKeys(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function describeCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const inner = (error as Error & { cause?: unknown }).cause;
  const code = errorCodeOf(error);
  if (inner instanceof Error && inner.message && inner.message !== error.message) {
    return `${error.message} (${inner.message})`;
  }
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}
