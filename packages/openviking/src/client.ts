import {
  APICallError,
  type CircuitBreaker,
  CircuitOpenError,
  type Clock,
  createHttpClient,
  describeError,
  type HealthMonitor,
  type HttpAuth,
  type HttpClient,
  type HttpRequestOptions,
  type HttpResponse,
  retry,
} from '@hermes-memory/core';

/** One message part of a session message (the server's shape). */
export type VikingPart =
  | { type: 'text'; text: string }
  | {
      type: 'tool';
      tool_id: string;
      tool_name: string;
      tool_input: Record<string, unknown>;
      tool_status: 'pending' | 'completed' | 'error';
      tool_output?: string;
    };

export interface VikingMessage {
  role: 'user' | 'assistant';
  parts: VikingPart[];
  peer_id?: string;
}

/** A search hit as the server lists it under `memories`, `resources` or `skills`. */
export interface VikingHit {
  uri: string;
  score?: number;
  abstract?: string;
  category?: string;
  level?: number;
  context_type?: string;
  relations?: Array<{ uri: string } | string>;
}

export interface VikingSearchResult {
  memories: VikingHit[];
  resources: VikingHit[];
  skills: VikingHit[];
}

export interface VikingEntry {
  name?: string;
  uri: string;
  is_dir?: boolean;
  abstract?: string;
  [key: string]: unknown;
}

export interface SearchRequest {
  query: string;
  limit?: number;
  score_threshold?: number;
  context_type?: string | string[];
  target_uri?: string;
  session_id?: string;
}

/** What `GET /health` said about the server (the identity probe). */
export type ServerIdentity =
  | { kind: 'modern'; version: string }
  | { kind: 'legacy' }
  | { kind: 'unhealthy'; reason: string }
  | { kind: 'invalid'; reason: string }
  | { kind: 'unreachable'; reason: string };

export interface OpenvikingClientOptions {
  endpoint: string;
  apiKey: string;
  account: string;
  user: string;
  agent: string;
  /** Per request, ms. */
  timeoutMs: number;
  /** Sent as `User-Agent: openviking-memory-hermes/<version>`. */
  version: string;
  /** Records each call's outcome (what `health()` reports). */
  health?: HealthMonitor;
  clock?: Clock;
  /**
   * Every attempt of every call but the identity probe passes it: refused at once while open
   * (a `CircuitOpenError`, never retried), its outcome counted otherwise (decision 0982).
   */
  breaker?: CircuitBreaker;
}

export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

const TRUSTED_MODE = /Trusted mode requests must include/i;
const TENANT_HEADER = /X-OpenViking-(Account|User)/i;
const PROBE_TIMEOUT_MS = 3000;
/** Retries after a failed attempt (reads, and writes the server cannot have acted on). */
const RETRY = { maxRetries: 1 };

/**
 * OpenViking's HTTP API over core's client (no SDK exists for Node). Every answer is the envelope
 * `{status, result, error: {code, message}}`: HTTP errors become `APICallError`s reading
 * "CODE: message" (HTML pages reduced to their title, long bodies cut — core does both), and an
 * HTTP 200 with `status: "error"` is an error too. With a key the client sends `X-API-Key` and
 * `Authorization: Bearer` and no tenant headers, unless a trusted-mode server asks for them (one
 * retry with them); without a key it sends `X-OpenViking-Account` / `-User` (`default`).
 */
export class OpenvikingClient {
  readonly endpoint: string;
  private readonly http: HttpClient;
  private readonly options: OpenvikingClientOptions;

