import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage, ChatRequest, LlmClient, ToolSchema } from '@hermes-memory/core';

/** Largest request body the bridge reads (mem0's extraction prompts are a few KB). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

/**
 * The agent's `LlmClient` as an OpenAI-compatible `POST /v1/chat/completions` on 127.0.0.1, for
 * `mem0ai/oss`, whose LLMs only take a URL. It listens on a random loopback port and accepts only
 * requests carrying its random per-start key, so no other local process can spend the agent's LLM.
 */
export class LlmBridge {
  private constructor(
    private readonly server: http.Server,
    /** `http://127.0.0.1:<port>/v1`. */
    readonly baseURL: string,
    /** The bearer key mem0's OpenAI client sends. */
    readonly apiKey: string,
  ) {}

  static async start(llm: LlmClient, timeoutMs: number): Promise<LlmBridge> {
    const apiKey = randomBytes(24).toString('hex');
    const server = http.createServer((req, res) => {
      void answer(llm, apiKey, timeoutMs, req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    server.unref();
    const { port } = server.address() as AddressInfo;
    return new LlmBridge(server, `http://127.0.0.1:${port}/v1`, apiKey);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function answer(
  llm: LlmClient,
  apiKey: string,
  timeoutMs: number,
  req: http.IncomingMessage,
  res: http.ServerResponse,
): Promise<void> {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (status: number, message: string) =>
    send(status, { error: { message, type: 'hermes_bridge' } });
  if (req.headers.authorization !== `Bearer ${apiKey}`) return fail(401, 'Invalid API key.');
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) return fail(404, 'Not found.');
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(await readBody(req)) as Record<string, unknown>;
  } catch (error) {
    return fail(400, error instanceof Error ? error.message : 'Invalid JSON body.');
  }
  try {
    const reply = await llm.chat(toChatRequest(body, timeoutMs));
    send(200, {
      id: `chatcmpl-hermes-${randomBytes(6).toString('hex')}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: reply.model || llm.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.content,
            ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
          },
          finish_reason: reply.finishReason ?? 'stop',
        },
      ],
      usage: {
        prompt_tokens: reply.usage?.promptTokens ?? 0,
        completion_tokens: reply.usage?.completionTokens ?? 0,
        total_tokens: (reply.usage?.promptTokens ?? 0) + (reply.usage?.completionTokens ?? 0),
      },
    });
  } catch (error) {
    // The model's own failure, without anything from the request that could hold a secret.
    fail(502, `The agent's LLM failed: ${error instanceof Error ? error.name : 'error'}`);
  }
}

function toChatRequest(body: Record<string, unknown>, timeoutMs: number): ChatRequest {
  if (!Array.isArray(body.messages)) throw new Error('messages must be a list');
  const messages = body.messages.map((m) => {
    const { role, content } = (m ?? {}) as { role?: unknown; content?: unknown };
    const r = role === 'system' || role === 'assistant' || role === 'tool' ? role : 'user';
    return { role: r, content: typeof content === 'string' ? content : JSON.stringify(content ?? '') };
  }) as ChatMessage[];
  const format = body.response_format as { type?: unknown } | undefined;
  const tools = Array.isArray(body.tools)
    ? body.tools
        .map((t) => (t as { function?: ToolSchema }).function)
        .filter((f): f is ToolSchema => typeof f?.name === 'string')
    : [];
  return {
    messages,
    timeoutMs,
    ...(format?.type === 'json_object' ? { json: true } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.max_tokens === 'number' ? { maxTokens: body.max_tokens } : {}),
    ...(tools.length > 0 ? { tools } : {}),
  };
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('Request body too large.'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
