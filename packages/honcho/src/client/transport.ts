/**
 * Deadlines, retries and error reporting for the official SDK's requests.
 *
 * `@honcho-ai/sdk` 2.5.0 takes no per-call signal in its high-level API (`peer.chat`,
 * `session.addMessages`, …), retries POSTs blindly, keeps retrying after its caller gave up, and
 * sleeps on the real clock. Its HTTP client does accept a `signal` and a `timeout` per request,
 * and every high-level call goes through that client's public `request` / `stream` / `upload`.
 * So the SDK keeps doing its own fetches (its routes, headers and bodies are the wire protocol),
 * while each request is wrapped here: the signal of the call that caused it (an
 * `AsyncLocalStorage` scope set by `HonchoClient.call`) reaches the fetch, retries follow core's
 * policy (only what the server cannot have acted on is repeated for writes), and failures become
 * core `APICallError`s that name method, path and status — never the key. See decision 0920.
 * Every attempt passes the provider's circuit breaker and has a deadline on the injected clock
 * (decision 0925).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  APICallError,
  type CircuitBreaker,
  CircuitOpenError,
  type Clock,
  createScrubber,
  type HealthMonitor,
  retry,
  serverMessage,
  systemClock,
  TimeoutError,
} from '@hermes-memory/core';
import type { HonchoHTTPClient } from '@honcho-ai/sdk/dist/http/client';
import { redactHonchoTokens } from '../auth/credential';
import type { OAuthTokenSource } from '../auth/token-source';

/** What a high-level call hands to every request it makes. */
interface CallScope {
  signal: AbortSignal | undefined;
  /** The connection test: it goes out (and is not counted) even while the breaker is open. */
  bypassBreaker?: boolean;
}

const scope = new AsyncLocalStorage<CallScope>();

/** Run `work` so that every SDK request it makes carries `signal`. */
export function runWithSignal<T>(
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
  options: { bypassBreaker?: boolean } = {},
): Promise<T> {
  return scope.run({ signal, ...options }, work);
}

export interface TransportOptions {
  /** The key, to scrub from anything reported. */
  apiKey?: string | undefined;
  /** Per-attempt timeout (ms). */
  timeoutMs: number;
  /** Retries after the first attempt, for requests that may be repeated. Default 2. */
  maxRetries?: number;
  /** First backoff; doubles per retry. Default 500 ms. */
  baseDelayMs?: number;
  clock?: Clock;
  /** Fed with every request's outcome (client errors count as answers). */
  health?: HealthMonitor;
  /** A failed `POST /v3/workspaces` (the SDK memoises it per client, rejection included). */
  onWorkspaceFailure?: () => void;
  /**
   * The OAuth grant behind the bearer: refreshed before it expires and once after a 401, the
   * request then repeated once with the new token (rotated in place on the SDK's HTTP client).
   */
  oauth?: OAuthTokenSource;
  /**
   * Counts every attempt's outcome (server errors, timeouts, resets and malformed bodies fail;
   * client errors are answers) and refuses attempts while open, with a `CircuitOpenError`.
   */
  breaker?: CircuitBreaker;
}

/** Requests whose repetition would store something twice: only retried when the server cannot have acted. */
const WRITE_PATHS = [/\/messages$/, /\/messages\/upload$/, /\/conclusions$/, /\/schedule_dream$/, /\/clone$/];
/** Statuses that mean the request was not processed (safe to repeat even for writes). */
const NOT_ACTED_ON = new Set([408, 429, 503]);

export function isIdempotent(method: string, path: string): boolean {
  if (method !== 'POST' && method !== 'PATCH') return true;
  return !WRITE_PATHS.some((pattern) => pattern.test(path));
}

interface HonchoErrorLike {
  name: string;
  message: string;
  status?: number;
  body?: unknown;
  retryAfter?: number;
}

function isUnauthorized(error: unknown): boolean {
  return APICallError.isInstance(error) && error.statusCode === 401;
}

function isHonchoError(error: unknown): error is HonchoErrorLike {
  return error instanceof Error && typeof (error as { status?: unknown }).status === 'number';
}

/** A refused key or grant (401, 403): retrying will not help, the user must act. */
export function isAuthFailure(error: unknown): boolean {
  return APICallError.isInstance(error) && (error.statusCode === 401 || error.statusCode === 403);
}

export class HonchoTransport {
  private readonly clock: Clock;
  private readonly scrub: (text: string) => string;
  private http: { apiKey?: string } | undefined;

  constructor(private readonly options: TransportOptions) {
    this.clock = options.clock ?? systemClock;
    const scrubKey = createScrubber([options.apiKey]);
    this.scrub = (text) => redactHonchoTokens(scrubKey(text));
  }

  /** Route `http`'s public request methods through this transport (the SDK's fetch stays). */
  install(http: HonchoHTTPClient): void {
    // The SDK builds its Authorization header per request from this field: rotating it rotates the bearer.
    this.http = http as { apiKey?: string };
    const request = http.request.bind(http);
    const stream = http.stream.bind(http);
    const upload = http.upload.bind(http);
    const target = http as {
      request: HonchoHTTPClient['request'];
      stream: HonchoHTTPClient['stream'];
      upload: HonchoHTTPClient['upload'];
    };
    target.request = (method, path, options = {}) =>
      this.send(method, path, (signal, timeout) => request(method, path, { ...options, signal, timeout }));
    target.stream = (method, path, options = {}) =>
      this.send(method, path, (signal, timeout) => stream(method, path, { ...options, signal, timeout }));
    target.upload = (path, formData, options = {}) =>
      this.send('POST', path, (signal, timeout) => upload(path, formData, { ...options, signal, timeout }));
  }

