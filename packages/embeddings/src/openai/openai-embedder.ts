import {
  APICallError,
  type Clock,
  type Embedder,
  HttpClient,
  createScrubber,
  safeUrl,
  type Logger,
  SettingsError,
  silentLogger,
} from '@hermes-memory/core';
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
  /** Default: the global fetch, looked up per call. */
  fetch?: typeof globalThis.fetch;
  logger?: Logger;
  /** Time for backoff and timeouts (tests inject a `ManualClock`). */
  clock?: Clock;
}

interface EmbeddingsResponse {
  data?: unknown;
}

/**
 * Embeddings from any OpenAI-compatible `POST /v1/embeddings` endpoint (OpenAI, Azure-style
 * gateways, vLLM, Ollama, LM Studio, llama.cpp server, TEI…). Batches; transport, timeouts and
 * retries (exponential backoff with jitter, Retry-After) are core's `HttpClient`; vectors are
 * L2-normalised on arrival.
 * Blank texts are never sent (endpoints reject empty input): they embed to the zero vector.
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  /** The base URL as it may be shown (no user-info, secret query values masked). */
  readonly baseURL: string;
  private readonly url: string;
  private readonly scrub: (text: string) => string;
  private dims: number;
  private readonly sendDimensions: boolean;
  private readonly apiKey: string | undefined;
  private readonly batchSize: number;
  private readonly concurrency: number;
  private readonly http: HttpClient;
  private readonly logger: Logger;

  constructor(options: OpenAIEmbedderOptions = {}) {
    const env = options.env ?? process.env;
    this.model = options.model ?? 'text-embedding-3-small';
    const base = options.baseURL ?? env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1';
    try {
      new URL(base);
    } catch (cause) {
      // The message never quotes the URL: a malformed one may still hold a password.
      throw new SettingsError('baseURL', 'OpenAIEmbedder baseURL is not a valid URL.', { cause });
    }
    this.apiKey = options.apiKey ?? (env['OPENAI_API_KEY'] || undefined);
    this.scrub = createScrubber([this.apiKey, ...Object.values(options.headers ?? {})]);
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
    const maxRetries = nonNegativeInt(options.maxRetries ?? 3, 'maxRetries');
    const timeoutMs = positiveInt(options.timeoutMs ?? 30_000, 'timeoutMs');
    const baseDelayMs = nonNegativeInt(options.retryBaseDelayMs ?? 500, 'retryBaseDelayMs');
    const maxDelayMs = nonNegativeInt(options.maxRetryDelayMs ?? 20_000, 'maxRetryDelayMs');
    this.logger = options.logger ?? silentLogger;
    this.http = new HttpClient({
      baseURL: base,
      name: 'Embeddings',
      ...(this.apiKey ? { auth: { type: 'bearer', token: this.apiKey } as const } : {}),
      headers: { ...(options.headers ?? {}) },
      secrets: Object.values(options.headers ?? {}),
      timeoutMs,
      retry: {
        maxRetries,
        baseDelayMs,
        maxDelayMs,
        maxRetryAfterMs: maxDelayMs,
        onRetry: ({ attempt, delayMs, error }) =>
          this.logger.warn('embeddings request failed; retrying', {
            url: this.url,
            status: APICallError.isInstance(error) ? error.statusCode : undefined,
            attempt: attempt + 1,
            delayMs: Math.round(delayMs),
          }),
      },
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
    // Shown in errors and logs: no user-info, secret query values masked.
    this.baseURL = safeUrl(new URL(this.http.baseURL));
    this.url = `${this.baseURL}/embeddings`;
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
    const body: Record<string, unknown> = { model: this.model, input, encoding_format: 'float' };
    if (this.sendDimensions) body['dimensions'] = this.dims;
    // Embedding a text twice is harmless: the request is idempotent and retried as such.
    const response = await this.http.request('POST', '/embeddings', {
      body,
      idempotent: true,
      responseType: 'text',
      ...(signal ? { signal } : {}),
    });
    return this.parse(response.data as string, input.length, this.url);
  }

  /** Removes the API key and anything secret-looking from text echoed into errors (some servers quote it back). */
  private redact(text: string): string {
    return this.scrub(text);
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
