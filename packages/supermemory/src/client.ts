/**
 * The Supermemory service through the official `supermemory` SDK (Stainless), which stays the
 * wire protocol: its routes, bodies, `Authorization: Bearer` and `X-Stainless-*` headers. Around
 * each call: the caller's signal and a per-attempt timeout reach the SDK's fetch; the SDK's own
 * retries are off (`maxRetries: 0`, as the reference sets) and core's `retry` repeats only what
 * the server cannot have acted on or what is safe to repeat, honouring `Retry-After` within the
 * caller's budget; failures become core `APICallError`s naming method, path and status with the
 * key scrubbed; every outcome feeds the `HealthMonitor`. See decision 0930.
 */
import {
  APICallError,
  type CircuitBreaker,
  CircuitOpenError,
  type Clock,
  createScrubber,
  type HealthMonitor,
  type ProbeResult,
  retry,
  serverMessage,
  TimeoutError,
} from '@hermes-memory/core';
import Supermemory from 'supermemory';
import type { SearchMode } from './config';
import type { MetadataValue } from './text';

/** Sent on every request, so the service can tell Hermes' writes apart. */
export const SOURCE_HEADER = { 'x-sm-source': 'hermes' } as const;

export interface SupermemoryClientOptions {
  apiKey: string;
  baseURL: string;
  /** Per attempt, in ms (`api_timeout`). */
  timeoutMs: number;
  /** Retries after the first attempt, for requests that may be repeated. Default 2. */
  maxRetries?: number;
  /** First backoff; doubles per retry. Default 250 ms. */
  baseDelayMs?: number;
  health?: HealthMonitor;
  /** Every call but the connection probe passes it: a dead service is not asked every turn. */
  breaker?: CircuitBreaker;
  clock?: Clock;
}

export interface NewDocument {
  content: string;
  containerTag: string;
  metadata: Record<string, MetadataValue>;
  entityContext?: string;
  customId?: string;
}

export interface MemoryHit {
  id: string;
  memory: string;
  /** 0..1 */
  similarity: number | undefined;
  updatedAt: string | undefined;
  metadata: Record<string, unknown> | null;
}

export interface Profile {
  static: string[];
  dynamic: string[];
  results: MemoryHit[];
}

export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface StoredDocument {
  id: string;
  customId: string | null;
  content: string | null;
  summary: string | null;
  title: string | null;
  containerTags: string[];
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
}

/** Statuses that mean the request was not processed, so even a write may be repeated. */
const NOT_ACTED_ON = new Set([408, 429, 503]);

interface SdkErrorLike {
  status?: number;
  headers?: Headers;
  error?: unknown;
  name: string;
  message: string;
}

export class SupermemoryClient {
  readonly sdk: Supermemory;
  readonly baseURL: string;
  private readonly scrub: (text: string) => string;

  constructor(private readonly options: SupermemoryClientOptions) {
    this.baseURL = options.baseURL;
    this.scrub = createScrubber([options.apiKey]);
    this.sdk = new Supermemory({
      apiKey: options.apiKey,
      baseURL: options.baseURL,
      timeout: options.timeoutMs,
      maxRetries: 0,
      defaultHeaders: SOURCE_HEADER,
      logLevel: 'off',
      // The SDK keeps the fetch it is given at construction; resolving the global per call keeps
      // its requests observable and fault-injectable (tests, proxies, instrumentation).
      fetch: (input, init) => globalThis.fetch(input, init),
    });
  }

  async addDocument(doc: NewDocument, signal?: AbortSignal): Promise<{ id: string }> {
    const result = await this.call('POST', '/v3/documents', false, signal, (o) =>
      this.sdk.documents.add(
        {
          content: doc.content,
          containerTags: [doc.containerTag],
          metadata: doc.metadata,
          ...(doc.entityContext ? { entityContext: doc.entityContext } : {}),
          ...(doc.customId ? { customId: doc.customId } : {}),
        },
        o,
      ),
    );
    return { id: String(result.id) };
  }

  async searchMemories(
    params: { q: string; containerTag: string; limit: number; searchMode: SearchMode },
    signal?: AbortSignal,
  ): Promise<MemoryHit[]> {
    const found = await this.call('POST', '/v4/search', true, signal, (o) =>
      this.sdk.search.memories(params, o),
    );
    return hits(found?.results);
  }

