import {
  type CircuitBreaker,
  type Clock,
  type HealthMonitor,
  type HttpClient,
  type ProbeResult,
  createHttpClient,
  describeError,
} from '@hermes-memory/core';

/** One memory as the service returns it. */
export interface TemplateMemory {
  id: string;
  content: string;
  kind: 'turn' | 'note' | 'mirror';
  target?: string;
  session_id?: string;
  created_at: string;
  /** Only in search results. */
  score?: number;
}

export interface NewTemplateMemory {
  content: string;
  kind: TemplateMemory['kind'];
  target?: string;
  sessionId?: string;
}

export interface TemplateClientOptions {
  baseURL: string;
  apiKey: string;
  /** Per attempt, in ms. */
  timeoutMs: number;
  /** Retries of a request that is safe to repeat. */
  maxRetries: number;
  /** Records every call's outcome: what `health()` reports. */
  health?: HealthMonitor;
  /** Refuses calls while the service keeps failing. */
  breaker?: CircuitBreaker;
  /** Tests pass a `ManualClock` so backoff never sleeps. */
  clock?: Clock;
}

interface Page<T> {
  items: T[];
  page: number;
  pages: number;
}

/**
 * The service's API, one method per route, over core's HTTP client: timeouts per attempt, retries
 * with backoff and Retry-After for requests that are safe to repeat, and failures as
 * `APICallError` naming the method, the path, the status and the server's `detail` — with the key
 * masked. Every method takes the caller's signal, so the manager's budget reaches the socket.
 *
 * Replace the routes with your backend's. If it has an official SDK, wrap the SDK here instead
 * and hand it `globalFetch` and the signal; the provider above stays the same.
 */
export class TemplateClient {
  private readonly http: HttpClient;

  constructor(options: TemplateClientOptions) {
    this.http = createHttpClient({
      baseURL: options.baseURL,
      name: 'Template',
      auth: { type: 'bearer', token: options.apiKey },
      timeoutMs: options.timeoutMs,
      retry: { maxRetries: options.maxRetries },
      // FastAPI-style errors: `{"detail": "..."}`.
      errorMessage: (body) => detailOf(body),
      ...(options.health ? { health: options.health } : {}),
      ...(options.breaker ? { breaker: options.breaker } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  /** Store one memory. A POST is not repeated unless the server cannot have acted on it. */
  add(memory: NewTemplateMemory, signal?: AbortSignal): Promise<TemplateMemory> {
    return this.http.post<TemplateMemory>(
      '/v1/memories',
      {
        content: memory.content,
        kind: memory.kind,
        ...(memory.target ? { target: memory.target } : {}),
        ...(memory.sessionId ? { session_id: memory.sessionId } : {}),
      },
      signal ? { signal } : {},
    );
  }

  /** The best matches for `query`, best first. A search changes nothing, so it is retried. */
  async search(query: string, limit: number, signal?: AbortSignal): Promise<TemplateMemory[]> {
    const found = await this.http.post<{ results?: TemplateMemory[] }>(
      '/v1/memories/search',
      { query, limit },
      { idempotent: true, ...(signal ? { signal } : {}) },
    );
    return Array.isArray(found?.results) ? found.results : [];
  }

  /** Every memory of a kind (and target), following the pages. */
  async list(
    filter: { kind?: TemplateMemory['kind']; target?: string },
    signal?: AbortSignal,
  ): Promise<TemplateMemory[]> {
    const all: TemplateMemory[] = [];
    for (let page = 1; ; page++) {
      const body = await this.http.get<Page<TemplateMemory>>('/v1/memories', {
        query: { kind: filter.kind, target: filter.target, page, size: 100 },
        ...(signal ? { signal } : {}),
      });
      all.push(...(body?.items ?? []));
      if (!body || page >= body.pages) return all;
    }
  }

  /**
   * The latest `count` memories of a kind, oldest first, in at most three requests however large
   * the store is (pages are oldest first: read the first for the page count, then the last two).
   */
  async recent(kind: TemplateMemory['kind'], count: number, signal?: AbortSignal): Promise<TemplateMemory[]> {
    const page = (n: number) =>
      this.http.get<Page<TemplateMemory>>('/v1/memories', {
        query: { kind, page: n, size: count },
        ...(signal ? { signal } : {}),
      });
    const first = await page(1);
    const pages = first?.pages ?? 1;
    if (pages <= 1) return first?.items ?? [];
    const last = await page(pages);
    const before = pages > 2 ? await page(pages - 1) : first;
    return [...(before?.items ?? []), ...(last?.items ?? [])].slice(-count);
  }

  /** Delete one memory; one that is already gone counts as deleted. */
  async remove(id: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.http.delete(`/v1/memories/${encodeURIComponent(id)}`, {
        responseType: 'none',
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) return;
      throw error;
    }
  }

  /**
   * One authenticated request (the first page of one memory), for setup and doctor: it proves the
   * URL and the key, where the public health route would only prove the URL. Never throws.
   */
  async probe(signal?: AbortSignal): Promise<ProbeResult> {
    const started = Date.now();
    try {
      await this.http.get('/v1/memories', {
        query: { page: 1, size: 1 },
        retry: false,
        ...(signal ? { signal } : {}),
      });
      const latencyMs = Date.now() - started;
      return { status: 'ok', message: `Template answered at ${this.http.baseURL}.`, latencyMs };
    } catch (error) {
      return { status: 'failed', message: describeError(error) };
    }
  }
}

function detailOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const detail = (body as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  return detail === undefined ? undefined : JSON.stringify(detail);
}
