import { APICallError, InvalidArgumentError, MemoryError, SettingsError } from '../errors/memory-error';
import { redactSecrets } from '../logging/redact';
import type { ChatMessage, ChatRequest, ChatResponse, ChatToolCall, LlmClient } from './types';

export interface OpenAICompatibleLlmClientOptions {
  /** e.g. "https://api.openai.com/v1" or a local server's "/v1" root. */
  baseURL: string;
  apiKey?: string;
  model: string;
  /** Per attempt. Default 60 000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt for 408/409/429/5xx and network errors. Default 2. */
  maxRetries?: number;
  /** Base of the exponential backoff (doubles per retry, ±50 % jitter, capped at 8 s). Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Extra request headers (never logged). */
  headers?: Record<string, string>;
  fetch?: typeof globalThis.fetch;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The real `LlmClient`: POST `{baseURL}/chat/completions` in the OpenAI wire format. Works with
 * OpenAI, OpenRouter, vLLM, llama.cpp, Ollama's /v1 and any compatible server.
 */
export class OpenAICompatibleLlmClient implements LlmClient {
  readonly model: string;
  private readonly url: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseDelayMs: number;
  private readonly headers: Record<string, string>;
  private readonly fetchImpl: typeof globalThis.fetch;

  constructor(options: OpenAICompatibleLlmClientOptions) {
    if (!options.baseURL) throw new SettingsError('baseURL', 'OpenAICompatibleLlmClient needs a baseURL.');
    if (!options.model) throw new SettingsError('model', 'OpenAICompatibleLlmClient needs a model.');
    this.url = `${options.baseURL.replace(/\/+$/, '')}/chat/completions`;
    this.model = options.model;
    this.apiKey = options.apiKey || undefined;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetries = Math.max(0, Math.trunc(options.maxRetries ?? 2));
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 500;
    this.headers = { ...(options.headers ?? {}) };
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const body = JSON.stringify(this.buildBody(request));
    let attempt = 0;
    while (true) {
      try {
        return await this.attempt(body, request);
      } catch (error) {
        const retryable = APICallError.isInstance(error) && error.isRetryable && !request.signal?.aborted;
        if (!retryable || attempt >= this.maxRetries) throw error;
        await sleep(this.backoff(attempt, error), request.signal);
        attempt++;
      }
    }
  }

  private buildBody(request: ChatRequest): Record<string, unknown> {
    if (!Array.isArray(request.messages) || request.messages.length === 0) {
      throw new InvalidArgumentError('messages', 'chat() needs at least one message.');
    }
    const body: Record<string, unknown> = { model: request.model ?? this.model, messages: request.messages };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    if (request.json) body.response_format = { type: 'json_object' };
    if (request.tools && request.tools.length > 0) {
      body.tools = request.tools.map((t) => ({ type: 'function', function: t }));
      const choice = request.toolChoice;
      if (choice !== undefined) {
        body.tool_choice =
          typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
      }
    }
    return body;
  }

  private backoff(attempt: number, error: APICallError): number {
    const retryAfter = Number(/retry-after=(\d+(?:\.\d+)?)/.exec(error.message)?.[1]);
    if (Number.isFinite(retryAfter) && retryAfter > 0) return Math.min(retryAfter * 1000, 30_000);
    const base = Math.min(this.retryBaseDelayMs * 2 ** attempt, 8000);
    return base / 2 + Math.random() * base;
  }

  private async attempt(body: string, request: ChatRequest): Promise<ChatResponse> {
    const timeoutMs = request.timeoutMs ?? this.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...this.headers,
    };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, { method: 'POST', headers, body, signal });
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason ?? error;
      const timedOut = timeout.aborted;
      throw new APICallError({
        message: timedOut
          ? `Chat completion request to ${this.url} timed out after ${timeoutMs} ms`
          : `Chat completion request to ${this.url} failed: ${this.clean(describe(error))}`,
        url: this.url,
        isRetryable: true,
        cause: error,
      });
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      const retryAfter = response.headers.get('retry-after');
      const detail = this.clean(errorDetail(text));
      throw new APICallError({
        message:
          `Chat completion failed with HTTP ${response.status}${detail ? `: ${detail}` : ''}` +
          (retryAfter && /^\d+(\.\d+)?$/.test(retryAfter) ? ` (retry-after=${retryAfter})` : ''),
        url: this.url,
        statusCode: response.status,
        responseBody: this.clean(text.slice(0, 2000)),
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new APICallError({
        message: `Chat completion response from ${this.url} is not JSON`,
        url: this.url,
        statusCode: response.status,
        isRetryable: true,
        responseBody: this.clean(text.slice(0, 2000)),
        cause: error,
      });
    }
    return parseChatResponse(json, this.model, this.url);
  }