  async profile(params: { containerTag: string; q?: string }, signal?: AbortSignal): Promise<Profile> {
    const found = await this.call('POST', '/v4/profile', true, signal, (o) => this.sdk.profile(params, o));
    return {
      static: strings(found?.profile?.static),
      dynamic: strings(found?.profile?.dynamic),
      results: hits(found?.searchResults?.results),
    };
  }

  async forget(params: { containerTag: string; id: string }, signal?: AbortSignal): Promise<void> {
    await this.call('DELETE', '/v4/memories', true, signal, (o) => this.sdk.memories.forget(params, o));
  }

  /**
   * The whole session for entity extraction and the profile (`POST /v4/conversations`, not wrapped
   * by the SDK: sent through its generic `post`, so auth, headers and fetch are the same). The
   * service keys it by `conversationId`, so repeating it after an unclear failure does not
   * duplicate it. Its timeout is `api_timeout + 3 s`, as the reference's.
   */
  async ingestConversation(
    body: {
      conversationId: string;
      messages: ConversationMessage[];
      containerTags: string[];
      metadata: Record<string, MetadataValue>;
    },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.call(
      'POST',
      '/v4/conversations',
      true,
      signal,
      (o) => this.sdk.post('/v4/conversations', { ...o, body }),
      this.options.timeoutMs + 3000,
    );
  }

  /** One page of stored documents (export), newest first. */
  async listDocuments(
    params: { containerTags: string[]; page: number; limit: number },
    signal?: AbortSignal,
  ): Promise<{ documents: StoredDocument[]; totalPages: number }> {
    const found = await this.call('POST', '/v3/documents/list', true, signal, (o) =>
      this.sdk.documents.list({ ...params, includeContent: true, sort: 'createdAt', order: 'desc' }, o),
    );
    const documents = Array.isArray(found?.memories) ? (found.memories as unknown as StoredDocument[]) : [];
    return { documents, totalPages: Number(found?.pagination?.totalPages ?? 1) };
  }

  /**
   * Setup's and doctor's connection test: one profile call, which proves URL, key and container.
   * Never throws.
   */
  async probe(containerTag: string, signal?: AbortSignal): Promise<ProbeResult & { facts?: number }> {
    const started = Date.now();
    try {
      const profile = await this.call(
        'POST',
        '/v4/profile',
        true,
        signal,
        (o) => this.sdk.profile({ containerTag }, o),
        undefined,
        0,
      );
      const facts = strings(profile?.profile?.static).length + strings(profile?.profile?.dynamic).length;
      return {
        status: 'ok',
        message: `Supermemory answered at ${this.baseURL} (container ${containerTag}, ${facts} profile facts).`,
        latencyMs: Date.now() - started,
        facts,
      };
    } catch (error) {
      return { status: 'failed', message: error instanceof Error ? error.message : String(error) };
    }
  }

  private async call<T>(
    method: string,
    path: string,
    idempotent: boolean,
    signal: AbortSignal | undefined,
    attempt: (options: { signal: AbortSignal; timeout: number; maxRetries: 0 }) => PromiseLike<T>,
    timeoutMs = this.options.timeoutMs,
    maxRetries = this.options.maxRetries ?? 2,
  ): Promise<T> {
    const health = this.options.health;
    // The probe (maxRetries 0) is the connection test: it always asks the service.
    const breaker = maxRetries > 0 ? this.options.breaker : undefined;
    const attempts = () =>
      retry(() => this.once(method, path, idempotent, signal, attempt, timeoutMs), {
        maxRetries,
        baseDelayMs: this.options.baseDelayMs ?? 250,
        ...(this.options.clock ? { clock: this.options.clock } : {}),
        ...(signal ? { signal } : {}),
      });
    try {
      // Per call, not per attempt (decision 0930). Core's `run` decides a call cut short by the
      // signal: our side stopping it (shutdown, session switch) frees a half-open trial and counts
      // nothing; a deadline expiring (the manager's budget on a hung service) counts.
      const result = breaker
        ? await breaker.run(attempts, {
            ...(signal ? { signal } : {}),
            refusal: () => this.refusal(breaker),
          })
        : await attempts();
      health?.recordSuccess();
      return result;
    } catch (error) {
      // A refused call asked nothing: it says nothing new about the service.
      if (health && !signal?.aborted && !CircuitOpenError.isInstance(error)) {
        // A 4xx is an answer: the service is up, the request was wrong (401/403 excepted).
        health.recordError(error);
      }
      throw error;
    }
  }

