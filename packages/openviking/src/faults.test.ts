import { MemoryManager } from '@hermes-memory/core';
import { collectLogs, tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenvikingProvider } from './index';
import { startFakeOpenviking } from './testing';
import { TOOL_NAMES } from './tools';

const KEY = 'ov-fault-run-key-123';
const backend = await startFakeOpenviking({ apiKey: KEY });
const home = tempHermesHome('hm-ov-faults-');
afterAll(async () => {
  await backend.close();
  home.cleanup();
});

const FAULTS = [
  { type: 'status', status: 503, retryAfter: 1 },
  { type: 'status', status: 500 },
  { type: 'timeout' },
  { type: 'reset' },
  { type: 'malformed' },
  { type: 'truncated' },
] as const;
const PREFETCH_BUDGET_MS = 600;
const TOOL_BUDGET_MS = 800;
const TURNS = 18;

const TOOL_ARGS: Record<string, unknown> = {
  [TOOL_NAMES.search]: { query: 'lighthouse keeper' },
  [TOOL_NAMES.read]: { uri: 'viking://user/default/memories' },
  [TOOL_NAMES.browse]: { action: 'list' },
  [TOOL_NAMES.remember]: { content: 'The lighthouse is painted red.' },
  [TOOL_NAMES.forget]: { uri: 'viking://user/default/memories/events/mem_000000000001.md' },
  [TOOL_NAMES.addResource]: { url: 'https://example.com/lighthouses' },
};

describe('fault run', () => {
  it('hanging, crashing (reset, truncated) and garbage answers: every turn in budget, tools always JSON, the key never leaks, and the session commits once the server recovers', async () => {
    const logs = collectLogs();
    const manager = new MemoryManager({
      logger: logs.logger,
      externalPrefetchTimeoutMs: PREFETCH_BUDGET_MS,
      toolCallTimeoutMs: TOOL_BUDGET_MS,
      redactEgress: false,
    });
    const provider = createOpenvikingProvider({
      endpoint: backend.url,
      apiKey: KEY,
      autoStart: false,
      timeoutMs: 300,
      recall: { timeoutMs: 300, requestTimeoutMs: 250 },
    });
    manager.addProvider(provider);
    await manager.initializeAll('fault-run', { hermesHome: home.path, platform: 'cli', env: {} });
    await provider.idle();
    const slowest = { prefetch: 0, sync: 0, tool: 0 };
    for (let turn = 0; turn < TURNS; turn++) {
      const fault = FAULTS[turn % FAULTS.length]!;
      backend.fail({ ...fault, count: 4 });
      await manager.onTurnStart(turn + 1, `lighthouse question ${turn}`);
      let started = performance.now();
      const recall = await manager.prefetchAll(`what about the lighthouse ${turn}?`);
      slowest.prefetch = Math.max(slowest.prefetch, performance.now() - started);
      expect(typeof recall).toBe('string');
      const tool = Object.keys(TOOL_ARGS)[turn % 6]!;
      started = performance.now();
      const answer = await manager.handleToolCall(tool, TOOL_ARGS[tool]);
      slowest.tool = Math.max(slowest.tool, performance.now() - started);
      expect(() => JSON.parse(answer), `${fault.type} ${tool}: ${answer}`).not.toThrow();
      started = performance.now();
      manager.syncAll(`Turn ${turn}: the lighthouse marker f${turn}x is noted.`, `Noted f${turn}x.`);
      manager.queuePrefetchAll(`lighthouse ${turn}`);
      slowest.sync = Math.max(slowest.sync, performance.now() - started);
    }
    backend.clearFaults();
    await provider.idle(20_000);
    // Budgets (slack for a loaded 2-core machine): recall never waits past its budget, tools keep
    // the manager's, sync returns at once.
    expect(slowest.prefetch).toBeLessThan(PREFETCH_BUDGET_MS + 500);
    expect(slowest.tool).toBeLessThan(TOOL_BUDGET_MS + 500);
    expect(slowest.sync).toBeLessThan(200);
    // After the storm: a new turn lands and the session commits into memories.
    manager.syncAll('After the storm the keeper said the lamp is fixed.', 'Good.');
    await provider.idle(20_000);
    await manager.commitSessionBoundary([], { newSessionId: 'after', reason: 'new' });
    await provider.idle(20_000);
    expect(backend.state.sessions['fault-run']!.commits).toBeGreaterThanOrEqual(1);
    expect(Object.values(backend.state.nodes).some((n) => n.content.includes('lamp is fixed'))).toBe(true);
    await manager.shutdownAll();
    const everything = [JSON.stringify(backend.requests), logs.messages().join('\n')].join('\n');
    expect(everything).not.toContain(KEY);
  }, 120_000);
});
