import {
  type CircuitBreaker,
  type Clock,
  createHttpClient,
  describeError,
  type HealthMonitor,
  type HttpClient,
  type ProbeResult,
  systemClock,
} from '@hermes-memory/core';
import type { CreateRoomRequest, MatrixEvent, MessagesResponse, SyncResponse } from './types';

export interface MatrixClientOptions {
  homeserver: string;
  userId: string;
  accessToken: string;
  /** Per attempt, in ms. */
  timeoutMs: number;
  /** Retries of a request that is safe to repeat. */
  maxRetries: number;
  health?: HealthMonitor;
  breaker?: CircuitBreaker;
  clock?: Clock;
}

const API = '/_matrix/client/v3';
const enc = encodeURIComponent;

/** Matrix errors are `{errcode, error}`: the message names both. */
export function matrixMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { errcode, error } = body as { errcode?: unknown; error?: unknown };
  if (typeof errcode === 'string' && typeof error === 'string') return `${errcode}: ${error}`;
  if (typeof error === 'string') return error;
  return typeof errcode === 'string' ? errcode : undefined;
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/**
 * The Matrix client-server calls hivemind makes, one method per route, as plain HTTP over core's
 * client (no Matrix SDK: the reference dropped matrix-nio because its join sent no JSON body).
 * Timeouts per attempt, retries for requests that are safe to repeat — a `PUT send` carries its
 * transaction id, so repeating it never sends twice — and failures as `APICallError` with the
 * access token masked. Every method takes the caller's signal.
 */
