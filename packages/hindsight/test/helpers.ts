import type { AgentContext, InitContext, ManualClock } from '@hermes-memory/core';
import { type CollectedLogs, collectLogs, tempHermesHome } from '@hermes-memory/testkit';
import type { FakeServer } from '@hermes-memory/testkit/http';
import { afterAll, expect } from 'vitest';
import { clearVersionCache, HindsightProvider, type HindsightProviderOptions } from '../src';
import {
  FAKE_HINDSIGHT_KEY,
  type FakeHindsightOptions,
  type FakeHindsightState,
  startFakeHindsight,
} from '../src/testing';

export const KEY = FAKE_HINDSIGHT_KEY;
/** Timestamps of everything the fake stores. */
export const FAKE_NOW = Date.parse('2026-03-01T12:00:00Z');

const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export type Fake = FakeServer<FakeHindsightState>;

export async function fake(options: FakeHindsightOptions = {}): Promise<Fake> {
  const server = await startFakeHindsight({ now: () => FAKE_NOW, ...options });
  // Each fake is a new server on a new port; the version probe is cached per URL.
  clearVersionCache();
  cleanups.push(() => server.close());
  return server;
}

export function home(): string {
  const dir = tempHermesHome('hm-hindsight-');
  cleanups.push(() => dir.cleanup());
  return dir.path;
}

export interface Started {
  provider: HindsightProvider;
  logs: CollectedLogs;
  hermesHome: string;
  statuses: string[];
}

/** A provider against `server`, initialized in a fresh home (HOME points into it: no legacy file). */
export async function started(
  server: Fake,
  options: HindsightProviderOptions = {},
  init: Partial<InitContext> & { agentContext?: AgentContext; sessionId?: string } = {},
): Promise<Started> {
  const hermesHome = init.hermesHome ?? home();
  const env = { HOME: hermesHome, ...(init.env ?? {}) };
  const logs = collectLogs();
  const statuses: string[] = [];
  const provider = new HindsightProvider(
    { apiKey: KEY, apiURL: server.url, timeout: 5, onStatus: (line) => statuses.push(line), ...options },
    { hermesHome, env },
  );
  const { sessionId, ...rest } = init;
  provider.initialize(sessionId ?? 'session-1', {
    hermesHome,
    platform: 'cli',
    agentContext: 'primary',
    logger: logs.logger,
    ...rest,
    env,
  });
  cleanups.push(() => provider.shutdown({ timeoutMs: 1000 }));
  return { provider, logs, hermesHome, statuses };
}

export function json(text: string): Record<string, unknown> {
  return JSON.parse(text) as Record<string, unknown>;
}

/** The JSON body a request sent, with the fields these tests read. */
export interface RetainBody {
  items: Array<{
    content: string;
    timestamp: string;
    context?: string;
    metadata: Record<string, string>;
    tags?: string[];
    document_id?: string;
    update_mode?: string;
    observation_scopes?: unknown;
    [key: string]: unknown;
  }>;
  async?: boolean;
  operation_id?: string;
  [key: string]: unknown;
}

export function retains(server: Fake): RetainBody[] {
  return server.requestsTo('POST /v1/default/banks/:bank/memories').map((r) => (r.body ?? {}) as RetainBody);
}

export function body(request: { body: unknown } | undefined): Record<string, unknown> {
  return (request?.body ?? {}) as Record<string, unknown>;
}

/**
 * Await `work`, moving the clock 1 s every five event-loop turns, so backoffs, deadlines and
 * cooldowns elapse without sleeping while a loopback request still has turns to complete in.
 */
export async function pumped<T>(clock: ManualClock, work: () => Promise<T>, rounds = 600): Promise<T> {
  let done = false;
  const settled = work().finally(() => {
    done = true;
  });
  for (let i = 0; i < rounds && !done; i++) {
    for (let j = 0; j < 5 && !done; j++) await new Promise((resolve) => setImmediate(resolve));
    if (!done) await clock.advance(1_000);
  }
  expect(done).toBe(true);
  return settled;
}

/** Fail every request with a 500 and make two recall tool calls: 3 + 2 attempts open the breaker. */
export async function openBreaker(
  server: Fake,
  provider: HindsightProvider,
  clock: ManualClock,
): Promise<void> {
  server.fail({ type: 'status', status: 500, count: 100_000 });
  await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'a' }));
  await pumped(clock, () => provider.handleToolCall('hindsight_recall', { query: 'b' }));
  expect(provider.health()?.status).toBe('down');
}

/** The user messages of every retain the server got, per document, in the order they arrived. */
export function retainedTurns(server: Fake): Array<[string, string[]]> {
  return retains(server)
    .filter((_, i) => server.requestsTo('POST /v1/default/banks/:bank/memories')[i]?.status === 200)
    .map((body) => {
      const item = body.items[0]!;
      const turns = JSON.parse(item.content) as Array<Array<{ role: string; content: string }>>;
      return [
        String(item.document_id),
        turns.map((t) => t.find((m) => m.role === 'user')?.content ?? ''),
      ] as [string, string[]];
    });
}
