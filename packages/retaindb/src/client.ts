import {
  APICallError,
  type CircuitBreaker,
  type Clock,
  type HealthMonitor,
  type HttpClient,
  type HttpRequestOptions,
  type ProbeResult,
  createHttpClient,
  describeError,
} from '@hermes-memory/core';

/** A memory as the service returns it (only the fields this package reads are typed). */
export interface RetaindbMemory {
  id?: string;
  content?: string | null;
  memory_type?: string;
  [key: string]: unknown;
}

/** One queued turn's messages, as `/v1/memory/ingest/session` takes them. */
export interface RetaindbMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
}

export type JsonObject = Record<string, unknown>;

export interface RetaindbClientOptions {
  baseURL: string;
  apiKey: string;
  project: string;
  /** Upper bound of every request's timeout (the reference's per-route timeouts apply below it). */
  timeoutMs?: number;
  health?: HealthMonitor;
  breaker?: CircuitBreaker;
  clock?: Clock;
}

/** The reference's per-route timeouts (ms). */
const TIMEOUTS = {
  default: 8000,
  write: 5000,
  ingestSession: 15_000,
  agentModel: 4000,
  seed: 20_000,
  upload: 30_000,
  content: 30_000,
  ingestFile: 60_000,
} as const;

type Scope = { userId: string; sessionId: string };

/**
 * The RetainDB REST API (no SDK exists), over core's HTTP client: every request carries
 * `Authorization: Bearer <key>` and `x-sdk-runtime: hermes-plugin`, and `X-API-Key` only on the
 * `/v1/memory*` and `/v1/context*` paths (the reference's per-path auth); path segments are
 * encoded with no safe characters; failures are `APICallError`s naming the method, the path, the
 * status and the server's `message`/`error`, with the key masked. Every method takes the
 * caller's signal.
 */
export class RetaindbClient {
  readonly project: string;
  private readonly http: HttpClient;
  private readonly apiKey: string;
  private readonly capMs: number;

