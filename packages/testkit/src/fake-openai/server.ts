import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeEmbeddingBase64, hashEmbedding } from './embedding';
import type {
  ChatResponder,
  FakeChatReply,
  FakeChatRequest,
  FakeOpenAI,
  FakeOpenAIOptions,
  FakeToolCall,
  FaultSpec,
  RecordedRequest,
} from './types';

/** Largest request body the fake accepts (the real API's limit is in the same range). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

type Fault = FaultSpec & { remaining: number };

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
 * Start a scripted OpenAI-compatible server on 127.0.0.1 (ephemeral port).
 *
 * - `POST /v1/chat/completions`: answers from the script (JSON, or SSE when `stream: true`),
 *   tool calls in both modes;
 * - `POST /v1/embeddings`: deterministic hashed vectors (or your embedder), float or base64;
 * - `GET /v1/models`: the configured model list.
 *
 * Every request is recorded; faults (status codes with Retry-After, hangs, resets, malformed
 * bodies) can be queued for the next requests.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const queue: Array<FakeChatReply | ChatResponder> = [];
  let fallback: ChatResponder | null = options.fallback ?? null;
  if (typeof options.script === 'function') fallback = options.script;
  else if (options.script) queue.push(...options.script);
  const faults: Fault[] = [];
  const defaultModel = options.model ?? 'fake-chat';
  const models = options.models ?? ['fake-chat', 'fake-embedding'];
  let completionCounter = 0;

  const takeFault = (path: string): Fault | undefined => {
    const index = faults.findIndex((f) => f.path === undefined || path.endsWith(f.path));
    if (index < 0) return undefined;
    const fault = faults[index]!;
    fault.remaining -= 1;
    if (fault.remaining <= 0) faults.splice(index, 1);
    return fault;
  };

  const nextReply = async (request: FakeChatRequest, recorded: RecordedRequest): Promise<FakeChatReply> => {
    const entry = queue.shift();
    if (entry !== undefined) return typeof entry === 'function' ? await entry(request, recorded) : entry;
    if (fallback) return await fallback(request, recorded);
    return {
      status: 500,
      error: `fake OpenAI server: the chat script is exhausted (request #${requests.length} to ${recorded.path}); script more replies or set a fallback`,
    };
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        sendError(res, 413, 'Request body too large.', 'invalid_request_error');
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: (req.url ?? '/').split('?')[0] ?? '/',
        headers: req.headers,
        body: parseBody(rawBody),
        rawBody,
      };
      requests.push(recorded);
      handle(req, res, recorded).catch((error: unknown) => {
        if (!res.headersSent)
          sendError(res, 500, `fake OpenAI server error: ${(error as Error).message}`, 'server_error');
        else res.destroy();
      });
    });
  });

  const hanging = new Set<http.ServerResponse>();

  async function handle(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    recorded: RecordedRequest,
  ): Promise<void> {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      recorded.status = status;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      recorded.status = 401;
      sendError(res, 401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
      return;
    }

    const fault = takeFault(recorded.path);
    if (fault) {
      recorded.fault = fault.type;
      switch (fault.type) {
        case 'status': {
          recorded.status = fault.status;
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (fault.retryAfter !== undefined) headers['retry-after'] = String(fault.retryAfter);
          res.writeHead(fault.status, headers);
          res.end(
            fault.body ??
              JSON.stringify(errorBody(`Injected fault: HTTP ${fault.status}`, faultType(fault.status))),
          );
          return;
        }
        case 'timeout':
          // Hold the response open; the client's abort (or close()) ends it.
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        case 'reset':
          req.socket.destroy();
          return;
        case 'malformed': {
          recorded.status = 200;
          const streaming = isRecord(recorded.body) && recorded.body.stream === true;
          if (streaming) {
            res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
            res.end('data: {"id":"chatcmpl-broken","choices":[{"delta":{"content":"trun\n\ndata: [DONE]\n\n');
          } else {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"id":"broken","object":"chat.completion","choices":[{"message":');
          }
          return;
        }
      }
    }

    const route = `${recorded.method} ${recorded.path.replace(/\/+$/, '')}`;
    if (route === 'GET /v1/models') {
      reply(200, {
        object: 'list',
        data: models.map((id) => ({
          id,
          object: 'model',
          created: 1_700_000_000,
          owned_by: 'hermes-memory-testkit',
        })),
      });
      return;
    }
    if (recorded.method === 'GET' && recorded.path.startsWith('/v1/models/')) {
      const id = decodeURIComponent(recorded.path.slice('/v1/models/'.length));
      if (models.includes(id))
        reply(200, { id, object: 'model', created: 1_700_000_000, owned_by: 'hermes-memory-testkit' });
      else
        reply(404, errorBody(`The model '${id}' does not exist`, 'invalid_request_error', 'model_not_found'));
      return;
    }
    if (route === 'POST /v1/embeddings') {
      await handleEmbeddings(recorded, reply);
      return;
    }
    if (route === 'POST /v1/chat/completions') {
      await handleChat(recorded, res, reply);
      return;
    }
    reply(404, errorBody(`Unknown route: ${recorded.method} ${recorded.path}`, 'invalid_request_error'));
  }

  async function handleEmbeddings(
    recorded: RecordedRequest,
    reply: (status: number, body: unknown) => void,
  ): Promise<void> {
    const body = recorded.body;
    if (!isRecord(body))
      return reply(400, errorBody('Request body must be a JSON object.', 'invalid_request_error'));
    const input = body.input;
    const texts =
      typeof input === 'string'
        ? [input]
        : Array.isArray(input) && input.every((x) => typeof x === 'string')
          ? (input as string[])
          : null;
    if (!texts || texts.length === 0) {
      return reply(
        400,
        errorBody("'input' must be a non-empty string or array of strings.", 'invalid_request_error'),
      );
    }
    const model = typeof body.model === 'string' ? body.model : 'fake-embedding';
    const dimensions = typeof body.dimensions === 'number' ? body.dimensions : (options.dimensions ?? 64);
    const vectors = options.embedder
      ? await options.embedder(texts, model)
      : texts.map((text) => hashEmbedding(text, dimensions));
    const base64 = body.encoding_format === 'base64';
    const tokens = texts.reduce((sum, t) => sum + estimateTokens(t), 0);
    reply(200, {
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

  async function handleChat(
    recorded: RecordedRequest,
    res: http.ServerResponse,
    reply: (status: number, body: unknown) => void,
  ): Promise<void> {
    const body = recorded.body;
    if (!isRecord(body) || !Array.isArray(body.messages)) {
      return reply(400, errorBody("'messages' is required and must be an array.", 'invalid_request_error'));
    }
    const request = body as FakeChatRequest;
    const scripted = normaliseReply(await nextReply(request, recorded));
    if (scripted.status !== undefined && scripted.status >= 400) {
      return reply(
        scripted.status,
        errorBody(scripted.error ?? `Scripted error ${scripted.status}`, faultType(scripted.status)),
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
      return reply(200, {
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

    recorded.status = 200;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const send = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`,
      );
    send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    const content = scripted.content ?? '';
    for (let i = 0; i < content.length; i += scripted.chunkSize) {
      send([{ index: 0, delta: { content: content.slice(i, i + scripted.chunkSize) }, finish_reason: null }]);
    }
    toolCalls.forEach((call, index) => {
      send([
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
        send([
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
    send([{ index: 0, delta: {}, finish_reason: scripted.finishReason }]);
    if (request.stream_options?.include_usage) send([], { usage });
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | null = null;

  const fake: FakeOpenAI = {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    requestsTo: (suffix) => requests.filter((r) => r.path.endsWith(suffix)),
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
      const spec: FaultSpec = typeof fault === 'number' ? { type: 'status', status: fault } : fault;
      const count = spec.count ?? 1;
      if (!Number.isInteger(count) || count < 1)
        throw new RangeError('fault count must be a positive integer');
      faults.push({ ...spec, remaining: count });
      return fake;
    },
    get pendingFaults() {
      return faults.reduce((sum, f) => sum + f.remaining, 0);
    },
    reset() {
      queue.length = 0;
      faults.length = 0;
      requests.length = 0;
    },
    close() {
      if (!closed) {
        closed = new Promise<void>((resolve) => {
          for (const res of hanging) res.destroy();
          hanging.clear();
          server.close(() => resolve());
          server.closeAllConnections();
        });
      }
      return closed;
    },
  };
  return fake;
}

function normaliseReply(reply: FakeChatReply): NormalisedReply {
  const spec = typeof reply === 'string' ? { content: reply } : reply;
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

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
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

function sendError(
  res: http.ServerResponse,
  status: number,
  message: string,
  type: string,
  code: string | null = null,
): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(errorBody(message, type, code)));
}