  private async send<T>(
    method: string,
    path: string,
    attempt: (signal: AbortSignal, timeoutMs: number) => Promise<T>,
    afterRefresh = false,
  ): Promise<T> {
    const verb = method.toUpperCase();
    const callSignal = scope.getStore()?.signal;
    const idempotent = isIdempotent(verb, path);
    const health = this.options.health;
    const oauth = this.options.oauth;
    // A synchronous expiry check: the network is involved only when the token is about to expire.
    if (oauth?.stale) await oauth.fresh(callSignal);
    const sentWith = oauth?.token;
    try {
      const once = () => this.once(verb, path, idempotent, callSignal, attempt);
      const result = await retry(() => this.throughBreaker(once, callSignal), {
        maxRetries: this.options.maxRetries ?? 2,
        baseDelayMs: this.options.baseDelayMs ?? 500,
        clock: this.clock,
        ...(callSignal ? { signal: callSignal } : {}),
      });
      health?.recordSuccess();
      return result;
    } catch (error) {
      if (oauth && sentWith && !afterRefresh && isUnauthorized(error) && !callSignal?.aborted) {
        // Expired or revoked server-side before the local clock said so: refresh once, repeat once.
        const next = await oauth.recover(sentWith, callSignal);
        if (next) return this.send(method, path, attempt, true);
      }
      if (verb === 'POST' && /^\/v\d+\/workspaces$/.test(path)) this.options.onWorkspaceFailure?.();
      if (health && !callSignal?.aborted && !CircuitOpenError.isInstance(error)) {
        health.recordError(error);
      }
      throw error;
    }
  }

  /**
   * One attempt through the breaker: refused while open. Core's `CircuitBreaker.run` judges an
   * attempt cut short by the caller's signal: a caller that stopped (session switch, shutdown) is no
   * verdict on Honcho and only frees a half-open trial; a deadline that expired counts.
   */
  private throughBreaker<T>(once: () => Promise<T>, callSignal: AbortSignal | undefined): Promise<T> {
    const breaker = scope.getStore()?.bypassBreaker ? undefined : this.options.breaker;
    if (!breaker) return once();
    return breaker.run(once, {
      ...(callSignal ? { signal: callSignal } : {}),
      refusal: () => new CircuitOpenError(breaker.unavailableMessage(), breaker.retryAt),
    });
  }

  /**
   * One attempt, with a signal of its own (so no listener outlives it on the caller's signal) and
   * a deadline on the injected clock.
   */
  private async once<T>(
    method: string,
    path: string,
    idempotent: boolean,
    callSignal: AbortSignal | undefined,
    attempt: (signal: AbortSignal, timeoutMs: number) => Promise<T>,
  ): Promise<T> {
    callSignal?.throwIfAborted();
    const oauth = this.options.oauth;
    if (oauth && this.http && this.http.apiKey !== oauth.token) this.http.apiKey = oauth.token;
    const controller = new AbortController();
    const forward = () => controller.abort(callSignal?.reason);
    callSignal?.addEventListener('abort', forward, { once: true });
    const timeoutMs = this.options.timeoutMs;
    const timer = this.clock.setTimeout(
      () => controller.abort(new TimeoutError(`Honcho: ${method} ${path} timed out`, timeoutMs)),
      timeoutMs,
    );
    try {
      return await attempt(controller.signal, timeoutMs);
    } catch (error) {
      if (callSignal?.aborted) throw callSignal.reason ?? error;
      const timedOut = TimeoutError.isInstance(controller.signal.reason);
      throw this.toApiError(timedOut ? timeoutLike() : error, method, path, idempotent);
    } finally {
      this.clock.clearTimeout(timer);
      callSignal?.removeEventListener('abort', forward);
    }
  }

  private toApiError(error: unknown, method: string, path: string, idempotent: boolean): unknown {
    if (APICallError.isInstance(error)) return error;
    const url = path;
    if (isHonchoError(error)) {
      const status = error.status && error.status > 0 ? error.status : undefined;
      if (status === undefined) {
        const timedOut = error.name === 'TimeoutError';
        return new APICallError({
          url,
          method,
          path,
          message: this.scrub(
            `Honcho: ${method} ${path} ${timedOut ? `timed out after ${this.options.timeoutMs} ms` : `failed: ${error.message}`}`,
          ),
          isRetryable: idempotent,
          cause: timedOut ? new TimeoutError(error.message, this.options.timeoutMs) : error,
        });
      }
      const said = (error.body !== undefined ? serverMessage(error.body) : undefined) ?? error.message;
      const retryable = status >= 500 || status === 408 || status === 409 || status === 429;
      const retryAfterMs = error.retryAfter;
      return new APICallError({
        url,
        method,
        path,
        statusCode: status,
        message: this.scrub(`Honcho: ${method} ${path} failed with HTTP ${status}${said ? `: ${said}` : ''}`),
        isRetryable: retryable && (idempotent || NOT_ACTED_ON.has(status)),
        ...(said ? { serverMessage: this.scrub(said) } : {}),
        ...(retryAfterMs !== undefined
          ? { responseHeaders: { 'retry-after-ms': String(retryAfterMs) } }
          : {}),
        ...(error.body !== undefined ? { data: error.body } : {}),
      });
    }
    if (error instanceof SyntaxError) {
      return new APICallError({
        url,
        method,
        path,
        message: `Honcho: ${method} ${path} returned a body that is not JSON`,
        isRetryable: false,
        cause: error,
      });
    }
    return error;
  }
}

/** The shape the SDK gives a timed-out request (mapped like its own timeout). */
function timeoutLike(): Error {
  const error = new Error('Request timed out') as Error & { status: number };
  error.name = 'TimeoutError';
  error.status = 0;
  return error;
}