  constructor(options: RetaindbClientOptions) {
    this.project = options.project;
    this.apiKey = options.apiKey;
    this.capMs = options.timeoutMs ?? Number.POSITIVE_INFINITY;
    this.http = createHttpClient({
      baseURL: options.baseURL,
      name: 'RetainDB',
      auth: { type: 'bearer', token: options.apiKey },
      headers: { 'x-sdk-runtime': 'hermes-plugin' },
      secrets: [options.apiKey],
      timeoutMs: Math.min(TIMEOUTS.default, this.capMs),
      retry: { maxRetries: 1 },
      errorMessage: serverMessage,
      ...(options.health ? { health: options.health } : {}),
      ...(options.breaker ? { breaker: options.breaker } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  get baseURL(): string {
    return this.http.baseURL;
  }

  // --- memory and context routes -------------------------------------------------------------

  queryContext(scope: Scope, query: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('POST', '/v1/context/query', {
      body: { ...this.scoped(scope), query, include_memories: true, max_tokens: 1200 },
      idempotent: true,
      signal,
    });
  }

  search(scope: Scope, query: string, topK: number, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('POST', '/v1/memory/search', {
      body: { ...this.scoped(scope), query, top_k: topK, include_pending: true },
      idempotent: true,
      signal,
    });
  }

  /** The profile; on any error the legacy `GET /v1/memories` list. */
  getProfile(userId: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.withFallback(
      signal,
      () =>
        this.json('GET', `/v1/memory/profile/${seg(userId)}`, {
          query: { project: this.project, include_pending: 'true' },
          retry: false,
          signal,
        }),
      () =>
        this.json('GET', '/v1/memories', {
          query: { project: this.project, user_id: userId, limit: '200' },
          signal,
        }),
    );
  }

  /** `POST /v1/memory` with `write_mode: "sync"`; on any error `POST /v1/memories` without it. */
  addMemory(
    scope: Scope,
    memory: { content: string; memoryType: string; importance: number },
    signal?: AbortSignal,
  ): Promise<JsonObject> {
    const body = {
      ...this.scoped(scope),
      content: memory.content,
      memory_type: memory.memoryType,
      importance: memory.importance,
    };
    return this.withFallback(
      signal,
      () =>
        this.json('POST', '/v1/memory', {
          body: { ...body, write_mode: 'sync' },
          timeoutMs: this.t(TIMEOUTS.write),
          retry: false,
          signal,
        }),
      () =>
        this.json('POST', '/v1/memories', { body, timeoutMs: this.t(TIMEOUTS.write), retry: false, signal }),
    );
  }

  deleteMemory(memoryId: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.withFallback(
      signal,
      () =>
        this.json('DELETE', `/v1/memory/${seg(memoryId)}`, {
          timeoutMs: this.t(TIMEOUTS.write),
          retry: false,
          signal,
        }),
      () =>
        this.json('DELETE', `/v1/memories/${seg(memoryId)}`, {
          timeoutMs: this.t(TIMEOUTS.write),
          retry: false,
          signal,
        }),
    );
  }

  /**
   * Ingest one queued turn. `idempotencyKey` goes out as the `Idempotency-Key` header so a
   * service that honours it stores a resent row once (see decision 0960). Not retried here: the
   * durable queue owns retries, with backoff, across restarts.
   */
  ingestSession(
    scope: Scope,
    messages: readonly RetaindbMessage[],
    idempotencyKey: string,
    signal?: AbortSignal,
  ): Promise<JsonObject> {
    return this.json('POST', '/v1/memory/ingest/session', {
      body: { ...this.scoped(scope), messages, write_mode: 'sync' },
      headers: { 'idempotency-key': idempotencyKey },
      timeoutMs: this.t(TIMEOUTS.ingestSession),
      retry: false,
      signal,
    });
  }

  askUser(userId: string, query: string, reasoningLevel: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('POST', `/v1/memory/profile/${seg(userId)}/ask`, {
      body: { project: this.project, query, reasoning_level: reasoningLevel },
      idempotent: true,
      signal,
    });
  }

  getAgentModel(agentId: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('GET', `/v1/memory/agent/${seg(agentId)}/model`, {
      query: { project: this.project },
      timeoutMs: this.t(TIMEOUTS.agentModel),
      signal,
    });
  }

  seedAgentIdentity(agentId: string, content: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('POST', `/v1/memory/agent/${seg(agentId)}/seed`, {
      body: { project: this.project, content, source: 'soul_md' },
      timeoutMs: this.t(TIMEOUTS.seed),
      signal,
    });
  }

  // --- file routes (no X-API-Key) -------------------------------------------------------------

  uploadFile(
    file: { data: Uint8Array; name: string; mimeType: string },
    remotePath: string,
    scope: string,
    signal?: AbortSignal,
  ): Promise<JsonObject> {
    const form = new FormData();
    form.append('file', new Blob([file.data], { type: file.mimeType }), file.name);
    form.append('path', remotePath);
    form.append('scope', scope.toUpperCase());
    return this.json('POST', '/v1/files', {
      rawBody: form,
      timeoutMs: this.t(TIMEOUTS.upload),
      retry: false,
      signal,
    });
  }

  listFiles(prefix: string | undefined, limit: number, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('GET', '/v1/files', { query: { limit, prefix }, signal });
  }

  getFile(fileId: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('GET', `/v1/files/${seg(fileId)}`, { signal });
  }

  /** The stored bytes as text (binary files are never returned as content; see the read tool). */
  async readFileContent(fileId: string, signal?: AbortSignal): Promise<string> {
    const text = await this.http.get<string>(`/v1/files/${seg(fileId)}/content`, {
      responseType: 'text',
      timeoutMs: this.t(TIMEOUTS.content),
      ...(signal ? { signal } : {}),
    });
    return typeof text === 'string' ? text : '';
  }

  ingestFile(
    fileId: string,
    ids: { userId?: string; agentId?: string },
    signal?: AbortSignal,
  ): Promise<JsonObject> {
    return this.json('POST', `/v1/files/${seg(fileId)}/ingest`, {
      body: {
        ...(ids.userId ? { user_id: ids.userId } : {}),
        ...(ids.agentId ? { agent_id: ids.agentId } : {}),
      },
      timeoutMs: this.t(TIMEOUTS.ingestFile),
      signal,
    });
  }

  deleteFile(fileId: string, signal?: AbortSignal): Promise<JsonObject> {
    return this.json('DELETE', `/v1/files/${seg(fileId)}`, { timeoutMs: this.t(TIMEOUTS.write), signal });
  }

  /** One authenticated read (the profile route), for setup, status and doctor. Never throws. */
  async probe(userId: string, signal?: AbortSignal): Promise<ProbeResult> {
    const started = Date.now();
    try {
      await this.json('GET', `/v1/memory/profile/${seg(userId)}`, {
        query: { project: this.project, include_pending: 'true' },
        retry: false,
        signal,
      });
      return {
        status: 'ok',
        message: `RetainDB answered at ${this.http.baseURL} (project ${this.project}).`,
        latencyMs: Date.now() - started,
      };
    } catch (error) {
      return { status: 'failed', message: describeError(error) };
    }
  }

  private t(routeMs: number): number {
    return Math.min(routeMs, this.capMs);
  }

  private scoped(scope: Scope): JsonObject {
    return { project: this.project, user_id: scope.userId, session_id: scope.sessionId };
  }

  /** One JSON request, with `X-API-Key` on the paths that also accept it. */
  private async json(
    method: string,
    path: string,
    options: Omit<HttpRequestOptions, 'signal'> & { signal?: AbortSignal | undefined },
  ): Promise<JsonObject> {
    const { signal, ...rest } = options;
    const headers = { ...(rest.headers ?? {}), ...(keyedPath(path) ? { 'x-api-key': this.apiKey } : {}) };
    // The reference sends a JSON body only for methods other than GET and DELETE.
    const body = method === 'GET' || method === 'DELETE' ? undefined : rest.body;
    const { data } = await this.http.request<unknown>(method, path, {
      ...rest,
      body,
      headers,
      ...(signal ? { signal } : {}),
    });
    return isObject(data) ? data : { data: data ?? null };
  }

  /** The current route; on any error but an abort, the legacy one. */
  private async withFallback<T>(
    signal: AbortSignal | undefined,
    primary: () => Promise<T>,
    legacy: () => Promise<T>,
  ): Promise<T> {
    try {
      return await primary();
    } catch (error) {
      if (signal?.aborted) throw error;
      return legacy();
    }
  }
}

/** The reference sends X-API-Key for `/v1/memory*` and `/v1/context*` only. */
export function keyedPath(path: string): boolean {
  return path.startsWith('/v1/memory') || path.startsWith('/v1/context');
}

/** A path segment encoded with no safe characters (Python's `quote(s, safe="")`). */
function seg(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reference reads `message`, then `error`, from an error body. */
function serverMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  for (const key of ['message', 'error', 'detail']) {
    const value = body[key];
    if (typeof value === 'string' && value !== '') return value;
    if (isObject(value) && typeof value.message === 'string') return value.message;
  }
  return undefined;
}

/** Whether a failed ingest may succeed later (the service or the network), or never will. */
export function isPermanentFailure(error: unknown): boolean {
  if (!APICallError.isInstance(error)) return false;
  const status = error.statusCode;
  return (
    status !== undefined && status >= 400 && status < 500 && ![401, 403, 408, 409, 425, 429].includes(status)
  );
}

/** The Retry-After a failure asked for, in ms. */
export function retryAfterMs(error: unknown): number | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  const raw = error.responseHeaders?.['retry-after'];
  if (raw === undefined) return undefined;
  const seconds = Number(raw);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}
