import type { FakeResponse, SseEvent } from './types';

/** Build a handler's answer. */
export const reply = {
  /** A JSON body (status 200 by default). */
  json(body: unknown, status = 200, headers?: Record<string, string>): FakeResponse {
    return { kind: 'json', status, body, ...(headers ? { headers } : {}) };
  },
  /** A plain-text body. */
  text(body: string, status = 200, headers?: Record<string, string>): FakeResponse {
    return { kind: 'text', status, body, ...(headers ? { headers } : {}) };
  },
  /** No body (204 by default). */
  empty(status = 204, headers?: Record<string, string>): FakeResponse {
    return { kind: 'empty', status, ...(headers ? { headers } : {}) };
  },
  /** Server-Sent Events, then an optional terminator (`[DONE]`). */
  sse(events: readonly SseEvent[], options: { done?: string; status?: number } = {}): FakeResponse {
    return {
      kind: 'sse',
      status: options.status ?? 200,
      events,
      ...(options.done !== undefined ? { done: options.done } : {}),
    };
  },
};

/** Serialise events as an SSE stream. */
export function encodeSse(events: readonly SseEvent[], done?: string): string {
  let out = '';
  for (const event of events) {
    if (event.event) out += `event: ${event.event}\n`;
    if (event.id) out += `id: ${event.id}\n`;
    const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
    for (const line of data.split('\n')) out += `data: ${line}\n`;
    out += '\n';
  }
  if (done !== undefined) out += `data: ${done}\n\n`;
  return out;
}

export interface Page<T> {
  items: T[];
  /** 1-based. */
  page: number;
  size: number;
  total: number;
  pages: number;
}

/**
 * One page of `items` (1-based `page`), with the totals list endpoints report. Backends shape
 * the body themselves (Honcho `{items, page, size, total, pages}`, Mem0 `{count, next, previous,
 * results}`, Supermemory `{memories, pagination}`).
 */
export function paginate<T>(items: readonly T[], page: number, size: number): Page<T> {
  const safeSize = Math.max(1, Math.trunc(size) || 1);
  const safePage = Math.max(1, Math.trunc(page) || 1);
  const start = (safePage - 1) * safeSize;
  return {
    items: items.slice(start, start + safeSize),
    page: safePage,
    size: safeSize,
    total: items.length,
    pages: Math.max(1, Math.ceil(items.length / safeSize)),
  };
}

/** An integer query parameter, or the default when absent or not a number. */
export function intParam(query: URLSearchParams, name: string, fallback: number): number {
  const raw = query.get(name);
  if (raw === null || raw.trim() === '') return fallback;
  const value = Number(raw);
  return Number.isFinite(value) ? Math.trunc(value) : fallback;
}
