import { APICallError, InvalidArgumentError, MemoryError, SettingsError } from '../errors/memory-error';
import { HttpClient } from '../http/http-client';
import { redactSecrets } from '../logging/redact';
import type { Clock } from '../resilience/clock';
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
  /** Base of the exponential backoff (doubles per retry, jitter, capped at 8 s). Default 500 ms. */
  retryBaseDelayMs?: number;
  /** Extra request headers (never logged). */
  headers?: Record<string, string>;
  /** Default: the global fetch, looked up per call. */
  fetch?: typeof globalThis.fetch;
  /** Time for backoff and timeouts (tests inject a `ManualClock`). */
  clock?: Clock;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The real `LlmClient`: POST `{baseURL}/chat/completions` in the OpenAI wire format. Works with
 * OpenAI, OpenRouter, vLLM, llama.cpp, Ollama's /v1 and any compatible server. Transport,
 * timeouts and retries are core's `HttpClient` (a completion is safe to repeat).
 */
export class OpenAICompatibleLlmClient implements LlmClient {
  readonly model: string;
  private readonly http: HttpClient;
  private readonly timeoutMs: number;

  constructor(options: OpenAICompatibleLlmClientOptions) {
    if (!options.baseURL) throw new SettingsError('baseURL', 'OpenAICompatibleLlmClient needs a baseURL.');
    if (!options.model) throw new SettingsError('model', 'OpenAICompatibleLlmClient needs a model.');
    this.model = options.model;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    const apiKey = options.apiKey || undefined;
    this.http = new HttpClient({
      baseURL: options.baseURL,
      name: 'Chat completion',
      ...(apiKey ? { auth: { type: 'bearer', token: apiKey } as const } : {}),
      headers: { ...(options.headers ?? {}) },
      secrets: Object.values(options.headers ?? {}),
      timeoutMs: this.timeoutMs,
      retry: {
        maxRetries: Math.max(0, Math.trunc(options.maxRetries ?? 2)),
        baseDelayMs: options.retryBaseDelayMs ?? 500,
        maxDelayMs: 8000,
      },
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    });
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const body = this.buildBody(request);
    const response = await this.http.post('/chat/completions', body, {
      idempotent: true,
      timeoutMs: request.timeoutMs ?? this.timeoutMs,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    return parseChatResponse(response, this.model, `${this.http.baseURL}/chat/completions`);
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
