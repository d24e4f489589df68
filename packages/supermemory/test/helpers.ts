import type { AgentContext, InitContext } from '@hermes-memory/core';
import { type CollectedLogs, collectLogs, tempHermesHome } from '@hermes-memory/testkit';
import { afterAll } from 'vitest';
import { SupermemoryProvider, type SupermemoryProviderOptions } from '../src';
import { FAKE_SUPERMEMORY_KEY, type FakeSupermemory, startFakeSupermemory } from '../src/testing';

export const KEY = FAKE_SUPERMEMORY_KEY;
/** Timestamps of everything the fake stores. */
export const FAKE_NOW = Date.parse('2026-03-01T12:00:00Z');

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export type Fake = FakeSupermemory;

export async function fake(): Promise<Fake> {
  const server = await startFakeSupermemory({ now: () => FAKE_NOW });
  cleanups.push(() => server.close());
  return server;
}

export function home(): string {
  const dir = tempHermesHome('hm-supermemory-');
  cleanups.push(() => dir.cleanup());
  return dir.path;
}

export interface Started {
  provider: SupermemoryProvider;
  logs: CollectedLogs;
  hermesHome: string;
}

/** A provider against `server`, initialized in a fresh home. */
export async function started(
  server: Fake,
  options: SupermemoryProviderOptions = {},
  init: Partial<InitContext> & { agentContext?: AgentContext; sessionId?: string } = {},
): Promise<Started> {
  const hermesHome = init.hermesHome ?? home();
  const logs = collectLogs();
  const provider = new SupermemoryProvider(
    // No retry backoff: fault tests retry at once (core's retry tests cover the backoff itself).
    { apiKey: KEY, baseURL: server.url, apiTimeout: 2, retryBaseDelayMs: 0, ...options },
    { hermesHome, env: {} },
  );
  await provider.initialize(init.sessionId ?? 'session-1', {
    hermesHome,
    platform: 'cli',
    agentContext: 'primary',
    logger: logs.logger,
    env: {},
    ...init,
  });
  cleanups.push(() => provider.shutdown({ timeoutMs: 1000 }));
  return { provider, logs, hermesHome };
}

export function json(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

/** The JSON body a request sent, with the fields these tests read. */
export interface SentBody {
  [key: string]: unknown;
  metadata: Record<string, unknown>;
  containerTags: string[];
  containerTag: string;
  conversationId: string;
  searchMode: string;
  limit: number;
  q: string;
}

export function sent(request: { body: unknown } | undefined): SentBody {
  return (request?.body ?? {}) as SentBody;
}

/** Each accepted conversation ingest: its id and user messages, in arrival order. */
export function ingests(server: Fake): Array<[string, string[]]> {
  return server
    .requestsTo('/v4/conversations')
    .filter((r) => r.status === 200)
    .map((r) => {
      const body = r.body as { conversationId: string; messages: { role: string; content: string }[] };
      return [body.conversationId, body.messages.filter((m) => m.role === 'user').map((m) => m.content)];
    });
}

/** The user messages the session's stored conversation document holds. */
export function stored(server: Fake, sessionId: string): string[] | undefined {
  return server.state.documents
    .find((d) => d.type === 'conversation' && d.customId === sessionId)
    ?.messages?.filter((m) => m.role === 'user')
    .map((m) => m.content);
}

/** A host transcript of `n` turns (`user turn i` / `reply i`). */
export const transcript = (n: number) =>
  Array.from({ length: n }, (_, i) => [
    { role: 'user' as const, content: `user turn ${i + 1}` },
    { role: 'assistant' as const, content: `reply ${i + 1}` },
  ]).flat();

/** The user lines of turns `from`..`to`. */
export const turns = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `user turn ${from + i}`);

/** A breaker that never opens in these tests: failures are about ordering, not outages. */
export const NO_BREAKER = { breakerThreshold: 1000 };