  /** Make sure neither our key nor anything secret-looking ends up in an error message. */
  private clean(text: string): string {
    let out = text;
    if (this.apiKey) out = out.split(this.apiKey).join('[redacted]');
    return redactSecrets(out);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

function errorDetail(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) {
      const err = parsed.error;
      if (isRecord(err) && typeof err.message === 'string') return err.message;
      if (typeof err === 'string') return err;
      if (typeof parsed.message === 'string') return parsed.message;
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.slice(0, 300).trim();
}

/** Turn an OpenAI chat completion body into a `ChatResponse`. */
export function parseChatResponse(json: unknown, fallbackModel: string, url = ''): ChatResponse {
  const choice = isRecord(json) && Array.isArray(json.choices) ? json.choices[0] : undefined;
  if (!isRecord(json) || !isRecord(choice) || !isRecord(choice.message)) {
    throw new APICallError({
      message: 'Chat completion response has no choices[0].message',
      url,
      isRetryable: false,
    });
  }
  const message = choice.message;
  const content = typeof message.content === 'string' ? message.content : '';
  const toolCalls: ChatToolCall[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const [i, call] of message.tool_calls.entries()) {
      if (!isRecord(call) || !isRecord(call.function) || typeof call.function.name !== 'string') continue;
      const args = call.function.arguments;
      toolCalls.push({
        id: typeof call.id === 'string' ? call.id : `call_${i}`,
        type: 'function',
        function: {
          name: call.function.name,
          arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
        },
      });
    }
  }
  const usage = isRecord(json.usage) ? json.usage : undefined;
  const response: ChatResponse = {
    content,
    toolCalls,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    model: typeof json.model === 'string' ? json.model : fallbackModel,
  };
  if (usage) {
    response.usage = {
      promptTokens: typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : 0,
      completionTokens: typeof usage.completion_tokens === 'number' ? usage.completion_tokens : 0,
    };
  }
  return response;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A client from OPENAI_API_KEY / OPENAI_BASE_URL (default https://api.openai.com/v1) /
 * OPENAI_MODEL (default gpt-4o-mini); undefined when there is no key.
 */
export function createLlmClientFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  overrides: Partial<OpenAICompatibleLlmClientOptions> = {},
): OpenAICompatibleLlmClient | undefined {
  const apiKey = env.OPENAI_API_KEY?.trim();
  if (!apiKey) return undefined;
  return new OpenAICompatibleLlmClient({
    baseURL: env.OPENAI_BASE_URL?.trim() || 'https://api.openai.com/v1',
    model: env.OPENAI_MODEL?.trim() || 'gpt-4o-mini',
    apiKey,
    ...overrides,
  });
}

/** Parse a model's JSON answer: tolerates code fences and prose around a single JSON value. */
export function parseJsonAnswer<T = unknown>(text: string): T {
  const trimmed = text.trim();
  const candidates: string[] = [trimmed];
  const fence = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(trimmed);
  if (fence?.[1]) candidates.push(fence[1].trim());
  const firstBrace = trimmed.search(/[[{]/);
  if (firstBrace >= 0) {
    const open = trimmed[firstBrace]!;
    const last = trimmed.lastIndexOf(open === '{' ? '}' : ']');
    if (last > firstBrace) candidates.push(trimmed.slice(firstBrace, last + 1));
  }
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate) as T;
    } catch {
      // try the next reading
    }
  }
  throw new MemoryError(`Model answer is not valid JSON: ${redactSecrets(trimmed.slice(0, 200))}`);
}

/** Ask for a JSON object answer and parse it robustly. */
export async function chatJson<T = unknown>(
  client: LlmClient,
  request: Omit<ChatRequest, 'json'> & { messages: ChatMessage[] },
): Promise<T> {
  const response = await client.chat({ ...request, json: true });
  return parseJsonAnswer<T>(response.content);
}
