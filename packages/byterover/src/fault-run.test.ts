import { MemoryManager } from '@hermes-memory/core';
import { afterAll, describe, expect, it } from 'vitest';
import { ByteroverProvider } from './byterover-provider';
import { cleanupTemp, recordingLogger, tempDir } from './test-support';
import { type FakeBrvFault, startFakeBrv, writeContextDoc } from './testing';

// A fault run through MemoryManager, as an agent loop drives it: brv hanging, crashing mid-stream,
// printing garbage, and reporting `success: false` with exit 0. No turn goes over its budget, every
// tool answers JSON, the failure shows in health, and recall comes back once brv does.
const brv = await startFakeBrv();
afterAll(async () => {
  await brv.close();
  cleanupTemp();
});

const PREFETCH_BUDGET_MS = 1500;
const TOOL_BUDGET_MS = 2000;
/** Room for a loaded 2-core machine on top of a budget (process kill, event-loop lag). */
const SLACK_MS = 1500;

const FAULTS: Array<[string, FakeBrvFault]> = [
  ['hanging', { type: 'timeout' }],
  ['crashing mid-stream', { type: 'reset' }],
  ['answering garbage', { type: 'malformed' }],
  ['reporting success:false with exit 0', { type: 'status', status: 500 }],
];

describe('ByteRover fault run', () => {
  it('no turn over budget, tools always JSON, failures visible in health, recall back after recovery', async () => {
    const hermesHome = tempDir('hm-brv-faults-');
    const env = { PATH: process.env.PATH, HOME: hermesHome };
    const provider = new ByteroverProvider(
      { brvPath: brv.path, queryTimeout: 5, curateTimeout: 5 },
      { env, hermesHome },
    );
    const healthChanges: string[] = [];
    const manager = new MemoryManager({
      externalPrefetchTimeoutMs: PREFETCH_BUDGET_MS,
      toolCallTimeoutMs: TOOL_BUDGET_MS,
      hookTimeoutMs: 1000,
      onHealthChange: (event) => {
        healthChanges.push(event.health.status);
      },
    });
    manager.addProvider(provider);
    await manager.initializeAll('fault-session', {
      hermesHome,
      platform: 'cli',
      env,
      logger: recordingLogger(),
    });
    writeContextDoc(
      provider.workdir,
      'drinks/tea.md',
      'Tea',
      'The user drinks green tea every morning at seven.',
    );

    let turn = 0;
    const runTurn = async (message: string) => {
      turn += 1;
      const started = Date.now();
      await manager.onTurnStart(turn, message);
      const recall = await manager.prefetchAll(message);
      manager.syncAll(message, 'Noted.');
      return { recall, ms: Date.now() - started };
    };

    const healthy = await runTurn('What tea does the user drink in the morning?');
    expect(healthy.recall).toContain('green tea');

    for (const [label, fault] of FAULTS) {
      brv.clearFaults();
      brv.fail(fault);
      const { recall, ms } = await runTurn(`While brv is ${label}, what tea does the user drink at seven?`);
      expect(typeof recall, label).toBe('string');
      expect(ms, `turn while brv is ${label}`).toBeLessThan(PREFETCH_BUDGET_MS + SLACK_MS);
      for (const [tool, args] of [
        ['brv_query', { query: 'green tea' }],
        ['brv_curate', { content: 'The user also likes oolong.' }],
        ['brv_status', {}],
        ['brv_search', { query: 'tea' }],
      ] as const) {
        const started = Date.now();
        const answer = await manager.handleToolCall(tool, args);
        expect(Date.now() - started, `${tool} while brv is ${label}`).toBeLessThan(TOOL_BUDGET_MS + SLACK_MS);
        const parsed = JSON.parse(answer) as Record<string, unknown>;
        expect(parsed.success, `${tool} while brv is ${label}: ${answer}`).toBe(false);
        expect(typeof parsed.error).toBe('string');
      }
    }
    expect(provider.health()).toMatchObject({ status: expect.stringMatching(/degraded|down/) });
    expect(healthChanges.some((s) => s === 'degraded' || s === 'down')).toBe(true);

    // brv recovers: the next turns recall again, health returns to ok.
    brv.clearFaults();
    await manager.flushPending(10_000);
    await provider.idle();
    await runTurn('Tell me again: what tea does the user drink in the morning?');
    await provider.idle();
    const recovered = await runTurn('Tell me again: what tea does the user drink in the morning?');
    expect(recovered.recall).toContain('green tea');
    // Health also waits for a curate to go through again (the writes lost during the faults).
    await manager.flushPending(10_000);
    await provider.idle();
    expect(provider.health()).toMatchObject({ status: 'ok' });
    await manager.shutdownAll();
  }, 120_000);
});
