import { type Clock, createHttpClient, type HealthMonitor, type HttpClient } from '@hermes-memory/core';

/** Entries a search asks for (the reference's `NOTEBOOK_SEARCH_LIMIT`). */
export const NOTEBOOK_SEARCH_LIMIT = 5;
/** Characters of the query sent (a turn's message can be long; the search wants a topic). */
const MAX_QUERY_CHARS = 500;
/** Characters of one entry's text handed to the model. */
const MAX_ENTRY_CHARS = 2000;

/** One notebook entry as the agent sees it (the reference's `{author, text}`). */
export interface NotebookEntry {
  author: string;
  text: string;
}

export interface NotebookClientOptions {
  /** The notebook's base URL (`https://hermes.teleport.computer`). */
  url: string;
  /** Sent as the `key` query parameter when set (entries' text comes back only with it). */
  key?: string;
  /** Per attempt, in ms. */
  timeoutMs: number;
  maxRetries: number;
  health?: HealthMonitor;
  clock?: Clock;
}

/**
 * The shared Hermes notebook (spec §5.6): `GET {url}/api/search?q=&limit=5[&key=]`, answered as
 * `{results: [...]}` or a bare list; an entry names its `author` or `pseudonym` and carries its
 * text as `content` or `entry`. Over core's HTTP client: a deadline per attempt, retries of the
 * (idempotent) GET, the key masked in every error.
 */
export class NotebookClient {
  private readonly http: HttpClient;
  private readonly key: string;

  constructor(options: NotebookClientOptions) {
    this.key = options.key ?? '';
    this.http = createHttpClient({
      baseURL: options.url,
      name: 'Hermes notebook',
      timeoutMs: options.timeoutMs,
      retry: { maxRetries: options.maxRetries },
      ...(this.key ? { secrets: [this.key] } : {}),
      ...(options.health ? { health: options.health } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  get url(): string {
    return this.http.baseURL;
  }

  /** The entries matching `query`, at most `limit`; [] for a blank query (nothing is sent). */
  async search(query: string, signal?: AbortSignal, limit = NOTEBOOK_SEARCH_LIMIT): Promise<NotebookEntry[]> {
    const q = query.replace(/\s+/g, ' ').trim().slice(0, MAX_QUERY_CHARS);
    if (q === '') return [];
    const body = await this.http.get<unknown>('/api/search', {
      query: { q, limit, ...(this.key ? { key: this.key } : {}) },
      headers: { 'content-type': 'application/json' },
      ...(signal ? { signal } : {}),
    });
    return entriesOf(body).slice(0, limit);
  }
}

/** `{results: [...]}` or a bare list (the reference accepts both); anything else holds no entries. */
export function entriesOf(body: unknown): NotebookEntry[] {
  const list = Array.isArray(body)
    ? body
    : typeof body === 'object' && body !== null && Array.isArray((body as { results?: unknown }).results)
      ? (body as { results: unknown[] }).results
      : [];
  const out: NotebookEntry[] = [];
  for (const item of list) {
    if (typeof item !== 'object' || item === null) continue;
    const e = item as Record<string, unknown>;
    const author = firstString(e.author, e.pseudonym) ?? 'unknown';
    const text = (firstString(e.content, e.entry) ?? '').trim();
    out.push({
      author,
      text: text.length > MAX_ENTRY_CHARS ? `${text.slice(0, MAX_ENTRY_CHARS - 1)}…` : text,
    });
  }
  return out;
}

function firstString(...values: unknown[]): string | undefined {
  for (const v of values) if (typeof v === 'string' && v.trim() !== '') return v.trim();
  return undefined;
}
