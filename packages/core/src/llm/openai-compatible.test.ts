import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APICallError } from '../errors/memory-error';
import { ManualClock } from '../resilience';
import { chatJson, createLlmClientFromEnv, OpenAICompatibleLlmClient, parseJsonAnswer } from './index';

type Reply = {
  status?: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  hang?: boolean;
};

let server: http.Server;
let baseURL: string;
let replies: Reply[];
let requests: Array<{ url: string; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }>;
const KEY = 'sk-test-0123456789abcdefghij';

beforeEach(async () => {
  replies = [];
  requests = [];
  server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => {
      data += c.toString();
    });
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body: JSON.parse(data || '{}') });
      const reply = replies.shift() ?? { body: completion('default') };
      if (reply.hang) return;
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(reply.raw ?? JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

function completion(content: string | null, extra: Record<string, unknown> = {}) {
  return {
    id: 'c1',
    model: 'served-model',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content, ...extra } }],
    usage: { prompt_tokens: 3, completion_tokens: 5 },
  };
}

const client = (o: Partial<ConstructorParameters<typeof OpenAICompatibleLlmClient>[0]> = {}) =>
  new OpenAICompatibleLlmClient({ baseURL, apiKey: KEY, model: 'm', retryBaseDelayMs: 1, ...o });