export class MatrixClient {
  readonly userId: string;
  private readonly http: HttpClient;
  private readonly clock: Clock;
  private txnCounter = 0;
  private readonly txnPrefix = `hm${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;

  constructor(options: MatrixClientOptions) {
    this.userId = options.userId;
    this.clock = options.clock ?? systemClock;
    this.http = createHttpClient({
      baseURL: options.homeserver,
      name: 'Matrix homeserver',
      auth: { type: 'bearer', token: options.accessToken },
      timeoutMs: options.timeoutMs,
      retry: { maxRetries: options.maxRetries },
      errorMessage: matrixMessage,
      ...(options.health ? { health: options.health } : {}),
      ...(options.breaker ? { breaker: options.breaker } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  get homeserver(): string {
    return this.http.baseURL;
  }

  whoami(signal?: AbortSignal): Promise<{ user_id: string; device_id?: string }> {
    return this.http.get(`${API}/account/whoami`, { retry: false, ...opts(signal) });
  }

  /** `GET /sync?timeout=0`: returns at once with what changed after `since` (all, without it). */
  sync(since: string | undefined, signal?: AbortSignal): Promise<SyncResponse> {
    return this.http.get<SyncResponse>(`${API}/sync`, { query: { timeout: 0, since }, ...opts(signal) });
  }

  /** Join with a `{}` body (Conduit refuses a join without one). Joining twice is harmless. */
  async join(roomId: string, signal?: AbortSignal): Promise<void> {
    await this.http.post(`${API}/join/${enc(roomId)}`, {}, { idempotent: true, ...opts(signal) });
  }

  async leave(roomId: string, signal?: AbortSignal): Promise<void> {
    await this.http.post(`${API}/rooms/${enc(roomId)}/leave`, {}, { idempotent: true, ...opts(signal) });
  }

  /** Newest first (`dir=b`), at most `limit`, following `end` tokens for up to `pages` pages. */
  async messages(roomId: string, limit: number, signal?: AbortSignal, pages = 1): Promise<MatrixEvent[]> {
    const out: MatrixEvent[] = [];
    let from: string | undefined;
    for (let page = 0; page < pages && out.length < limit * pages; page++) {
      const body = await this.http.get<MessagesResponse>(`${API}/rooms/${enc(roomId)}/messages`, {
        query: { dir: 'b', limit, from },
        ...opts(signal),
      });
      out.push(...(Array.isArray(body?.chunk) ? body.chunk : []));
      if (!body?.end) break;
      from = body.end;
    }
    return out;
  }

  /** Membership events of the room (joined, invited and former members). */
  async members(roomId: string, signal?: AbortSignal): Promise<MatrixEvent[]> {
    const body = await this.http.get<{ chunk?: MatrixEvent[] }>(
      `${API}/rooms/${enc(roomId)}/members`,
      opts(signal),
    );
    return Array.isArray(body?.chunk) ? body.chunk : [];
  }

  async state(roomId: string, signal?: AbortSignal): Promise<MatrixEvent[]> {
    const body = await this.http.get<MatrixEvent[]>(`${API}/rooms/${enc(roomId)}/state`, opts(signal));
    return Array.isArray(body) ? body : [];
  }

  /** Send an event; the transaction id makes a retried PUT land once. */
  async send(
    roomId: string,
    type: string,
    content: Record<string, unknown>,
    signal?: AbortSignal,
    txnId = this.nextTxnId(),
  ): Promise<string> {
    const body = await this.http.put<{ event_id?: string }>(
      `${API}/rooms/${enc(roomId)}/send/${enc(type)}/${enc(txnId)}`,
      content,
      opts(signal),
    );
    return body?.event_id ?? '';
  }

  /** A private, invite-only room. Not retried: a repeat would create a second room. */
  async createRoom(request: CreateRoomRequest, signal?: AbortSignal): Promise<string> {
    const body = await this.http.post<{ room_id?: string }>(`${API}/createRoom`, request, opts(signal));
    if (typeof body?.room_id !== 'string')
      throw new Error('Matrix homeserver: createRoom answered without a room_id.');
    return body.room_id;
  }

  /** Global account data of this user; null when unset (404 `M_NOT_FOUND`). */
  getAccountData<T>(type: string, signal?: AbortSignal): Promise<T | null> {
    return this.orNull(
      this.http.get<T>(`${API}/user/${enc(this.userId)}/account_data/${enc(type)}`, opts(signal)),
    );
  }

  async setAccountData(type: string, content: object, signal?: AbortSignal): Promise<void> {
    await this.http.put(`${API}/user/${enc(this.userId)}/account_data/${enc(type)}`, content, opts(signal));
  }

  getRoomAccountData<T>(roomId: string, type: string, signal?: AbortSignal): Promise<T | null> {
    return this.orNull(
      this.http.get<T>(
        `${API}/user/${enc(this.userId)}/rooms/${enc(roomId)}/account_data/${enc(type)}`,
        opts(signal),
      ),
    );
  }

  async setRoomAccountData(
    roomId: string,
    type: string,
    content: object,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.http.put(
      `${API}/user/${enc(this.userId)}/rooms/${enc(roomId)}/account_data/${enc(type)}`,
      content,
      opts(signal),
    );
  }

  /** One authenticated call (whoami), for setup and doctor. Never throws. */
  async probe(signal?: AbortSignal): Promise<ProbeResult> {
    const started = this.clock.now();
    try {
      const me = await this.whoami(signal);
      if (me?.user_id !== this.userId) {
        return {
          status: 'failed',
          message: `The access token belongs to ${me?.user_id ?? 'nobody'}, not ${this.userId}.`,
        };
      }
      return {
        status: 'ok',
        message: `Matrix homeserver answered as ${this.userId}.`,
        latencyMs: this.clock.now() - started,
      };
    } catch (error) {
      return { status: 'failed', message: describeError(error) };
    }
  }

  private nextTxnId(): string {
    this.txnCounter += 1;
    return `${this.txnPrefix}.${this.txnCounter}`;
  }

  private async orNull<T>(request: Promise<T>): Promise<T | null> {
    try {
      return await request;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw error;
    }
  }
}

function opts(signal?: AbortSignal): { signal?: AbortSignal } {
  return signal ? { signal } : {};
}
