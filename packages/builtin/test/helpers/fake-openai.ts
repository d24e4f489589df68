import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChatMessage, ChatRequest, ChatResponse, ChatToolCall, LlmClient } from '@hermes-memory/core';

/** One scripted reply: text and/or tool calls, or an HTTP failure. */
export type ScriptedReply =
  | { content?: string; toolCalls?: Array<{ name: string; arguments: unknown }> }
  | { status: number; body?: string }
  | { hang: true };

export interface FakeOpenAI {
  baseURL: string;
  requests: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * A tiny OpenAI-compatible chat-completions server on 127.0.0.1:0 answering from a script, in
 * order (the last reply repeats). Records every request body.
 */
export async function startFakeOpenAI(script: ScriptedReply[]): Promise<FakeOpenAI> {
  const requests: Array<Record<string, unknown>> = [];
  let turn = 0;
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const parsed = JSON.parse(body || '{}') as Record<string, unknown>;
      requests.push(parsed);
      const reply = script[Math.min(turn++, script.length - 1)] ?? { content: '' };
      if ('hang' in reply) {
        hanging.push(res);
        return;
      }
      if ('status' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        res.end(reply.body ?? JSON.stringify({ error: { message: 'scripted failure' } }));
        return;
      }
      const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
        id: `call_${turn}_${i}`,
        type: 'function',
        function: {
          name: c.name,
          arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
        },
      }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: `chatcmpl-${turn}`,
          object: 'chat.completion',
          model: String(parsed.model ?? 'fake'),
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: reply.content ?? null,
                ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
              },
              finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Minimal OpenAI-compatible LlmClient over fetch (the real client lives in core). */
export class FetchLlmClient implements LlmClient {
  constructor(
    private readonly baseURL: string,
    readonly model = 'fake-model',
  ) {}

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const body: Record<string, unknown> = { model: request.model ?? this.model, messages: request.messages };
    if (request.tools) body.tools = request.tools.map((t) => ({ type: 'function', function: t }));
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    const res = await fetch(`${this.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: request.signal,
    });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const json = (await res.json()) as {
      model: string;
      choices: Array<{
        message: { content: string | null; tool_calls?: ChatToolCall[] };
        finish_reason: string;
      }>;
    };
    const choice = json.choices[0]!;
    return {
      content: choice.message.content ?? '',
      toolCalls: choice.message.tool_calls ?? [],
      finishReason: choice.finish_reason,
      model: json.model,
    };
  }
}

export type { ChatMessage };
