import { OpenAICompatibleLlmClient } from '@hermes-memory/core';
import { type FakeOpenAI, type FakeOpenAIOptions, startFakeOpenAI } from '@hermes-memory/testkit/fake-openai';
import { afterEach } from 'vitest';

const servers: FakeOpenAI[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** The testkit's scripted OpenAI-compatible server plus the real core client pointed at it (no retries). */
export async function scriptedLlm(options: FakeOpenAIOptions = {}) {
  const server = await startFakeOpenAI(options);
  servers.push(server);
  const llm = new OpenAICompatibleLlmClient({
    baseURL: server.url,
    model: 'fake-chat',
    maxRetries: 0,
    timeoutMs: 10_000,
  });
  const chatBodies = () =>
    server
      .requestsTo('/chat/completions')
      .map((r) => r.body as { messages: Array<{ role: string; content: unknown }>; [k: string]: unknown });
  return { server, llm, chatBodies };
}
