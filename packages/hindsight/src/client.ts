/**
 * The Hindsight service through `@vectorize-io/hindsight-client` 0.9.1 — its generated hey-api
 * client and operations (`sdk.retainMemories`, `sdk.recallMemories`, …), which are the wire
 * protocol: routes, bodies, `Authorization: Bearer`, its User-Agent. We call the generated layer
 * rather than the `HindsightClient` wrapper because the wrapper drops the HTTP response (so a 503's
 * `Retry-After` is lost) and has no operation-status call (decision 0950).
 *
 * The client never times out on its own: every call here carries a signal that aborts at a
 * deadline (`timeout`, cut shorter by the caller's signal). Core's `retry` repeats what the server
 * cannot have acted on, or what is safe to repeat, honouring `Retry-After` within the caller's
 * budget; failures become `APICallError`s naming method, path and status with the key scrubbed;
 * outcomes feed the `HealthMonitor`. The SDK resolves `globalThis.fetch` per request, and so do
 * we, so its traffic stays observable and fault-injectable.
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
  systemClock,
  TimeoutError,
  withDeadline,
} from '@hermes-memory/core';
import {
  type Client,
  createClient,
  createConfig,
  DEFAULT_USER_AGENT,
  type RecallResponse,
  sdk,
} from '@vectorize-io/hindsight-client';
import type { ObservationScopes, RecallBudget, TagsMatch } from './config';
import { APPEND_MIN_SERVER, versionAtLeast } from './version';

export interface HindsightApiOptions {
  baseURL: string;
  /** '' sends no Authorization header (self-hosted servers usually run without one). */
  apiKey: string;
  /** Per attempt, in ms. */
  timeoutMs: number;
  /** Retries after the first attempt, for requests that may be repeated. Default 2. */
  maxRetries?: number;
  /** First backoff; doubles per retry. Default 250 ms. */
  baseDelayMs?: number;
  health?: HealthMonitor;
  clock?: Clock;
  /**
   * Counts every attempt (server errors, timeouts — a caller's expired deadline too —, resets and
   * malformed bodies fail; answered 4xx and callers that stopped do not) and refuses attempts while
   * open with a `CircuitOpenError`, which
   * is never retried. The connection test (`probe`) bypasses it. Decision 0953.
   */
  breaker?: CircuitBreaker;
}

/** Per-call overrides of the client's defaults. */
interface CallOptions {
  timeoutMs?: number;
  maxRetries?: number;
  /** The connection test: goes out, uncounted, even while the breaker is open. */
  bypassBreaker?: boolean;
}

/** One item of a retain, as the service takes it (`bank_id` and `async` are call-level). */
export interface RetainItem {
  content: string;
  /** ISO-8601 with an offset: the event time the server anchors relative dates on. */
  timestamp: string;
  metadata: Record<string, string>;
  context?: string;
  tags?: string[];
  observation_scopes?: ObservationScopes;
  document_id?: string;
  update_mode?: 'append';
}

export interface RetainOptions {
  async: boolean;
  /** Caller-chosen id of an async retain: a retried request is the same operation, not a second write. */
  operationId?: string;
}

export interface RetainOutcome {
  operationIds: string[];
}

export interface RecallHit {
  id: string;
  text: string;
  type: string | null;
}

export interface RecallParams {
  budget: RecallBudget;
  maxTokens: number;
  types: readonly string[];
  tags?: readonly string[];
  tagsMatch?: TagsMatch;
}

/** What an operation-status read says: terminal (`completed`/`failed`, or 404 = evicted) or not. */
export type OperationState = 'done' | 'pending';

export interface ServerVersion {
  version: string | null;
  /** The server appends to a document (`update_mode: "append"`, ≥ 0.5.0). */
  appends: boolean;
}

/** Statuses that mean the request was not processed, so even a write may be repeated. */
const NOT_ACTED_ON = new Set([408, 429, 503]);
/** The version probe's own bound, as the reference's. */
const VERSION_TIMEOUT_MS = 5000;
const BANKS = '/v1/default/banks';

interface SdkResult<T> {
  data?: T;
  error?: unknown;
  response?: Response;
}

/** Answers of the version probe, per URL, for the life of the process (as the reference caches them). */
const versionCache = new Map<string, ServerVersion>();

/** Forget cached version probes (tests that restart a fake on another version). */
export function clearVersionCache(): void {
  versionCache.clear();
}

export class HindsightApi {
  readonly baseURL: string;
  private readonly client: Client;
  private readonly scrub: (text: string) => string;
  private readonly clock: Clock;