describe('OpenAICompatibleLlmClient', () => {
  it('posts to /chat/completions with bearer auth and maps the answer', async () => {
    replies.push({ body: completion('hello') });
    const r = await client().chat({
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0,
      maxTokens: 10,
    });
    expect(r).toEqual({
      content: 'hello',
      toolCalls: [],
      finishReason: 'stop',
      model: 'served-model',
      usage: { promptTokens: 3, completionTokens: 5 },
    });
    expect(requests[0]!.url).toBe('/v1/chat/completions');
    expect(requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(requests[0]!.body).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 0,
      max_tokens: 10,
    });
  });

  it('sends json mode and tools, and parses tool calls', async () => {
    replies.push({
      body: completion(null, {
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
        ],
      }),
    });
    const tools = [
      {
        name: 'lookup',
        description: 'find',
        parameters: { type: 'object', properties: { q: { type: 'string' } } },
      },
    ];
    const r = await client().chat({
      messages: [
        { role: 'user', content: 'find x' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'p', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
        },
        { role: 'tool', content: '{}', tool_call_id: 'p' },
      ],
      tools,
      toolChoice: { name: 'lookup' },
      json: true,
    });
    expect(r.toolCalls).toEqual([
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    ]);
    expect(r.content).toBe('');
    const body = requests[0]!.body;
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.tools).toEqual([{ type: 'function', function: tools[0] }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'lookup' } });
    expect((body.messages as unknown[]).length).toBe(3);
  });

  it('retries 429 and 5xx, then succeeds', async () => {
    replies.push(
      { status: 429, body: { error: { message: 'slow down' } } },
      { status: 503, raw: 'busy' },
      { body: completion('ok') },
    );
    expect((await client().chat({ messages: [{ role: 'user', content: 'x' }] })).content).toBe('ok');
    expect(requests).toHaveLength(3);
  });

  it('waits out Retry-After through the shared retry helper (injected clock)', async () => {
    const clock = new ManualClock();
    replies.push({ status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '3' } });
    replies.push({ body: completion('after the wait') });
    const call = client({ clock }).chat({ messages: [{ role: 'user', content: 'x' }] });
    while (clock.nextTimerAt !== 3000) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(requests).toHaveLength(1);
    await clock.advance(3000);
    expect((await call).content).toBe('after the wait');
    expect(requests).toHaveLength(2);
  });

  it('does not retry 400 and never puts the key in the error', async () => {
    replies.push({ status: 400, body: { error: { message: `bad key ${KEY}` } } });
    const error = await client()
      .chat({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    const e = error as APICallError;
    expect(e.statusCode).toBe(400);
    expect(e.isRetryable).toBe(false);
    expect(e.message).toContain('HTTP 400');
    expect(e.message).not.toContain(KEY);
    expect(e.responseBody).not.toContain(KEY);
    expect(requests).toHaveLength(1);
  });

  it('gives up after maxRetries', async () => {
    replies.push({ status: 500, raw: '' }, { status: 500, raw: '' });
    const error = await client({ maxRetries: 1 })
      .chat({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect((error as APICallError).statusCode).toBe(500);
    expect(requests).toHaveLength(2);
  });

  it('times out a hanging server with a retryable APICallError', async () => {
    replies.push({ hang: true });
    const error = await client({ timeoutMs: 50, maxRetries: 0 })
      .chat({ messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain('timed out after 50 ms');
  });

  it('honours a caller abort signal without retrying', async () => {
    replies.push({ hang: true });
    const ctrl = new AbortController();
    const p = client().chat({ messages: [{ role: 'user', content: 'x' }], signal: ctrl.signal });
    ctrl.abort(new Error('user cancelled'));
    await expect(p).rejects.toThrow('user cancelled');
  });

  it('reports a network failure as retryable', async () => {
    const c = new OpenAICompatibleLlmClient({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', maxRetries: 0 });
    const error = await c.chat({ messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect((error as APICallError).isRetryable).toBe(true);
  });

  it('rejects a malformed completion body', async () => {
    replies.push({ body: { nope: true } });
    await expect(client().chat({ messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow(/choices/);
  });
});

describe('chatJson and parseJsonAnswer', () => {
  it('parses fenced and prose-wrapped JSON', async () => {
    replies.push({ body: completion('Here you go:\n```json\n{"facts":["a"]}\n```') });
    expect(
      await chatJson<{ facts: string[] }>(client(), { messages: [{ role: 'user', content: 'x' }] }),
    ).toEqual({ facts: ['a'] });
    expect(requests[0]!.body.response_format).toEqual({ type: 'json_object' });
    expect(parseJsonAnswer('Sure! {"a": 1} hope that helps')).toEqual({ a: 1 });
    expect(parseJsonAnswer('[1,2]')).toEqual([1, 2]);
    expect(() => parseJsonAnswer('no json here')).toThrow(/not valid JSON/);
  });
});

describe('createLlmClientFromEnv', () => {
  it('returns undefined without a key and reads base URL and model', () => {
    expect(createLlmClientFromEnv({})).toBeUndefined();
    const c = createLlmClientFromEnv({
      OPENAI_API_KEY: KEY,
      OPENAI_BASE_URL: baseURL,
      OPENAI_MODEL: 'local-model',
    });
    expect(c?.model).toBe('local-model');
    expect(createLlmClientFromEnv({ OPENAI_API_KEY: KEY })?.model).toBe('gpt-4o-mini');
  });
});

describe('OpenAICompatibleLlmClient never repeats a configured secret (issue #12)', () => {
  const USER = 'proxyuser';
  const PASS = 'pr0xy-Pa55word-9z';
  const QUERY = 'q-s3cret-value-77';
  const HEADER = 'hdr-9f8e7d6c5b4a3f';

  function everything(error: unknown): string {
    const e = error as APICallError & { cause?: Error };
    return [e.message, e.url, e.responseBody, e.cause?.message, e.cause?.stack, String(e.stack)].join('\n');
  }

  it('takes user-info out of the requested URL, sends it as Basic auth and masks it in errors', async () => {
    const withCreds = baseURL.replace('http://', `http://${USER}:${PASS}@`);
    replies.push({
      status: 400,
      raw: JSON.stringify({ error: { message: `bad ${PASS} ${QUERY} ${HEADER}` } }),
    });
    const c = new OpenAICompatibleLlmClient({
      baseURL: `${withCreds}?api-version=2024-01-01&api-key=${QUERY}`,
      model: 'm',
      headers: { 'x-api-key': HEADER },
      maxRetries: 0,
    });
    const error = await c.chat({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(requests[0]!.url).toBe(`/v1/chat/completions?api-version=2024-01-01&api-key=${QUERY}`);
    expect(requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from(`${USER}:${PASS}`).toString('base64')}`,
    );
    const text = everything(error);
    for (const secret of [PASS, QUERY, HEADER]) expect(text).not.toContain(secret);
    expect((error as APICallError).url).toContain('api-version=2024-01-01');
  });

  it('a network failure names the endpoint without its credentials, in the message and the cause', async () => {
    const dead = baseURL.replace(/:\d+\//, ':1/').replace('http://', `http://${USER}:${PASS}@`);
    const c = new OpenAICompatibleLlmClient({ baseURL: `${dead}?key=${QUERY}`, model: 'm', maxRetries: 0 });
    const error = await c.chat({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    const text = everything(error);
    for (const secret of [PASS, QUERY]) expect(text).not.toContain(secret);
  });

  it('refuses credentials in the URL together with an apiKey, without echoing either', () => {
    const make = () =>
      new OpenAICompatibleLlmClient({
        baseURL: baseURL.replace('http://', `http://${USER}:${PASS}@`),
        apiKey: KEY,
        model: 'm',
      });
    expect(make).toThrow(/carries credentials/);
    try {
      make();
    } catch (error) {
      expect(String((error as Error).message)).not.toContain(PASS);
    }
    expect(() => new OpenAICompatibleLlmClient({ baseURL: `http://${PASS}@[bad`, model: 'm' })).toThrow(
      /^Chat completion base URL is not a valid URL\.$/,
    );
  });
});
