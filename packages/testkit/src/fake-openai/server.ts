import { startFakeServer } from '../http/fake-server';
import { reply } from '../http/reply';
import type { FakeRequest, FakeResponse, RecordedRequest } from '../http/types';
import { encodeEmbeddingBase64, hashEmbedding } from './embedding';
import type {
  ChatResponder,
  FakeChatReply,
  FakeChatRequest,
  FakeOpenAI,
  FakeOpenAIOptions,
  FakeToolCall,
} from './types';

interface NormalisedReply {
  content: string | null;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finishReason: string;
  model: string | undefined;
  usage: { promptTokens: number; completionTokens: number } | undefined;
  chunkSize: number;
  status: number | undefined;
  error: string | undefined;
}

/**
 * Start a scripted OpenAI-compatible server on 127.0.0.1 (ephemeral port), built on the
 * testkit's fake-server base (`@hermes-memory/testkit/http`):
 *
 * - `POST /v1/chat/completions`: answers from the script (JSON, or SSE when `stream: true`),
 *   tool calls in both modes;
 * - `POST /v1/embeddings`: deterministic hashed vectors (or your embedder), float or base64;
 * - `GET /v1/models`: the configured model list.
 *
 * Every request is recorded (keys redacted); faults (status codes with Retry-After, hangs,
 * resets, malformed and truncated bodies, delays) can be queued for the next requests.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: Array<FakeChatReply | ChatResponder> = [];
  let fallback: ChatResponder | null = options.fallback ?? null;
  if (typeof options.script === 'function') fallback = options.script;
  else if (options.script) queue.push(...options.script);
  const defaultModel = options.model ?? 'fake-chat';
  const models = options.models ?? ['fake-chat', 'fake-embedding'];
  let completionCounter = 0;

  const server = await startFakeServer({
    name: 'fake OpenAI server',
    ...(options.apiKey !== undefined ? { auth: { type: 'bearer' as const, token: options.apiKey } } : {}),
    errorBody: (status, message) =>
      status === 401
        ? errorBody('Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key')
        : errorBody(message, faultType(status)),
  });

  const nextReply = async (request: FakeChatRequest, recorded: RecordedRequest): Promise<FakeChatReply> => {
    const entry = queue.shift();
    if (entry !== undefined) return typeof entry === 'function' ? await entry(request, recorded) : entry;
    if (fallback) return await fallback(request, recorded);
    return {
      status: 500,
      error: `fake OpenAI server: the chat script is exhausted (request #${server.requests.length} to ${recorded.path}); script more replies or set a fallback`,
    };
  };

  const modelInfo = (id: string) => ({
    id,
    object: 'model',
    created: 1_700_000_000,
    owned_by: 'hermes-memory-testkit',
  });
  server.route('GET', '/v1/models', () => reply.json({ object: 'list', data: models.map(modelInfo) }));
  server.route('GET', '/v1/models/:id', (req) =>
    models.includes(req.params.id!)
      ? reply.json(modelInfo(req.params.id!))
      : reply.json(
          errorBody(
            `The model '${req.params.id}' does not exist`,
            'invalid_request_error',
            'model_not_found',
          ),
          404,
        ),
  );
  server.route('POST', '/v1/embeddings', (req) => handleEmbeddings(req));
  server.route('POST', '/v1/chat/completions', (req) => handleChat(req));

  async function handleEmbeddings(req: FakeRequest): Promise<FakeResponse> {
    const body = req.body;
    if (!isRecord(body))
      return reply.json(errorBody('Request body must be a JSON object.', 'invalid_request_error'), 400);
    const input = body.input;
    const texts =
      typeof input === 'string'
        ? [input]
        : Array.isArray(input) && input.every((x) => typeof x === 'string')
          ? (input as string[])
          : null;
    if (!texts || texts.length === 0) {
      return reply.json(
        errorBody("'input' must be a non-empty string or array of strings.", 'invalid_request_error'),
        400,
      );
    }
    const model = typeof body.model === 'string' ? body.model : 'fake-embedding';
    const dimensions = typeof body.dimensions === 'number' ? body.dimensions : (options.dimensions ?? 64);
    const vectors = options.embedder
      ? await options.embedder(texts, model)
      : texts.map((text) => hashEmbedding(text, dimensions));
    const base64 = body.encoding_format === 'base64';
    const tokens = texts.reduce((sum, t) => sum + estimateTokens(t), 0);
    return reply.json({
      object: 'list',
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? encodeEmbeddingBase64(vector) : vector,
      })),
      model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  async function handleChat(req: FakeRequest): Promise<FakeResponse> {
    const body = req.body;
    if (!isRecord(body) || !Array.isArray(body.messages)) {
      return reply.json(
        errorBody("'messages' is required and must be an array.", 'invalid_request_error'),
        400,
      );
    }
    const request = body as FakeChatRequest;
    const scripted = normaliseReply(await nextReply(request, req.recorded));
    if (scripted.status !== undefined && scripted.status >= 400) {
      return reply.json(
        errorBody(scripted.error ?? `Scripted error ${scripted.status}`, faultType(scripted.status)),
        scripted.status,
      );
    }
    completionCounter += 1;
    const id = `chatcmpl-fake-${completionCounter}`;
    const model = scripted.model ?? (typeof request.model === 'string' ? request.model : defaultModel);
    const promptTokens = scripted.usage?.promptTokens ?? estimateTokens(JSON.stringify(request.messages));
    const completionTokens =
      scripted.usage?.completionTokens ??
      estimateTokens((scripted.content ?? '') + scripted.toolCalls.map((c) => c.arguments).join(''));
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = scripted.toolCalls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.arguments },
    }));

    if (request.stream !== true) {
      return reply.json({
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: scripted.content,
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: scripted.finishReason,
            logprobs: null,
          },
        ],
        usage,
      });
    }

    const events: Array<{ data: unknown }> = [];
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      events.push({ data: { id, object: 'chat.completion.chunk', created, model, choices, ...extra } });
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    const content = scripted.content ?? '';
    for (let i = 0; i < content.length; i += scripted.chunkSize) {
      chunk([
        { index: 0, delta: { content: content.slice(i, i + scripted.chunkSize) }, finish_reason: null },
      ]);
    }
    toolCalls.forEach((call, index) => {
      chunk([
        {
          index: 0,
          delta: {
            tool_calls: [
              { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
            ],
          },
          finish_reason: null,
        },
      ]);
      const args = call.function.arguments;
      for (let i = 0; i < args.length; i += scripted.chunkSize) {
        chunk([
          {
            index: 0,
            delta: {
              tool_calls: [{ index, function: { arguments: args.slice(i, i + scripted.chunkSize) } }],
            },
            finish_reason: null,
          },
        ]);
      }
    });
    chunk([{ index: 0, delta: {}, finish_reason: scripted.finishReason }]);
    if (request.stream_options?.include_usage) chunk([], { usage });
    return reply.sse(events, { done: '[DONE]' });
  }

  const fake: FakeOpenAI = {
    url: `${server.url}/v1`,
    port: server.port,
    requests: server.requests,
    requestsTo: (suffix) => server.requests.filter((r) => r.path.endsWith(suffix)),
    script(...replies) {
      queue.push(...replies);
      return fake;
    },
    respondWith(responder) {
      fallback = responder;
      return fake;
    },
    get pendingReplies() {
      return queue.length;
    },
    fail(fault) {
      server.fail(fault);
      return fake;
    },
    get pendingFaults() {
      return server.pendingFaults;
    },
    reset() {
      queue.length = 0;
      server.reset();
    },
    close: () => server.close(),
  };
  return fake;
}

function normaliseReply(scripted: FakeChatReply): NormalisedReply {
  const spec = typeof scripted === 'string' ? { content: scripted } : scripted;
  const toolCalls = (spec.toolCalls ?? []).map((call: FakeToolCall, index: number) => ({
    id: call.id ?? `call_fake_${index + 1}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }));
  const content =
    spec.json !== undefined
      ? JSON.stringify(spec.json)
      : (spec.content ?? (toolCalls.length > 0 ? null : ''));
  return {
    content,
    toolCalls,
    finishReason: spec.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    model: spec.model,
    usage: spec.usage,
    chunkSize: Math.max(1, Math.floor(spec.chunkSize ?? 8)),
    status: spec.status,
    error: spec.error,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function faultType(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function errorBody(message: string, type: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}