  constructor(private readonly options: HindsightApiOptions) {
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    this.scrub = createScrubber([options.apiKey]);
    this.clock = options.clock ?? systemClock;
    const headers: Record<string, string> = { 'User-Agent': `${DEFAULT_USER_AGENT} hermes-memory` };
    if (options.apiKey) headers.Authorization = `Bearer ${options.apiKey}`;
    this.client = createClient(
      createConfig({
        baseUrl: this.baseURL,
        headers,
        // Resolved per request: tests, proxies and instrumentation that replace the global see it.
        fetch: (request) => globalThis.fetch(request),
      }),
    );
  }

  /**
   * `GET /version`: whether the server appends to documents. Cached per URL once answered; a
   * failed probe (5 s bound) counts as an old server for this call and is asked again next time.
   */
  async serverVersion(signal?: AbortSignal): Promise<ServerVersion> {
    const cached = versionCache.get(this.baseURL);
    if (cached) return cached;
    try {
      const data = await this.call(
        'GET',
        '/version',
        true,
        signal,
        (s) => sdk.getVersion({ client: this.client, signal: s }),
        { timeoutMs: Math.min(this.options.timeoutMs, VERSION_TIMEOUT_MS), maxRetries: 0 },
      );
      const raw = data as { api_version?: unknown; version?: unknown };
      const version =
        typeof raw.api_version === 'string'
          ? raw.api_version
          : typeof raw.version === 'string'
            ? raw.version
            : null;
      const answer = { version, appends: versionAtLeast(version, APPEND_MIN_SERVER) };
      versionCache.set(this.baseURL, answer);
      return answer;
    } catch (error) {
      // Refused by the breaker: nothing was asked, so nothing may be decided from it.
      if (signal?.aborted || CircuitOpenError.isInstance(error)) throw error;
      return { version: null, appends: false };
    }
  }

  /** `POST …/memories`: one batch; async retains answer with the operation ids to poll. */
  async retain(bankId: string, items: RetainItem[], options: RetainOptions, signal?: AbortSignal) {
    const idempotent = options.async && options.operationId !== undefined;
    const data = await this.call('POST', `${BANKS}/${bankId}/memories`, idempotent, signal, (s) =>
      sdk.retainMemories({
        client: this.client,
        path: { bank_id: bankId },
        body: {
          items,
          async: options.async,
          ...(options.async && options.operationId ? { operation_id: options.operationId } : {}),
        },
        signal: s,
      }),
    );
    const ids = [data.operation_id, ...(data.operation_ids ?? [])].filter(
      (id): id is string => typeof id === 'string' && id !== '',
    );
    return { operationIds: [...new Set(ids)] } satisfies RetainOutcome;
  }

  /** `POST …/memories/recall`. */
  async recall(
    bankId: string,
    query: string,
    params: RecallParams,
    signal?: AbortSignal,
  ): Promise<RecallHit[]> {
    const data: RecallResponse = await this.call(
      'POST',
      `${BANKS}/${bankId}/memories/recall`,
      true,
      signal,
      (s) =>
        sdk.recallMemories({
          client: this.client,
          path: { bank_id: bankId },
          body: {
            query,
            budget: params.budget,
            max_tokens: params.maxTokens,
            ...(params.types.length > 0 ? { types: [...params.types] } : {}),
            ...(params.tags && params.tags.length > 0
              ? { tags: [...params.tags], tags_match: params.tagsMatch ?? 'any' }
              : {}),
            include: {},
          },
          signal: s,
        }),
    );
    const out: RecallHit[] = [];
    for (const r of Array.isArray(data?.results) ? data.results : []) {
      if (typeof r?.text !== 'string' || r.text.trim() === '') continue;
      out.push({ id: String(r.id ?? ''), text: r.text, type: typeof r.type === 'string' ? r.type : null });
    }
    return out;
  }

  /** `POST …/reflect`: a synthesis across the bank's memories ('' when it has nothing). */
  async reflect(bankId: string, query: string, budget: RecallBudget, signal?: AbortSignal): Promise<string> {
    const data = await this.call('POST', `${BANKS}/${bankId}/reflect`, true, signal, (s) =>
      sdk.reflect({ client: this.client, path: { bank_id: bankId }, body: { query, budget }, signal: s }),
    );
    return typeof data?.text === 'string' ? data.text : '';
  }

  /**
   * `GET …/operations/{id}` once: `done` for completed or failed, and for 404 (the service evicts
   * finished operations). Other errors throw (the caller keeps waiting on transient ones).
   */
  async operationState(bankId: string, operationId: string, signal?: AbortSignal): Promise<OperationState> {
    try {
      const data = await this.call(
        'GET',
        `${BANKS}/${bankId}/operations/${operationId}`,
        true,
        signal,
        (s) =>
          sdk.getOperationStatus({
            client: this.client,
            path: { bank_id: bankId, operation_id: operationId },
            signal: s,
          }),
        { maxRetries: 0 },
      );
      const status = String(data?.status ?? '').toLowerCase();
      return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'not_found'
        ? 'done'
        : 'pending';
    } catch (error) {
      if (APICallError.isInstance(error) && error.statusCode === 404) return 'done';
      throw error;
    }
  }

