import { APICallError, type Embedder, type Logger, SettingsError, silentLogger } from '@hermes-memory/core';
import { assertTexts, isBlank, l2NormalizeInPlace, throwIfAborted } from '../vector';

export interface OpenAIEmbedderOptions {
  /** Model name sent to the endpoint. Default `text-embedding-3-small`. */
  model?: string;
  /** Base URL up to and including `/v1`. Default env `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseURL?: string;
  /** Bearer key. Default env `OPENAI_API_KEY`; none is sent when neither is set (local servers). */
  apiKey?: string;
  /**
   * Output size. When given it is validated against every response and, if `sendDimensions`, sent
   * as the `dimensions` request field. When omitted it is learned from the first response.
   */
  dimensions?: number;
  /** Send `dimensions` in the request (OpenAI text-embedding-3 shortening). Default true when `dimensions` is set. */
  sendDimensions?: boolean;
  /** Texts per request. Default 128. */
  batchSize?: number;
  /** Requests in flight at once. Default 2. */
  concurrency?: number;
  /** Retries after the first attempt on 408/409/429/5xx/network errors/timeouts. Default 3. */
  maxRetries?: number;
  /** Per-request timeout. Default 30 000 ms. */
  timeoutMs?: number;
  /** First backoff delay; doubles per retry with jitter, capped at `maxRetryDelayMs`. Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Upper bound of one backoff (also caps `Retry-After`). Default 20 000 ms. */
  maxRetryDelayMs?: number;
  /** Extra request headers (e.g. `OpenAI-Organization`, or `api-key` for Azure-style gateways). */
  headers?: Record<string, string>;
  /** Embedder id. Default `openai:<model>` plus `:d<dimensions>` when sent. */
  id?: string;
  /** Environment to read defaults from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  fetch?: typeof globalThis.fetch;
  logger?: Logger;
}

interface EmbeddingsResponse {
  data?: unknown;
}

/**
 * Embeddings from any OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, Azure-style
 * gateways, vLLM, Ollama, LM Studio, llama.cpp server, TEI…). Batches, retries with exponential
 * backoff on retryable failures, a timeout per request, and vectors L2-normalised on arrival.
 * Blank texts are never sent (endpoints reject empty input): they embed to the zero vector.
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly baseURL: string;
  private dims: number;
  private readonly sendDimensions: boolean;
  private readonly apiKey: string | undefined;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly retryBaseDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly headers: Record<string, string>;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly logger: Logger;

  constructor(options: OpenAIEmbedderOptions = {}) {
    const env = options.env ?? process.env;
    this.model = options.model ?? 'text-embedding-3-small';
    const base = options.baseURL ?? env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1';
    try {
      new URL(base);
    } catch (cause) {
      throw new SettingsError('baseURL', `OpenAIEmbedder baseURL is not a valid URL: ${base}`, { cause });
    }
    this.baseURL = base.replace(/\/+$/, '');
    this.apiKey = options.apiKey ?? (env['OPENAI_API_KEY'] || undefined);
    if (
      options.dimensions !== undefined &&
      (!Number.isInteger(options.dimensions) || options.dimensions < 1)
    ) {
      throw new SettingsError(
        'dimensions',
        `dimensions must be a positive integer, got ${options.dimensions}`,
      );
    }
    this.dims = options.dimensions ?? 0;
    this.sendDimensions = options.dimensions !== undefined && (options.sendDimensions ?? true);
    this.batchSize = positiveInt(options.batchSize ?? 128, 'batchSize');
    this.concurrency = positiveInt(options.concurrency ?? 2, 'concurrency');
    this.maxRetries = nonNegativeInt(options.maxRetries ?? 3, 'maxRetries');
    this.timeoutMs = positiveInt(options.timeoutMs ?? 30_000, 'timeoutMs');
    this.retryBaseDelayMs = nonNegativeInt(options.retryBaseDelayMs ?? 500, 'retryBaseDelayMs');
    this.maxRetryDelayMs = nonNegativeInt(options.maxRetryDelayMs ?? 20_000, 'maxRetryDelayMs');
    this.headers = { ...(options.headers ?? {}) };
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.logger = options.logger ?? silentLogger;
    this.id = options.id ?? `openai:${this.model}${this.sendDimensions ? `:d${this.dims}` : ''}`;
  }

  /** Vector size: as configured, or learned from the first response (0 before that). */
  get dimensions(): number {
    return this.dims;
  }

  /** Learns `dimensions` with one tiny request if it is not known yet. */
  async resolveDimensions(options: { signal?: AbortSignal } = {}): Promise<number> {
    if (this.dims === 0) await this.embed(['dimension probe'], options);
    return this.dims;
  }

