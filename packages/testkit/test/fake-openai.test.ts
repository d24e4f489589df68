import { OpenAICompatibleLlmClient, cosineSimilarity } from '@hermes-memory/core';
import { afterEach, describe, expect, it } from 'vitest';
import { type FakeOpenAI, hashEmbedding, startFakeOpenAI } from '../src';
import { loopTurns } from '../src/conformance/runtime';

let fake: FakeOpenAI;
afterEach(async () => {
  await fake?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: assertions walk the parsed response JSON freely
type AnyJson = any;
interface JsonResponse extends Response {
  json(): Promise<AnyJson>;
}

const get = (path: string) => fetch(`${fake.url}${path}`) as Promise<JsonResponse>;
const post = (path: string, body: unknown, init: RequestInit = {}) =>
  fetch(`${fake.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: init.signal ?? null,
  }) as Promise<JsonResponse>;

/** Parse an SSE body into its `data:` payloads. */
async function sse(response: Response): Promise<string[]> {
  const text = await response.text();
  expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((event) => event.startsWith('data: '))
    .map((event) => event.slice('data: '.length));
}

describe('startFakeOpenAI: chat completions', () => {
  it('listens on 127.0.0.1 with an ephemeral port and answers scripted replies in order', async () => {
    fake = await startFakeOpenAI({ script: ['first', { content: 'second', model: 'gpt-fake' }] });
    expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(fake.port).toBeGreaterThan(0);
    const one = await (
      await post('/chat/completions', { model: 'm1', messages: [{ role: 'user', content: 'hi' }] })
    ).json();
    expect(one).toMatchObject({
      object: 'chat.completion',
      model: 'm1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'first' }, finish_reason: 'stop' }],
    });
    expect(one.usage.total_tokens).toBe(one.usage.prompt_tokens + one.usage.completion_tokens);
    const two = await (
      await post('/chat/completions', { messages: [{ role: 'user', content: 'again' }] })
    ).json();
    expect(two.choices[0].message.content).toBe('second');
    expect(two.model).toBe('gpt-fake');
    expect(fake.pendingReplies).toBe(0);
  });

  it('records method, path, headers and the parsed body', async () => {
    fake = await startFakeOpenAI({ script: ['ok'] });
    await post(
      '/chat/completions',
      { model: 'm', messages: [{ role: 'user', content: 'remember me' }] },
      {
        headers: { authorization: 'Bearer sk-test' },
      },
    );
    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions', status: 200 });
    expect(request!.headers.authorization).toBe('Bearer [redacted]'); // recordings never hold keys
    expect(request!.body).toEqual({ model: 'm', messages: [{ role: 'user', content: 'remember me' }] });
    expect(fake.requestsTo('/chat/completions')).toHaveLength(1);
    expect(fake.requestsTo('/embeddings')).toHaveLength(0);
  });

  it('computes replies with a responder function and falls back once the queue is empty', async () => {
    fake = await startFakeOpenAI({
      script: [(request) => `echo: ${String(request.messages.at(-1)?.content)}`],
      fallback: (request) => ({ content: `fallback for ${request.messages.length} message(s)` }),
    });
    const ask = async (content: string) =>
      (await (await post('/chat/completions', { messages: [{ role: 'user', content }] })).json()).choices[0]
        .message.content;
    expect(await ask('one')).toBe('echo: one');
    expect(await ask('two')).toBe('fallback for 1 message(s)');
  });

  it('answers an exhausted script with a clear 500 error', async () => {
    fake = await startFakeOpenAI();
    const response = await post('/chat/completions', { messages: [] });
    expect(response.status).toBe(500);
    expect((await response.json()).error.message).toMatch(/chat script is exhausted/);
  });

  it('returns tool calls with serialised arguments and finish_reason tool_calls', async () => {
    fake = await startFakeOpenAI({
      script: [{ toolCalls: [{ name: 'memory', arguments: { action: 'add', content: 'likes tea' } }] }],
    });
    const body = await (
      await post('/chat/completions', { messages: [{ role: 'user', content: 'x' }] })
    ).json();
    expect(body.choices[0].finish_reason).toBe('tool_calls');
    expect(body.choices[0].message.content).toBeNull();
    expect(body.choices[0].message.tool_calls).toEqual([
      {
        id: 'call_fake_1',
        type: 'function',
        function: { name: 'memory', arguments: '{"action":"add","content":"likes tea"}' },
      },
    ]);
  });

  it('serialises `json` replies for response_format json_object callers', async () => {
    fake = await startFakeOpenAI({ script: [{ json: { facts: ['a', 'b'] } }] });
    const body = await (
      await post('/chat/completions', {
        messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_object' },
      })
    ).json();
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ facts: ['a', 'b'] });
    expect((fake.requests[0]!.body as { response_format: unknown }).response_format).toEqual({
      type: 'json_object',
    });
  });

  it('streams content as SSE chunks ending in [DONE], with usage when asked', async () => {
    fake = await startFakeOpenAI({ script: [{ content: 'Hello streaming world', chunkSize: 5 }] });
    const response = await post('/chat/completions', {
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = await sse(response);
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
    expect(text).toBe('Hello streaming world');
    expect(chunks.filter((c) => c.choices[0]?.delta?.content).length).toBe(5);
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);
    expect(chunks.at(-1).choices).toEqual([]);
  });

  it('streams tool calls as indexed deltas whose argument fragments join to the JSON', async () => {
    fake = await startFakeOpenAI({
      script: [
        {
          toolCalls: [
            { name: 'fact_store', arguments: { action: 'add', content: 'x' }, id: 'call_a' },
            { name: 'fact_feedback', arguments: '{"id": 3}', id: 'call_b' },
          ],
          chunkSize: 4,
        },
      ],
    });
    const events = await sse(
      await post('/chat/completions', { messages: [{ role: 'user', content: 'x' }], stream: true }),
    );
    const deltas = events
      .slice(0, -1)
      .map((e) => JSON.parse(e))
      .flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for (const d of deltas) {
      calls[d.index] ??= { id: d.id, name: d.function.name, arguments: '' };
      calls[d.index]!.arguments += d.function.arguments ?? '';
    }
    expect(calls).toEqual([
      { id: 'call_a', name: 'fact_store', arguments: '{"action":"add","content":"x"}' },
      { id: 'call_b', name: 'fact_feedback', arguments: '{"id": 3}' },
    ]);
  });

  it('rejects a request without messages with a 400', async () => {
    fake = await startFakeOpenAI({ script: ['unused'] });
    const response = await post('/chat/completions', { model: 'm' });
    expect(response.status).toBe(400);
    expect(fake.pendingReplies).toBe(1);
  });

  it("works as the backend of core's OpenAICompatibleLlmClient", async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-fake-key', script: ['from the fake'] });
    const client = new OpenAICompatibleLlmClient({
      baseURL: fake.url,
      apiKey: 'sk-fake-key',
      model: 'fake-chat',
    });
    const reply = await client.chat({ messages: [{ role: 'user', content: 'hello' }] });
    expect(reply.content).toBe('from the fake');
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer [redacted]');
  });
});

describe('startFakeOpenAI: embeddings and models', () => {
  it('returns deterministic normalised vectors in input order', async () => {
    fake = await startFakeOpenAI({ dimensions: 32 });
    const body = await (
      await post('/embeddings', { model: 'fake-embedding', input: ['tea with milk', 'green tea'] })
    ).json();
    expect(body.object).toBe('list');
    expect(body.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    const [a, b] = body.data.map((d: { embedding: number[] }) => d.embedding);
    expect(a).toHaveLength(32);
    expect(a).toEqual(hashEmbedding('tea with milk', 32));
    expect(Math.hypot(...a)).toBeCloseTo(1, 6);
    expect(cosineSimilarity(a, b)).toBeGreaterThan(
      cosineSimilarity(a, hashEmbedding('quarterly tax filing', 32)),
    );
    expect(body.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('honours `dimensions`, base64 encoding and a scripted embedder', async () => {
    fake = await startFakeOpenAI({ embedder: (texts) => texts.map((t) => [t.length, 0, 0]) });
    const scripted = await (await post('/embeddings', { input: 'abcd' })).json();
    expect(scripted.data[0].embedding).toEqual([4, 0, 0]);
    await fake.close();
    fake = await startFakeOpenAI();
    const body = await (
      await post('/embeddings', { input: 'hello', dimensions: 8, encoding_format: 'base64' })
    ).json();
    const bytes = Buffer.from(body.data[0].embedding, 'base64');
    const floats = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    expect(Array.from(floats)).toEqual(hashEmbedding('hello', 8).map((x) => Math.fround(x)));
  });

  it('rejects empty input with a 400', async () => {
    fake = await startFakeOpenAI();
    expect((await post('/embeddings', { input: [] })).status).toBe(400);
    expect((await post('/embeddings', { input: [1, 2] })).status).toBe(400);
  });

  it('lists models and 404s unknown routes', async () => {
    fake = await startFakeOpenAI({ models: ['a', 'b'] });
    const list = await (await get('/models')).json();
    expect(list.data.map((m: { id: string }) => m.id)).toEqual(['a', 'b']);
    expect((await get('/models/a')).status).toBe(200);
    expect((await get('/models/zzz')).status).toBe(404);
    expect((await get('/nope')).status).toBe(404);
  });
});

describe('startFakeOpenAI: auth and faults', () => {
  it('requires the Bearer key when configured', async () => {
    fake = await startFakeOpenAI({ apiKey: 'sk-right', script: ['ok'] });
    const wrong = await post(
      '/chat/completions',
      { messages: [] },
      { headers: { authorization: 'Bearer sk-wrong' } },
    );
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error.code).toBe('invalid_api_key');
    const missing = await get('/models');
    expect(missing.status).toBe(401);
    const right = await post(
      '/chat/completions',
      { messages: [] },
      { headers: { authorization: 'Bearer sk-right' } },
    );
    expect(right.status).toBe(200);
    expect(fake.requests.map((r) => r.status)).toEqual([401, 401, 200]);
  });

  it('injects status faults for the next N requests, with Retry-After, then recovers', async () => {
    fake = await startFakeOpenAI({ script: ['recovered'] });
    fake.fail({ type: 'status', status: 429, retryAfter: 2 }).fail({ type: 'status', status: 503, count: 2 });
    expect(fake.pendingFaults).toBe(3);
    const first = await post('/chat/completions', { messages: [] });
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    expect((await first.json()).error.type).toBe('rate_limit_exceeded');
    expect((await post('/chat/completions', { messages: [] })).status).toBe(503);
    expect((await post('/chat/completions', { messages: [] })).status).toBe(503);
    const ok = await post('/chat/completions', { messages: [] });
    expect((await ok.json()).choices[0].message.content).toBe('recovered');
    expect(fake.requests.map((r) => r.fault ?? null)).toEqual(['status', 'status', 'status', null]);
  });

  it('limits a fault to a path and accepts a bare status code', async () => {
    fake = await startFakeOpenAI({ script: ['chat ok'] });
    fake.fail({ type: 'status', status: 500, path: '/embeddings' });
    expect((await post('/chat/completions', { messages: [] })).status).toBe(200);
    expect((await post('/embeddings', { input: 'x' })).status).toBe(500);
    fake.fail(502);
    expect((await post('/embeddings', { input: 'x' })).status).toBe(502);
    expect(() => fake.fail({ type: 'reset', count: 0 })).toThrow(RangeError);
  });

  it('hangs on a timeout fault until the client aborts', async () => {
    fake = await startFakeOpenAI({ script: ['after the hang'] });
    fake.fail({ type: 'timeout' });
    const controller = new AbortController();
    const pending = post('/chat/completions', { messages: [] }, { signal: controller.signal });
    await loopTurns(10_000, () => fake.requests.length === 1);
    expect(fake.requests[0]!.fault).toBe('timeout');
    controller.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    const next = await post('/chat/completions', { messages: [] });
    expect((await next.json()).choices[0].message.content).toBe('after the hang');
  });

  it('resets the connection on a reset fault', async () => {
    fake = await startFakeOpenAI({ script: ['after the reset'] });
    fake.fail({ type: 'reset' });
    await expect(post('/chat/completions', { messages: [] })).rejects.toThrow(/fetch failed/);
    expect(
      (await (await post('/chat/completions', { messages: [] })).json()).choices[0].message.content,
    ).toBe('after the reset');
  });

  it('sends malformed JSON and broken SSE bodies', async () => {
    fake = await startFakeOpenAI();
    fake.fail({ type: 'malformed', count: 2 });
    const json = await post('/chat/completions', { messages: [] });
    expect(json.status).toBe(200);
    await expect(json.json()).rejects.toThrow(SyntaxError);
    const stream = await post('/chat/completions', { messages: [], stream: true });
    const events = (await stream.text())
      .split('\n\n')
      .filter((e) => e.startsWith('data: ') && e !== 'data: [DONE]');
    expect(() => JSON.parse(events[0]!.slice(6))).toThrow(SyntaxError);
  });

  it("drives core's client retries: 503 then success", async () => {
    fake = await startFakeOpenAI({ script: ['second attempt'] });
    fake.fail(503);
    const client = new OpenAICompatibleLlmClient({ baseURL: fake.url, model: 'fake-chat', maxRetries: 2 });
    const reply = await client.chat({ messages: [{ role: 'user', content: 'x' }] });
    expect(reply.content).toBe('second attempt');
    expect(fake.requests.map((r) => r.status)).toEqual([503, 200]);
  });

  it('reset() clears script, faults and requests; close() is idempotent and ends hanging requests', async () => {
    fake = await startFakeOpenAI({ script: ['a', 'b'] });
    fake.fail(500);
    await post('/models', {});
    fake.reset();
    expect([fake.pendingReplies, fake.pendingFaults, fake.requests.length]).toEqual([0, 0, 0]);
    fake.fail({ type: 'timeout' });
    const hanging = post('/chat/completions', { messages: [] });
    await loopTurns(10_000, () => fake.requests.length === 1);
    await Promise.all([fake.close(), fake.close()]);
    await expect(hanging).rejects.toThrow();
  });
});
