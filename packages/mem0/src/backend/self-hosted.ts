import { type Clock, createHttpClient, type HttpClient } from '@hermes-memory/core';
import type { Mem0Hit } from '../text';
import { toHits } from '../text';
import type { AddRequest, AddResult, Mem0Backend, SearchRequest } from './types';

/**
 * A self-hosted Mem0 server over its REST API (the Platform SDK cannot talk to one: it sends
 * `Authorization: Token` and pings `/v1/ping/`, which those servers do not serve). `X-API-Key` only
 * when a key is set; any non-2xx answer throws; 2 retries where repeating is harmless.
 */
export class SelfHostedBackend implements Mem0Backend {
  readonly kind = 'selfhosted' as const;
  private readonly http: HttpClient;

  constructor(options: { host: string; apiKey: string; timeoutMs: number; clock?: Clock }) {
    this.http = createHttpClient({
      baseURL: options.host,
      name: 'Mem0',
      ...(options.apiKey !== ''
        ? { auth: { type: 'header', name: 'X-API-Key', value: options.apiKey } }
        : {}),
      timeoutMs: options.timeoutMs,
      retry: { maxRetries: 2 },
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  async search(request: SearchRequest, signal: AbortSignal): Promise<Mem0Hit[]> {
    // Rerank is a Platform feature: self-hosted servers ignore it, so it is not sent.
    const response = await this.http.post<unknown>(
      '/search',
      { query: request.query, top_k: request.topK, filters: { user_id: request.userId } },
      { signal, idempotent: true },
    );
    return toHits(response);
  }

  async add(request: AddRequest, signal: AbortSignal): Promise<AddResult> {
    const body: Record<string, unknown> = {
      messages: request.messages,
      user_id: request.userId,
      agent_id: request.agentId,
      infer: request.infer,
    };
    if (request.metadata && Object.keys(request.metadata).length > 0) body.metadata = request.metadata;
    await this.http.post<unknown>('/memories', body, { signal });
    return { queued: false };
  }

  async update(memoryId: string, text: string, signal: AbortSignal): Promise<void> {
    await this.http.put<unknown>(`/memories/${encodeURIComponent(memoryId)}`, { text }, { signal });
  }

  async delete(memoryId: string, signal: AbortSignal): Promise<void> {
    await this.http.delete<unknown>(`/memories/${encodeURIComponent(memoryId)}`, { signal });
  }

  async list(userId: string, signal: AbortSignal): Promise<Mem0Hit[]> {
    return toHits(await this.http.get<unknown>('/memories', { query: { user_id: userId }, signal }));
  }

  async ping(signal: AbortSignal): Promise<void> {
    await this.http.get<unknown>('/memories', { query: { user_id: '__hermes_probe__' }, signal });
  }

  async close(): Promise<void> {}
}