  async embed(texts: readonly string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    assertTexts(texts, this.id);
    throwIfAborted(options.signal);
    const out: Float32Array[] = new Array(texts.length);
    const pending: number[] = [];
    texts.forEach((t, i) => {
      if (isBlank(t)) out[i] = new Float32Array(this.dims);
      else pending.push(i);
    });
    const batches: number[][] = [];
    for (let i = 0; i < pending.length; i += this.batchSize)
      batches.push(pending.slice(i, i + this.batchSize));

    let next = 0;
    let failed = false;
    const worker = async (): Promise<void> => {
      while (!failed && next < batches.length) {
        const batch = batches[next++]!;
        const vectors = await this.request(
          batch.map((i) => texts[i]!),
          options.signal,
        ).catch((error: unknown) => {
          failed = true;
          throw error;
        });
        batch.forEach((textIndex, k) => {
          out[textIndex] = vectors[k]!;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, batches.length) }, worker));
    // Blank texts seen before the size was known get a zero vector of the learned size.
    for (let i = 0; i < out.length; i++)
      if (out[i]!.length !== this.dims) out[i] = new Float32Array(this.dims);
    return out;
  }

  private async request(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const url = `${this.baseURL}/embeddings`;
    const body: Record<string, unknown> = { model: this.model, input, encoding_format: 'float' };
    if (this.sendDimensions) body['dimensions'] = this.dims;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...this.headers };
    if (this.apiKey) headers['authorization'] = `Bearer ${this.apiKey}`;
    const payload = JSON.stringify(body);

    for (let attempt = 0; ; attempt++) {
      throwIfAborted(signal);
      let error: APICallError;
      let retryAfterMs: number | undefined;
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        const res = await this.fetchImpl(url, { method: 'POST', headers, body: payload, signal: combined });
        const text = await res.text();
        if (res.ok) return this.parse(text, input.length, url);
        retryAfterMs = parseRetryAfter(res.headers);
        const safe = this.redact(text);
        error = new APICallError({
          message: `Embeddings request failed with HTTP ${res.status}: ${errorMessage(safe)}`,
          url,
          statusCode: res.status,
          responseBody: safe.slice(0, 2000),
        });
      } catch (cause) {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : cause;
        if (APICallError.isInstance(cause)) throw cause; // a malformed 200 body: retrying will not help
        const timedOut = timeout.aborted;
        error = new APICallError({
          message: timedOut
            ? `Embeddings request timed out after ${this.timeoutMs} ms`
            : `Embeddings request failed: ${cause instanceof Error ? cause.message : String(cause)}`,
          url,
          isRetryable: true,
          cause,
        });
      }
      if (!error.isRetryable || attempt >= this.maxRetries) throw error;
      const backoff = Math.min(
        this.maxRetryDelayMs,
        retryAfterMs ?? this.retryBaseDelayMs * 2 ** attempt * (0.5 + Math.random() * 0.5),
      );
      this.logger.warn('embeddings request failed; retrying', {
        url,
        status: error.statusCode,
        attempt: attempt + 1,
        delayMs: Math.round(backoff),
      });
      await sleep(backoff, signal);
    }
  }

  /** Removes the API key from text that may be echoed into errors (some servers quote it back). */
  private redact(text: string): string {
    return this.apiKey && this.apiKey.length >= 4 ? text.split(this.apiKey).join('[redacted]') : text;
  }

  private parse(text: string, expected: number, url: string): Float32Array[] {
    const fail = (why: string): never => {
      throw new APICallError({
        message: `Malformed embeddings response: ${why}`,
        url,
        statusCode: 200,
        isRetryable: false,
        responseBody: this.redact(text).slice(0, 2000),
      });
    };
    let parsed: EmbeddingsResponse;
    try {
      parsed = JSON.parse(text) as EmbeddingsResponse;
    } catch {
      return fail('body is not JSON');
    }
    if (!parsed || !Array.isArray(parsed.data)) return fail("no 'data' array");
    if (parsed.data.length !== expected)
      return fail(`expected ${expected} embeddings, got ${parsed.data.length}`);
    const out: Float32Array[] = new Array(expected);
    parsed.data.forEach((item: unknown, position: number) => {
      const record = (item ?? {}) as { embedding?: unknown; index?: unknown };
      const index = typeof record.index === 'number' ? record.index : position;
      if (!Number.isInteger(index) || index < 0 || index >= expected || out[index])
        fail(`bad or repeated index ${index}`);
      if (!Array.isArray(record.embedding) || record.embedding.length === 0)
        fail(`item ${index} has no embedding`);
      const values = record.embedding as unknown[];
      const v = new Float32Array(values.length);
      for (let j = 0; j < values.length; j++) {
        const x = values[j];
        if (typeof x !== 'number' || !Number.isFinite(x)) fail(`item ${index} holds a non-numeric value`);
        v[j] = x as number;
      }
      out[index] = l2NormalizeInPlace(v);
    });
    const size = out[0]!.length;
    if (out.some((v) => v.length !== size)) fail('embeddings differ in length');
    if (this.dims === 0) this.dims = size;
    else if (size !== this.dims) fail(`expected ${this.dims} dimensions, got ${size}`);
    return out;
  }
}

function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (parsed.error && typeof parsed.error.message === 'string') return parsed.error.message;
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, 200) || '(empty body)';
}

function parseRetryAfter(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function positiveInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1)
    throw new SettingsError(name, `${name} must be a positive integer`);
  return value;
}

function nonNegativeInt(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 0)
    throw new SettingsError(name, `${name} must be a non-negative integer`);
  return value;
}
