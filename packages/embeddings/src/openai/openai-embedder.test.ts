import { APICallError, SettingsError, createRecordingLogger } from '@hermes-memory/core';
import { type FakeOpenAI, startFakeOpenAI } from '@hermes-memory/testkit/fake-openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAIEmbedder } from './openai-embedder';

/** A deterministic, deliberately unnormalised vector, so the client's normalisation is observable. */
function fakeVector(text: string, dims: number): number[] {
  let sum = 0;
  for (const c of text) sum += c.codePointAt(0)!;
  return Array.from({ length: dims }, (_, j) => 1 + ((sum + 7 * j) % 10));
}

/** The fake's embedder: `fakeVector` of each text, sized by the request's `dimensions` when sent. */
let responseDims = 4;
const fakeEmbedder = (texts: readonly string[]) => texts.map((t) => fakeVector(t, responseDims));

function normalised(v: number[]): number[] {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

function close(a: ArrayLike<number>, b: number[]): boolean {
  return b.every((x, i) => Math.abs(a[i]! - x) < 1e-6);
}

const SECRET = 'sk-test-SECRET-0123456789abcdef';

describe('OpenAIEmbedder against a loopback OpenAI-compatible server', () => {
  let fake: FakeOpenAI;
  beforeEach(async () => {
    responseDims = 4;
    fake = await startFakeOpenAI({ embedder: fakeEmbedder });
  });
  afterEach(async () => {
    await fake.close();
  });

  const make = (extra: ConstructorParameters<typeof OpenAIEmbedder>[0] = {}) =>
    new OpenAIEmbedder({ baseURL: fake.url, apiKey: SECRET, retryBaseDelayMs: 1, env: {}, ...extra });

  it('posts the OpenAI request shape with a bearer key and returns normalised vectors in order', async () => {
    const e = make({ model: 'text-embedding-3-small' });
    const vs = await e.embed(['alpha', 'beta']);
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/embeddings');
    expect(req.headers['authorization']).toBe('Bearer [redacted]'); // sent as Bearer; recordings never hold keys
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({
      model: 'text-embedding-3-small',
      input: ['alpha', 'beta'],
      encoding_format: 'float',
    });
    expect(close(vs[0]!, normalised(fakeVector('alpha', 4)))).toBe(true);
    expect(close(vs[1]!, normalised(fakeVector('beta', 4)))).toBe(true);
    expect(e.id).toBe('openai:text-embedding-3-small');
  });

  it('infers dimensions from the first response', async () => {
    const e = make();
    expect(e.dimensions).toBe(0);
    expect(await e.resolveDimensions()).toBe(4);
    expect(e.dimensions).toBe(4);
    expect(fake.requests).toHaveLength(1);
    await e.resolveDimensions();
    expect(fake.requests).toHaveLength(1);
  });

  it('sends configured dimensions and validates the response size', async () => {
    responseDims = 6;
    const e = make({ dimensions: 6 });
    expect(e.id).toBe('openai:text-embedding-3-small:d6');
    const [v] = await e.embed(['x']);
    expect((fake.requests[0]!.body as { dimensions?: number }).dimensions).toBe(6);
    expect(v!.length).toBe(6);
    responseDims = 4;
    const strict = make({ dimensions: 6, sendDimensions: false });
    await expect(strict.embed(['x'])).rejects.toThrow(/expected 6 dimensions, got 4/);
  });

  it('splits into batches of batchSize and reassembles in input order', async () => {
    const e = make({ batchSize: 2, concurrency: 3 });
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vs = await e.embed(texts);
    expect(fake.requests.map((r) => (r.body as { input: string[] }).input)).toEqual(
      expect.arrayContaining([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]),
    );
    expect(fake.requests).toHaveLength(3);
    expect(texts.every((t, i) => close(vs[i]!, normalised(fakeVector(t, 4))))).toBe(true);
  });

  it('orders results by the response index field', async () => {
    // A gateway that returns the data items out of order (allowed by the API: `index` is authoritative).
    const reversing: typeof fetch = async (url, init) => {
      const res = await fetch(url, init);
      const body = (await res.json()) as { data: unknown[] };
      body.data.reverse();
      return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
    };
    const vs = await make({ fetch: reversing }).embed(['first', 'second', 'third']);
    expect(close(vs[0]!, normalised(fakeVector('first', 4)))).toBe(true);
    expect(close(vs[2]!, normalised(fakeVector('third', 4)))).toBe(true);
  });

  it('never sends blank texts: they embed to the zero vector', async () => {
    const e = make({ dimensions: 4, sendDimensions: false });
    const vs = await e.embed(['', 'real', '  ']);
    expect((fake.requests[0]!.body as { input: string[] }).input).toEqual(['real']);
    expect(Array.from(vs[0]!)).toEqual([0, 0, 0, 0]);
    expect(Array.from(vs[2]!)).toEqual([0, 0, 0, 0]);
    const none = await make().embed([]);
    expect(none).toEqual([]);
  });

  it('retries 429 and 5xx (honouring Retry-After) and then succeeds', async () => {
    const logger = createRecordingLogger();
    fake.fail({ type: 'status', status: 429, retryAfter: 0 }).fail(503).fail(500);
    const vs = await make({ maxRetries: 3, logger }).embed(['x']);
    expect(vs).toHaveLength(1);
    expect(fake.requests).toHaveLength(4);
    expect(logger.records.filter((r) => r.level === 'warn')).toHaveLength(3);
  });

  it('retries network resets', async () => {
    fake.fail({ type: 'reset' });
    const vs = await make().embed(['x']);
    expect(vs).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
  });

  it('gives up after maxRetries with a retryable APICallError carrying the status', async () => {
    fake.fail({ type: 'status', status: 502, count: 3 });
    const error = await make({ maxRetries: 2 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(502);
    expect((error as APICallError).isRetryable).toBe(true);
    expect((error as APICallError).message).toContain('Injected fault: HTTP 502');
    expect(fake.requests).toHaveLength(3);
  });

  it('does not retry 400/401 and never leaks the API key, even when the server echoes it', async () => {
    const logger = createRecordingLogger();
    fake.fail({
      type: 'status',
      status: 401,
      body: JSON.stringify({ error: { message: `Incorrect API key provided: ${SECRET}` } }),
    });
    const error = (await make({ logger })
      .embed(['x'])
      .catch((e: unknown) => e)) as APICallError;
    expect(error.statusCode).toBe(401);
    expect(error.isRetryable).toBe(false);
    expect(fake.requests).toHaveLength(1);
    expect(error.message).not.toContain(SECRET);
    expect(error.responseBody ?? '').not.toContain(SECRET);
    expect(JSON.stringify(logger.records)).not.toContain(SECRET);
    expect(error.message).toContain('[redacted]');
  });

  it('never repeats credentials from the base URL (user-info, query) in errors, causes or logs (issue #12)', async () => {
    const PASS = 'pr0xy-Pa55word-9z';
    const QUERY = 'q-s3cret-value-77';
    const logger = createRecordingLogger();
    const withCreds = `${fake.url.replace('http://', `http://gateway:${PASS}@`)}?api-key=${QUERY}`;
    fake.fail({ type: 'status', status: 500, body: `upstream said ${PASS} ${QUERY}` });
    const failed = (await new OpenAIEmbedder({
      baseURL: withCreds,
      env: {},
      maxRetries: 1,
      retryBaseDelayMs: 1,
      logger,
    })
      .embed(['x'])
      .catch((e: unknown) => e)) as APICallError;
    // The fake records auth headers with their scheme only; core's HttpClient tests check the value.
    expect(fake.requests[0]!.headers['authorization']).toBe('Basic [redacted]');
    expect(JSON.stringify(fake.requests)).not.toContain(PASS);
    const dead = `http://gateway:${PASS}@127.0.0.1:1/v1?api-key=${QUERY}`;
    const refused = (await new OpenAIEmbedder({ baseURL: dead, env: {}, maxRetries: 0 })
      .embed(['x'])
      .catch((e: unknown) => e)) as APICallError & { cause?: Error };
    for (const error of [failed, refused] as Array<APICallError & { cause?: Error }>) {
      const text = [
        error.message,
        error.url,
        error.responseBody,
        error.cause?.message,
        String(error.stack),
      ].join('\n');
      for (const secret of [PASS, QUERY]) expect(text).not.toContain(secret);
    }
    expect(JSON.stringify(logger.records)).not.toContain(PASS);
    expect(JSON.stringify(logger.records)).not.toContain(QUERY);
  });

  it('times out a hanging request and retries it', async () => {
    fake.fail({ type: 'timeout' });
    const vs = await make({ timeoutMs: 100, maxRetries: 1 }).embed(['x']);
    expect(vs).toHaveLength(1);
    expect(fake.requests).toHaveLength(2);
    fake.fail({ type: 'timeout' });
    await expect(make({ timeoutMs: 100, maxRetries: 0 }).embed(['y'])).rejects.toThrow(
      /timed out after 100 ms/,
    );
  });

  it('stops at once when the caller aborts', async () => {
    fake.fail({ type: 'timeout' });
    const controller = new AbortController();
    const pending = make({ timeoutMs: 60_000 }).embed(['x'], { signal: controller.signal });
    setImmediate(() => controller.abort(new Error('caller gave up')));
    await expect(pending).rejects.toThrow('caller gave up');
  });

  it('rejects malformed 200 responses without retrying', async () => {
    fake.fail({ type: 'malformed' });
    await expect(make().embed(['x'])).rejects.toThrow(/not JSON/);
    const short = await startFakeOpenAI({ embedder: () => [] });
    const nan = await startFakeOpenAI({ embedder: (texts) => texts.map(() => [1, Number.NaN]) });
    try {
      await expect(make({ baseURL: short.url }).embed(['x'])).rejects.toThrow(/expected 1 embeddings, got 0/);
      await expect(make({ baseURL: nan.url }).embed(['x'])).rejects.toThrow(/non-numeric/);
      expect(short.requests).toHaveLength(1);
      expect(nan.requests).toHaveLength(1);
    } finally {
      await short.close();
      await nan.close();
    }
    expect(fake.requests).toHaveLength(1);
  });

  it('is accepted by a server that requires the key', async () => {
    const locked = await startFakeOpenAI({ apiKey: SECRET, embedder: fakeEmbedder });
    try {
      expect(await make({ baseURL: locked.url }).embed(['x'])).toHaveLength(1);
      await expect(make({ baseURL: locked.url, apiKey: 'sk-wrong-key' }).embed(['x'])).rejects.toMatchObject({
        statusCode: 401,
      });
    } finally {
      await locked.close();
    }
  });

  it('reads OPENAI_API_KEY and OPENAI_BASE_URL from the environment', async () => {
    const locked = await startFakeOpenAI({ apiKey: 'sk-env-key', embedder: fakeEmbedder });
    try {
      const e = new OpenAIEmbedder({
        env: { OPENAI_API_KEY: 'sk-env-key', OPENAI_BASE_URL: `${locked.url}/` },
      });
      await e.embed(['x']); // the locked server answers 401 to any other key
      expect(locked.requests[0]!.status).toBe(200);
    } finally {
      await locked.close();
    }
    const keyless = new OpenAIEmbedder({ baseURL: fake.url, env: {} });
    await keyless.embed(['x']);
    expect(fake.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it('validates settings', () => {
    expect(() => new OpenAIEmbedder({ baseURL: 'not a url', env: {} })).toThrow(SettingsError);
    expect(() => new OpenAIEmbedder({ batchSize: 0, env: {} })).toThrow(SettingsError);
    expect(() => new OpenAIEmbedder({ dimensions: -1, env: {} })).toThrow(SettingsError);
  });
});