  constructor(options: OpenvikingClientOptions) {
    this.options = options;
    this.endpoint = options.endpoint;
    const auth: HttpAuth[] = options.apiKey
      ? [
          { type: 'header', name: 'X-API-Key', value: options.apiKey },
          { type: 'bearer', token: options.apiKey },
        ]
      : [];
    this.http = createHttpClient({
      baseURL: options.endpoint,
      name: 'OpenViking',
      auth,
      headers: {
        'User-Agent': `openviking-memory-hermes/${options.version}`,
        ...(options.agent ? { 'X-OpenViking-Actor-Peer': options.agent } : {}),
        ...(options.apiKey ? {} : this.tenantHeaders()),
      },
      timeoutMs: options.timeoutMs,
      retry: RETRY,
      ...(options.health ? { health: options.health } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  get hasKey(): boolean {
    return this.options.apiKey !== '';
  }

  // --- identity and status ---------------------------------------------------------------

  /**
   * `GET /health`, anonymously (no key, no tenant): a modern server says `{status: "ok", healthy:
   * true, version}`; `healthy: false` is unhealthy; a legacy one (status only) must prove itself
   * with `/openapi.json` titled "OpenViking API". A 401/403 retries once with the key. Never throws.
   */
  async identify(options: CallOptions = {}): Promise<ServerIdentity> {
    const anonymous = { 'x-api-key': undefined, authorization: undefined, ...this.noTenant() };
    const get = (path: string, headers: HttpRequestOptions['headers']) =>
      this.http.get<unknown>(path, {
        headers,
        retry: false,
        timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS,
        ...(options.signal ? { signal: options.signal } : {}),
      });
    let body: unknown;
    try {
      try {
        body = await get('/health', anonymous);
      } catch (error) {
        const status = APICallError.isInstance(error) ? error.statusCode : undefined;
        if ((status !== 401 && status !== 403) || !this.hasKey) throw error;
        body = await get('/health', this.noTenant());
      }
    } catch (error) {
      if (APICallError.isInstance(error) && error.statusCode !== undefined)
        return { kind: 'invalid', reason: `GET /health answered HTTP ${error.statusCode}` };
      return { kind: 'unreachable', reason: describeError(error) };
    }
    const record = asRecord(body);
    if (record.healthy === false)
      return { kind: 'unhealthy', reason: stringOf(record.message) ?? 'the server reports healthy: false' };
    if (record.status === 'ok' && record.healthy === true) {
      const version = stringOf(record.version);
      if (version) return { kind: 'modern', version };
      return { kind: 'invalid', reason: 'GET /health did not name a version' };
    }
    if (record.status === 'ok' && record.healthy === undefined) {
      try {
        const spec = asRecord(await get('/openapi.json', anonymous));
        if (asRecord(spec.info).title === 'OpenViking API') return { kind: 'legacy' };
      } catch {}
      return {
        kind: 'invalid',
        reason: 'the server at this endpoint is not OpenViking (no OpenViking API schema)',
      };
    }
    return { kind: 'invalid', reason: 'GET /health did not answer like OpenViking' };
  }

  /** `GET /api/v1/system/status` (authenticated): `result.user` is the user id memories live under. */
  systemStatus(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.call('GET', '/api/v1/system/status', options).then(asRecord);
  }

  /** Root key or user key: `GET /api/v1/admin/accounts` succeeds only for root (401/403/404 = user key). */
  async keyRole(options: CallOptions = {}): Promise<'root' | 'user'> {
    try {
      await this.call('GET', '/api/v1/admin/accounts', options);
      return 'root';
    } catch (error) {
      const status = APICallError.isInstance(error) ? error.statusCode : undefined;
      if (status === 401 || status === 403 || status === 404) return 'user';
      throw error;
    }
  }

  // --- filesystem and content ------------------------------------------------------------

  async ls(
    uri: string,
    extra: Record<string, string | number | boolean> = {},
    options: CallOptions = {},
  ): Promise<VikingEntry[]> {
    const result = await this.call('GET', '/api/v1/fs/ls', { ...options, query: { uri, ...extra } });
    return entriesOf(result);
  }

  async tree(uri: string, options: CallOptions = {}): Promise<VikingEntry[]> {
    return entriesOf(await this.call('GET', '/api/v1/fs/tree', { ...options, query: { uri } }));
  }

  stat(uri: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.call('GET', '/api/v1/fs/stat', { ...options, query: { uri } }).then(asRecord);
  }

  remove(uri: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.call('DELETE', '/api/v1/fs', { ...options, query: { uri, recursive: false } }).then(asRecord);
  }

  /** `abstract` (L0), `overview` (L1) of a directory, or `read` (L2, a file's content). */
  async content(
    level: 'abstract' | 'overview' | 'read',
    uri: string,
    options: CallOptions = {},
  ): Promise<string> {
    const result = await this.call('GET', `/api/v1/content/${level}`, { ...options, query: { uri } });
    if (typeof result === 'string') return result;
    const record = asRecord(result);
    return stringOf(record.content) ?? stringOf(record[level]) ?? '';
  }

  write(
    body: { uri: string; content: string; mode: 'create' | 'replace'; wait?: boolean },
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    return this.call('POST', '/api/v1/content/write', { ...options, body }).then(asRecord);
  }

  // --- search ----------------------------------------------------------------------------

  /** `search/find` (stateless), or `search/search` when a session id makes it session-aware. */
  async search(request: SearchRequest, options: CallOptions = {}): Promise<VikingSearchResult> {
    const path = request.session_id ? '/api/v1/search/search' : '/api/v1/search/find';
    const result = asRecord(await this.call('POST', path, { ...options, body: request, idempotent: true }));
    const bucket = (name: string): VikingHit[] =>
      Array.isArray(result[name])
        ? (result[name] as unknown[]).filter((h): h is VikingHit => typeof asRecord(h).uri === 'string')
        : [];
    return { memories: bucket('memories'), resources: bucket('resources'), skills: bucket('skills') };
  }

  // --- sessions --------------------------------------------------------------------------

  addMessages(
    sessionId: string,
    messages: readonly VikingMessage[],
    options: CallOptions = {},
  ): Promise<unknown> {
    return this.call('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/messages/batch`, {
      ...options,
      body: { messages },
    });
  }

  addMessage(sessionId: string, message: VikingMessage, options: CallOptions = {}): Promise<unknown> {
    return this.call('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/messages`, {
      ...options,
      body: message,
    });
  }

  getSession(sessionId: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.call('GET', `/api/v1/sessions/${encodeURIComponent(sessionId)}`, options).then(asRecord);
  }

  /** Extraction runs on the server; `keep_recent_count: 0` archives every message. */
  commit(sessionId: string, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.call('POST', `/api/v1/sessions/${encodeURIComponent(sessionId)}/commit`, {
      ...options,
      body: { keep_recent_count: 0 },
    }).then(asRecord);
  }

  // --- resources -------------------------------------------------------------------------

  /** Multipart upload (field `file`); the content type is the form's own. */
  async tempUpload(bytes: Uint8Array, fileName: string, options: CallOptions = {}): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([bytes]), fileName);
    const result = asRecord(
      await this.call('POST', '/api/v1/resources/temp_upload', {
        ...options,
        rawBody: form,
        headers: { 'content-type': undefined },
      }),
    );
    const id = stringOf(result.temp_file_id);
    if (!id) throw new Error('OpenViking temp_upload answered without a temp_file_id.');
    return id;
  }