  /** What a refused call throws: tools show it, in the wording the README quotes. */
  private refusal(breaker: CircuitBreaker): CircuitOpenError {
    const seconds = Math.ceil(
      Math.max(0, breaker.retryAt - (this.options.clock?.now() ?? Date.now())) / 1000,
    );
    return new CircuitOpenError(
      `Supermemory is unavailable after ${breaker.failures} consecutive failures; the next request goes out in ${seconds} s.`,
      breaker.retryAt,
    );
  }

  /** One attempt with a signal of its own, so no listener outlives it on the caller's signal. */
  private async once<T>(
    method: string,
    path: string,
    idempotent: boolean,
    callSignal: AbortSignal | undefined,
    attempt: (options: { signal: AbortSignal; timeout: number; maxRetries: 0 }) => PromiseLike<T>,
    timeoutMs: number,
  ): Promise<T> {
    callSignal?.throwIfAborted();
    const controller = new AbortController();
    const forward = () => controller.abort(callSignal?.reason);
    callSignal?.addEventListener('abort', forward, { once: true });
    try {
      return await attempt({ signal: controller.signal, timeout: timeoutMs, maxRetries: 0 });
    } catch (error) {
      if (callSignal?.aborted) throw callSignal.reason ?? error;
      throw this.toApiError(error, method, path, idempotent, timeoutMs);
    } finally {
      callSignal?.removeEventListener('abort', forward);
    }
  }

  private toApiError(error: unknown, method: string, path: string, idempotent: boolean, timeoutMs: number) {
    if (APICallError.isInstance(error)) return error;
    const url = `${this.baseURL}${path}`;
    if (error instanceof Supermemory.APIError) {
      const e = error as SdkErrorLike;
      const status = typeof e.status === 'number' && e.status > 0 ? e.status : undefined;
      if (status === undefined) {
        const timedOut = error instanceof Supermemory.APIConnectionTimeoutError;
        return new APICallError({
          url,
          method,
          path,
          message: this.scrub(
            `Supermemory: ${method} ${path} ${timedOut ? `timed out after ${timeoutMs} ms` : `failed: ${connectionCause(error)}`}`,
          ),
          isRetryable: idempotent,
          cause: timedOut ? new TimeoutError(error.message, timeoutMs) : error,
        });
      }
      const said = e.error !== undefined ? serverMessage(e.error) : undefined;
      const retryable = status >= 500 || status === 408 || status === 409 || status === 429;
      const headers: Record<string, string> = {};
      e.headers?.forEach((value, key) => {
        if (key === 'retry-after' || key === 'retry-after-ms') headers[key] = value;
      });
      return new APICallError({
        url,
        method,
        path,
        statusCode: status,
        message: this.scrub(
          `Supermemory: ${method} ${path} failed with HTTP ${status}${said ? `: ${said}` : ''}`,
        ),
        isRetryable: retryable && (idempotent || NOT_ACTED_ON.has(status)),
        responseHeaders: headers,
        ...(said ? { serverMessage: this.scrub(said) } : {}),
      });
    }
    // The SDK parses bodies itself: a body that is not JSON surfaces as a SyntaxError.
    if (error instanceof SyntaxError) {
      return new APICallError({
        url,
        method,
        path,
        message: `Supermemory: ${method} ${path} returned a body that is not JSON`,
        isRetryable: false,
        cause: error,
      });
    }
    return error;
  }
}

function connectionCause(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? cause.message : error.message;
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '')
    : [];
}

function hits(value: unknown): MemoryHit[] {
  if (!Array.isArray(value)) return [];
  const out: MemoryHit[] = [];
  for (const raw of value) {
    if (typeof raw !== 'object' || raw === null) continue;
    const r = raw as Record<string, unknown>;
    const memory = typeof r.memory === 'string' ? r.memory : typeof r.chunk === 'string' ? r.chunk : '';
    if (memory.trim() === '') continue;
    out.push({
      id: typeof r.id === 'string' ? r.id : '',
      memory,
      similarity: typeof r.similarity === 'number' ? r.similarity : undefined,
      updatedAt: typeof r.updatedAt === 'string' ? r.updatedAt : undefined,
      metadata:
        typeof r.metadata === 'object' && r.metadata !== null
          ? (r.metadata as Record<string, unknown>)
          : null,
    });
  }
  return out;
}