  /** `PUT …/{bank}`: create the bank or update its missions (idempotent). */
  async upsertBank(
    bankId: string,
    settings: { mission?: string; retainMission?: string },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.call('PUT', `${BANKS}/${bankId}`, true, signal, (s) =>
      sdk.createOrUpdateBank({
        client: this.client,
        path: { bank_id: bankId },
        body: {
          ...(settings.mission ? { mission: settings.mission } : {}),
          ...(settings.retainMission ? { retain_mission: settings.retainMission } : {}),
        },
        signal: s,
      }),
    );
  }

  /** One page of the bank's documents (export). */
  async listDocuments(bankId: string, offset: number, limit: number, signal?: AbortSignal) {
    const data = await this.call('GET', `${BANKS}/${bankId}/documents`, true, signal, (s) =>
      sdk.listDocuments({
        client: this.client,
        path: { bank_id: bankId },
        query: { limit, offset },
        signal: s,
      }),
    );
    return {
      items: (Array.isArray(data?.items) ? data.items : []) as Record<string, unknown>[],
      total: Number(data?.total ?? 0),
    };
  }

  /** One document with its original text (export). */
  async getDocument(bankId: string, documentId: string, signal?: AbortSignal) {
    return this.call('GET', `${BANKS}/${bankId}/documents/${documentId}`, true, signal, (s) =>
      sdk.getDocument({ client: this.client, path: { bank_id: bankId, document_id: documentId }, signal: s }),
    );
  }

  /** One page of memory units (`status` counts them). */
  async listMemories(bankId: string, limit: number, signal?: AbortSignal, options: CallOptions = {}) {
    const data = await this.call(
      'GET',
      `${BANKS}/${bankId}/memories/list`,
      true,
      signal,
      (s) =>
        sdk.listMemories({ client: this.client, path: { bank_id: bankId }, query: { limit }, signal: s }),
      options,
    );
    return { total: Number(data?.total ?? 0) };
  }

  /** `GET …/{bank}/export`: the bank's template-level settings (config, mental models, directives). */
  async exportBankTemplate(bankId: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const data = await this.call('GET', `${BANKS}/${bankId}/export`, true, signal, (s) =>
      sdk.exportBankTemplate({ client: this.client, path: { bank_id: bankId }, signal: s }),
    );
    return data as Record<string, unknown>;
  }

  /**
   * `POST …/{bank}/import`: apply a template manifest (creates the bank; config overwritten, mental
   * models and directives upserted). Not repeated: a lost answer may mean it was applied.
   */
  async importBankTemplate(
    bankId: string,
    manifest: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const data = await this.call('POST', `${BANKS}/${bankId}/import`, false, signal, (s) =>
      sdk.importBankTemplate({
        client: this.client,
        path: { bank_id: bankId },
        // The generated types omit the body this route takes (a BankTemplateManifest).
        body: manifest as never,
        headers: { 'Content-Type': 'application/json' },
        signal: s,
      }),
    );
    return data as Record<string, unknown>;
  }