  addResource(body: Record<string, unknown>, options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.call('POST', '/api/v1/resources', { ...options, body }).then(asRecord);
  }

  // --- the envelope ----------------------------------------------------------------------

  /** One call; its `result`. A trusted-mode refusal of a keyed call is resent once with tenant headers. */
  async call(
    method: string,
    path: string,
    options: CallOptions &
      Partial<Pick<HttpRequestOptions, 'query' | 'body' | 'rawBody' | 'headers' | 'idempotent'>> = {},
  ): Promise<unknown> {
    const { timeoutMs, signal, ...rest } = options;
    const request: HttpRequestOptions = {
      ...rest,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(signal ? { signal } : {}),
    };
    try {
      return await this.unwrap(method, path, request);
    } catch (error) {
      if (!this.hasKey || !isTrustedModeRefusal(error)) throw error;
      return this.unwrap(method, path, {
        ...request,
        headers: { ...request.headers, ...this.tenantHeaders() },
      });
    }
  }

  private async unwrap(method: string, path: string, request: HttpRequestOptions): Promise<unknown> {
    const response = await this.send(method, path, request);
    const body = response.data;
    const envelope = asRecord(body);
    if (envelope.status === 'error') {
      const error = asRecord(envelope.error);
      const code = stringOf(error.code);
      const message = stringOf(error.message) ?? 'the server reported an error';
      const said = code ? `${code}: ${message}` : message;
      throw new APICallError({
        url: `${this.endpoint}${path}`,
        method,
        path,
        statusCode: response.status,
        isRetryable: false,
        serverMessage: said,
        data: body,
        message: `OpenViking: ${method} ${path} failed: ${said}`,
      });
    }
    return 'result' in envelope ? envelope.result : body;
  }

  /**
   * One request. With a breaker each attempt passes it (an answered envelope error is an answer,
   * so it is judged before the envelope is read), and the retries are taken here, with the HTTP
   * client's policy, so that a refused attempt is never retried.
   */
  private send(method: string, path: string, request: HttpRequestOptions): Promise<HttpResponse<unknown>> {
    const breaker = this.options.breaker;
    if (!breaker) return this.http.request<unknown>(method, path, request);
    const signal = request.signal;
    const attempt = () =>
      breaker.run(() => this.http.request<unknown>(method, path, { ...request, retry: false }), {
        ...(signal ? { signal } : {}),
        refusal: () => new CircuitOpenError(breaker.unavailableMessage(), breaker.retryAt),
      });
    return retry(attempt, {
      ...RETRY,
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      ...(signal ? { signal } : {}),
    });
  }

  private tenantHeaders(): Record<string, string> {
    return {
      'X-OpenViking-Account': this.options.account || 'default',
      'X-OpenViking-User': this.options.user || 'default',
    };
  }

  private noTenant(): Record<string, undefined> {
    return { 'x-openviking-account': undefined, 'x-openviking-user': undefined };
  }
}

function isTrustedModeRefusal(error: unknown): boolean {
  if (!APICallError.isInstance(error)) return false;
  if (error.statusCode !== undefined && error.statusCode !== 400) return false;
  const said = `${error.serverMessage ?? ''} ${error.message}`;
  return TRUSTED_MODE.test(said) && TENANT_HEADER.test(said);
}

function entriesOf(result: unknown): VikingEntry[] {
  const list = Array.isArray(result) ? result : asRecord(result).entries;
  if (!Array.isArray(list)) return [];
  return list.filter((e): e is VikingEntry => typeof asRecord(e).uri === 'string');
}

export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}
