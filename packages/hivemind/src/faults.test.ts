import { ManualClock, MemoryManager } from '@hermes-memory/core';
import { collectLogs, tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, describe, expect, it } from 'vitest';
import { createHivemindProvider } from './index';
import { introduceBobAndCarol, settingsFor } from './test-support';
import { FAKE_NOTEBOOK_KEY, startFakeHomeserver, startFakeNotebook } from './testing';

/**
 * The fault run: hivemind (peers and notebook) as a secondary in one MemoryManager, every turn
 * against a homeserver and a notebook that fail the way real ones do. Manager, provider and HTTP
 * clients share one injected clock, so "within budget" is measured in clock time and nothing here
 * sleeps: a call that waited on a hung backend would need the clock to move.
 */
const homeserver = await startFakeHomeserver();
const notebook = await startFakeNotebook({
  entries: [{ pseudonym: 'Wandering Echo#4f2a1b', content: 'Enclave audits and attestation reports.' }],
});
afterAll(async () => {
  await homeserver.close();
  await notebook.close();
});

const FAULTS = [
  { type: 'status', status: 503, retryAfter: 1 },
  { type: 'status', status: 500 },
  { type: 'timeout' },
  { type: 'reset' },
  { type: 'malformed' },
  { type: 'truncated' },
] as const;
const PREFETCH_BUDGET_MS = 1500;
const TOOL_BUDGET_MS = 4000;
const FIRST_SYNC_WAIT_MS = 1000;
const TURNS = 13;
/** How far the clock moves between looks at a running call. */
const STEP_MS = 250;

/** Let loopback I/O and promise chains run (event-loop turns, no timers). */
async function letIoRun(turns = 10): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Drive `call` by moving the clock in steps until it settles; fail if it needs more than
 * `budgetMs` of clock time. Returns its value and the clock time it took.
 */
async function withinBudget<T>(
  clock: ManualClock,
  call: Promise<T>,
  budgetMs: number,
): Promise<{ value: T; tookMs: number }> {
  const started = clock.now();
  let settledAt: number | undefined;
  call.then(
    () => {
      settledAt = clock.now();
    },
    () => {
      settledAt = clock.now();
    },
  );
  await letIoRun();
  while (settledAt === undefined && clock.now() - started < budgetMs) {
    await clock.advance(Math.min(STEP_MS, budgetMs - (clock.now() - started)));
    await letIoRun();
  }
  if (settledAt === undefined) throw new Error(`still running after ${budgetMs} ms of clock time`);
  return { value: await call, tookMs: settledAt - started };
}

describe('fault run', () => {
  it('homeserver and notebook with 5xx and Retry-After, hangs, resets, malformed and truncated bodies: no turn over budget, tools always JSON, secrets never leak, recovery after', async () => {
    const clock = new ManualClock(Date.parse('2026-11-24T10:00:00Z'));
    const logs = collectLogs();
    const home = tempHermesHome('hm-hivemind-faults-');
    const { bob } = await introduceBobAndCarol(homeserver);
    const manager = new MemoryManager({
      clock,
      logger: logs.logger,
      externalPrefetchTimeoutMs: PREFETCH_BUDGET_MS,
      toolCallTimeoutMs: TOOL_BUDGET_MS,
    });
    const provider = createHivemindProvider(
      settingsFor(homeserver, bob, {
        timeoutMs: 1000,
        maxRetries: 2,
        firstSyncWaitMs: FIRST_SYNC_WAIT_MS,
        notebookUrl: notebook.url,
        notebookKey: FAKE_NOTEBOOK_KEY,
        notebookTimeoutMs: 1000,
      }),
      { env: {}, providerConfig: {}, clock },
    );
    expect(manager.addProvider(provider, { role: 'secondary' })).toBe(true);
    try {
      await manager.initializeAll('fault-run', {
        hermesHome: home.path,
        platform: 'cli',
        agentContext: 'primary',
        env: {},
      });
      const slowest = { prefetch: 0, tool: 0 };
      const answers: string[] = [];
      for (let turn = 1; turn <= TURNS; turn++) {
        const fault = FAULTS[(turn - 1) % FAULTS.length]!;
        // Enough to outlast the background work's retries and reach the tools' own requests.
        homeserver.fail({ ...fault, count: 10 });
        notebook.fail({ ...fault, count: 6 });
        const message = `who can audit my enclave? (${turn})`;
        await manager.onTurnStart(turn, message);
        // Only the first turn may wait (for the first sync, at most firstSyncWaitMs); later turns
        // are served from memory with the clock standing still.
        const recall = await withinBudget(
          clock,
          manager.prefetchAll(message),
          turn === 1 ? FIRST_SYNC_WAIT_MS : 0,
        );
        expect(typeof recall.value).toBe('string');
        slowest.prefetch = Math.max(slowest.prefetch, turn === 1 ? 0 : recall.tookMs);
        for (const [tool, args] of [
          ['hivemind_list_peers', {}],
          ['hivemind_check_messages', { peer: 'carol' }],
          ['hivemind_search_notebook', { query: 'enclave audit' }],
          ['hivemind_get_peer_info', '{not json'],
        ] as const) {
          const answer = await withinBudget(clock, manager.handleToolCall(tool, args), TOOL_BUDGET_MS);
          slowest.tool = Math.max(slowest.tool, answer.tookMs);
          expect(() => JSON.parse(answer.value), `${fault.type} ${tool}: ${answer.value}`).not.toThrow();
          answers.push(answer.value);
        }
        manager.syncAll(message, 'Let me check who you know.');
        manager.queuePrefetchAll(message);
      }
      expect(slowest.prefetch).toBe(0);
      expect(slowest.tool).toBeLessThanOrEqual(TOOL_BUDGET_MS);
      // The failures reached the model as JSON errors naming the backend (or the budget).
      const failed = answers.map((a) => JSON.parse(a)).filter((a) => a.success === false);
      expect(failed.some((a) => /Matrix homeserver|timed out/.test(a.error))).toBe(true);
      expect(failed.some((a) => /Hermes notebook|timed out/.test(a.error))).toBe(true);

      // Recovery: with the faults gone, the tools answer and recall names the peer again.
      homeserver.clearFaults();
      notebook.clearFaults();
      const peers = await withinBudget(
        clock,
        manager.handleToolCall('hivemind_list_peers', {}),
        TOOL_BUDGET_MS,
      );
      expect(JSON.parse(peers.value)).toMatchObject({ success: true, count: 1 });
      const found = await withinBudget(
        clock,
        manager.handleToolCall('hivemind_search_notebook', { query: 'enclave' }),
        TOOL_BUDGET_MS,
      );
      expect(JSON.parse(found.value).results).toEqual([
        { author: 'Wandering Echo#4f2a1b', text: 'Enclave audits and attestation reports.' },
      ]);
      manager.queuePrefetchAll('anything new?');
      await withinBudget(clock, provider.idle(), TOOL_BUDGET_MS);
      await manager.onTurnStart(TURNS + 1, 'anything new?');
      const recall = await withinBudget(clock, manager.prefetchAll('anything new?'), 0);
      expect(recall.value).toContain('You know 1 peer: hermes-of-carol.');
      expect(manager.getProviderHealth('hivemind')?.status).toBe('ok');
    } finally {
      await manager.shutdownAll();
      home.cleanup();
    }
    const everything = [
      JSON.stringify(homeserver.requests),
      JSON.stringify(notebook.requests),
      logs.messages().join('\n'),
    ].join('\n');
    expect(everything).not.toContain(bob.accessToken);
    expect(everything).not.toContain(FAKE_NOTEBOOK_KEY);
  }, 60_000);
});