  /**
   * Setup's, `status --probe`'s and doctor's connection test: the version, then the bank's memory
   * count (which proves URL, key and bank). Never throws; never refused by the breaker, never
   * counted by it (a user can always check the service).
   */
  async probe(
    bankId: string,
    signal?: AbortSignal,
  ): Promise<ProbeResult & { version?: string; memories?: number }> {
    const started = this.clock.now();
    try {
      const version = await this.call(
        'GET',
        '/version',
        true,
        signal,
        (s) => sdk.getVersion({ client: this.client, signal: s }),
        {
          timeoutMs: Math.min(this.options.timeoutMs, VERSION_TIMEOUT_MS),
          maxRetries: 0,
          bypassBreaker: true,
        },
      );
      const { total } = await this.listMemories(bankId, 1, signal, { maxRetries: 0, bypassBreaker: true });
      const v = typeof version?.api_version === 'string' ? version.api_version : 'unknown';
      return {
        status: 'ok',
        message: `Hindsight ${v} answered at ${this.baseURL} (bank ${bankId}, ${total} memories).`,
        latencyMs: this.clock.now() - started,
        version: v,
        memories: total,
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
    attempt: (signal: AbortSignal) => Promise<SdkResult<T>>,
    options: CallOptions = {},
  ): Promise<T> {
    const health = this.options.health;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const breaker = options.bypassBreaker ? undefined : this.options.breaker;
    try {
      const result = await retry(
        () =>
          breaker
            ? breaker.run(() => this.once(method, path, idempotent, signal, attempt, timeoutMs), {
                ...(signal ? { signal } : {}),
                refusal: () => new CircuitOpenError(breaker.unavailableMessage(), breaker.retryAt),
              })
            : this.once(method, path, idempotent, signal, attempt, timeoutMs),
        {
          maxRetries: options.maxRetries ?? this.options.maxRetries ?? 2,
          baseDelayMs: this.options.baseDelayMs ?? 250,
          clock: this.clock,
          ...(signal ? { signal } : {}),
        },
      );
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

  /** One attempt, bounded by `timeoutMs` and the caller's signal: the SDK never times out itself. */
  private async once<T>(
    method: string,
    path: string,
    idempotent: boolean,
    callSignal: AbortSignal | undefined,
    attempt: (signal: AbortSignal) => Promise<SdkResult<T>>,
    timeoutMs: number,
  ): Promise<T> {
    let result: SdkResult<T>;
    try {
      result = await withDeadline((signal) => attempt(signal), {
        timeoutMs,
        clock: this.clock,
        label: `Hindsight: ${method} ${path}`,
        ...(callSignal ? { signal: callSignal } : {}),
      });
    } catch (error) {
      if (callSignal?.aborted) throw callSignal.reason ?? error;
      throw this.thrown(error, method, path, idempotent, timeoutMs);
    }
    const { response } = result;
    if (response === undefined) throw this.connectionError(result.error, method, path, idempotent);
    if (response.ok && result.data !== undefined && result.data !== null) return result.data;
    return Promise.reject(this.httpError(response, result.error, method, path, idempotent));
  }

  private thrown(error: unknown, method: string, path: string, idempotent: boolean, timeoutMs: number) {
    const url = `${this.baseURL}${path}`;
    if (error instanceof TimeoutError) {
      return new APICallError({
        url,
        method,
        path,
        message: this.scrub(`Hindsight: ${method} ${path} timed out after ${timeoutMs} ms`),
        isRetryable: idempotent,
        cause: error,
      });
    }
    // The SDK parses a 2xx body itself: one that is not JSON surfaces as a SyntaxError.
    if (error instanceof SyntaxError) {
      return new APICallError({
        url,
        method,
        path,
        message: `Hindsight: ${method} ${path} returned a body that is not JSON`,
        isRetryable: false,
        cause: error,
      });
    }
    return this.connectionError(error, method, path, idempotent);
  }

  private connectionError(error: unknown, method: string, path: string, idempotent: boolean) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const text = cause instanceof Error ? cause.message : String(cause);
    return new APICallError({
      url: `${this.baseURL}${path}`,
      method,
      path,
      message: this.scrub(`Hindsight: ${method} ${path} failed: ${text}`),
      // Nothing was answered; a write may still have reached the server, so only reads repeat.
      isRetryable: idempotent,
      ...(error instanceof Error ? { cause: new Error(this.scrub(text)) } : {}),
    });
  }

  private httpError(response: Response, body: unknown, method: string, path: string, idempotent: boolean) {
    const status = response.status;
    // FastAPI: {"detail": "…"} or, for a 422, {"detail": [{loc, msg, type}]}.
    const said = detailText(body) ?? serverMessage(body);
    const retryable = status >= 500 || status === 408 || status === 429;
    const headers: Record<string, string> = {};
    for (const name of ['retry-after', 'retry-after-ms']) {
      const value = response.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    return new APICallError({
      url: `${this.baseURL}${path}`,
      method,
      path,
      statusCode: status,
      message: this.scrub(
        response.ok
          ? `Hindsight: ${method} ${path} answered HTTP ${status} without a body`
          : `Hindsight: ${method} ${path} failed with HTTP ${status}${said ? `: ${said}` : ''}`,
      ),
      isRetryable: !response.ok && retryable && (idempotent || NOT_ACTED_ON.has(status)),
      responseHeaders: headers,
      ...(said ? { serverMessage: this.scrub(said) } : {}),
    });
  }
}

/** The text of a FastAPI `detail` (a string, or the 422 list of `{loc, msg}`). */
function detailText(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() === '' ? undefined : body.slice(0, 300);
  if (typeof body !== 'object' || body === null) return undefined;
  const detail = (body as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const parts = detail.map((d) => {
      const e = (d ?? {}) as { loc?: unknown; msg?: unknown };
      const loc = Array.isArray(e.loc) ? e.loc.join('.') : '';
      return `${loc ? `${loc}: ` : ''}${String(e.msg ?? '')}`;
    });
    return parts.join('; ') || undefined;
  }
  return undefined;
}
