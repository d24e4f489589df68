import type { MemoryClient } from 'mem0ai';
import { type Mem0Hit, toHits } from '../text';
import type { AddRequest, AddResult, Mem0Backend, SearchRequest } from './types';

const LIST_PAGE_SIZE = 100;
const LIST_MAX_PAGES = 1000;

/**
 * Mem0 Platform through the official `mem0ai` SDK (`MemoryClient`). The SDK takes no signal: the
 * provider bounds each call with a deadline and abandons it there. Adds are asynchronous on the
 * Platform (`{status: "PENDING", event_id}`).
 */
export class PlatformBackend implements Mem0Backend {
  readonly kind = 'platform' as const;

  constructor(private readonly client: MemoryClient) {}

  /**
   * Import the SDK only when a Platform provider starts (it pulls axios and friends), with its
   * telemetry off unless the user asked for it: the SDK reads `MEM0_TELEMETRY` once, at import.
   */
  static async create(options: {
    apiKey: string;
    host: string;
    telemetry: boolean;
  }): Promise<PlatformBackend> {
    if (!options.telemetry && process.env.MEM0_TELEMETRY === undefined) process.env.MEM0_TELEMETRY = 'false';
    const sdk = await import('mem0ai');
    const Client =
      sdk.MemoryClient ??
      (sdk as unknown as { default: { MemoryClient: typeof MemoryClient } }).default.MemoryClient;
    return new PlatformBackend(new Client({ apiKey: options.apiKey, host: options.host }));
  }

  async search(request: SearchRequest, signal: AbortSignal): Promise<Mem0Hit[]> {
    signal.throwIfAborted();
    const response = await this.client.search(request.query, {
      filters: { user_id: request.userId },
      topK: request.topK,
      rerank: request.rerank,
    });
    return toHits(response);
  }

  async add(request: AddRequest, signal: AbortSignal): Promise<AddResult> {
    signal.throwIfAborted();
    const response: unknown = await this.client.add(request.messages, {
      userId: request.userId,
      agentId: request.agentId,
      infer: request.infer,
      ...(request.metadata && Object.keys(request.metadata).length > 0
        ? { metadata: { ...request.metadata } }
        : {}),
      ...(request.timestamp !== undefined ? { timestamp: request.timestamp } : {}),
    });
    // The SDK types this as Memory[]; the v3 endpoint answers {status: "PENDING", eventId}.
    const eventId =
      typeof response === 'object' &&
      response !== null &&
      typeof (response as { eventId?: unknown }).eventId === 'string'
        ? (response as { eventId: string }).eventId
        : undefined;
    return { queued: true, ...(eventId ? { eventId } : {}) };
  }

  async update(memoryId: string, text: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    await this.client.update(memoryId, { text });
  }

  async delete(memoryId: string, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    await this.client.delete(memoryId);
  }

  async list(userId: string, signal: AbortSignal): Promise<Mem0Hit[]> {
    const all: Mem0Hit[] = [];
    for (let page = 1; page <= LIST_MAX_PAGES; page++) {
      signal.throwIfAborted();
      const response = await this.client.getAll({
        filters: { user_id: userId },
        page,
        pageSize: LIST_PAGE_SIZE,
      });
      const hits = toHits(response);
      all.push(...hits);
      const next = (response as { next?: unknown } | undefined)?.next;
      if (hits.length < LIST_PAGE_SIZE || !next) break;
    }
    return all;
  }

  async ping(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    await this.client.ping();
  }

  async close(): Promise<void> {}
}
