import { describe, expect, it } from 'vitest';
import { failAlways, failFirst, runFaultScenario, startFaultServer } from './faults';

describe('fault server', () => {
  it('injects a 5xx once, then answers an OpenAI-shaped body', async () => {
    const server = await startFaultServer(failFirst('http503', 1));
    try {
      const post = () =>
        fetch(`${server.baseURL}/embeddings`, {
          method: 'POST',
          body: JSON.stringify({ input: ['a', 'b'], model: 'm' }),
        });
      expect((await post()).status).toBe(503);
      const ok = await post();
      expect(ok.status).toBe(200);
      const body = (await ok.json()) as { data: Array<{ index: number; embedding: number[] }> };
      expect(body.data.map((d) => d.index)).toEqual([0, 1]);
      expect(server.requests).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('serves malformed bodies and resets connections', async () => {
    const malformed = await startFaultServer(failAlways('malformed'));
    try {
      const res = await fetch(`${malformed.baseURL}/chat/completions`, { method: 'POST', body: '{}' });
      await expect(res.json()).rejects.toThrow();
    } finally {
      await malformed.close();
    }
    const reset = await startFaultServer(failAlways('reset'));
    try {
      await expect(
        fetch(`${reset.baseURL}/chat/completions`, { method: 'POST', body: '{}' }),
      ).rejects.toThrow();
    } finally {
      await reset.close();
    }
  });

  it('classifies a client outcome (clean error vs foreign error)', async () => {
    class ClientError extends Error {}
    const target = {
      name: 'raw fetch client',
      async call(baseURL: string, signal: AbortSignal) {
        const res = await fetch(`${baseURL}/chat/completions`, { method: 'POST', body: '{}', signal });
        if (!res.ok) throw new ClientError(`HTTP ${res.status}`);
        return res.json();
      },
      isCleanError: (err: unknown) => err instanceof ClientError,
    };
    expect((await runFaultScenario(target, 'ok', failFirst('http500', 0), 5_000)).outcome).toBe('recovered');
    const failed = await runFaultScenario(target, '500', failAlways('http500'), 5_000);
    expect(failed.outcome).toBe('clean-error');
    expect(failed.requests).toBe(1);
    expect((await runFaultScenario(target, 'malformed', failAlways('malformed'), 5_000)).outcome).toBe(
      'foreign-error',
    );
  });
});

describe('testkit fake server as a fault source', () => {
  // Loads testkit's built entry at run time (seconds on a busy machine), hence the longer timeout.
  it('arms status faults on startFakeOpenAI and answers chats afterwards', { timeout: 30_000 }, async () => {
    const { loadTestkitFaultServer } = await import('./targets');
    const testkit = await loadTestkitFaultServer();
    expect(testkit).not.toBeNull();
    expect(testkit!.supports('truncated')).toBe(true);
    const server = await testkit!.start('http503', 'once');
    try {
      const post = () =>
        fetch(`${server.baseURL}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'fake-chat', messages: [{ role: 'user', content: 'hi' }] }),
        });
      expect((await post()).status).toBe(503);
      const ok = (await (await post()).json()) as { choices: Array<{ message: { content: string } }> };
      expect(ok.choices[0]!.message.content).toBe('ok');
      expect(server.requests).toBe(2);
    } finally {
      await server.close();
    }
  });
});
