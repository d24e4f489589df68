import { ManualClock } from '@hermes-memory/core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { byteroverWritesOnDisk } from './outbox';
import { cleanupTemp, openProvider, recordingLogger, waitFor } from './test-support';
import { type FakeBrv, startFakeBrv } from './testing';

/**
 * A provider initialized again in the same process (the manager after a config change) takes
 * over its own journal (core's outbox handover): a write accepted before is curated in this run,
 * once — not left in an outbox nobody closes, curated again by the next start. Fake brv.
 */
const brv: FakeBrv = await startFakeBrv();
afterAll(() => brv.close());
beforeEach(() => brv.clearFaults());
afterEach(() => cleanupTemp());

const curated = () => brv.callsOf('curate').map((c) => c.argv[4]!.split('\n')[0]!);

describe('ByteRover initialized again', () => {
  it('a write whose curate runs across the re-initialize is curated once, and nothing is left on disk', async () => {
    const { provider, hermesHome, logger } = await openProvider({ brvPath: brv.path });
    const before = curated().length;
    const release = brv.hold('curate');
    provider.syncTurn('Turn 1 is about green tea.', 'Noted.');
    await waitFor(() => brv.heldRuns() === 1, 'the held curate');
    await provider.journaled();
    provider.initialize('session-2', {
      hermesHome,
      platform: 'cli',
      agentContext: 'primary',
      env: { PATH: process.env.PATH, HOME: hermesHome },
      logger,
    });
    // The new outbox holds the write of before (taken over, not in a second open journal).
    expect(provider.writesOnDisk).toBe(1);
    release();
    await provider.flush();
    expect(curated().slice(before)).toEqual(['User: Turn 1 is about green tea.']);
    expect(provider.writesOnDisk).toBe(0);
    await provider.shutdown();
    expect(byteroverWritesOnDisk(hermesHome)).toBe(0);
  });

  it('a curate-again of the old run still running: the new run curates nothing until it ends, then each write once, in order', async () => {
    const clock = new ManualClock();
    const { provider, hermesHome } = await openProvider(
      { brvPath: brv.path },
      { clock, providerConfig: { curate_timeout: 600 } },
    );
    const before = curated().length;
    // Turn 1's curate fails: it waits to be curated again once brv answers.
    brv.fail({ type: 'status', count: 1 });
    provider.syncTurn('Turn 1 is about green tea.', 'Noted.');
    await provider.flush();
    expect(provider.notCuratedWrites).toBe(1);
    // brv answers (a status call): the old lane curates turn 1 again, and that curate is held.
    const release = brv.hold('curate');
    expect(JSON.parse(await provider.handleToolCall('brv_status', {})).error).toBeUndefined();
    await waitFor(() => brv.heldRuns() === 1, 'the held curate-again');
    // Turn 2 queues on the old lane, behind it.
    provider.syncTurn('Turn 2 is about black tea.', 'Noted.');
    // Initialized again with a shorter curate timeout; its lane is past that timeout.
    const env = { PATH: process.env.PATH, HOME: hermesHome };
    const logger = recordingLogger();
    const context = { hermesHome, platform: 'cli', agentContext: 'primary', env, logger } as const;
    provider.initialize('session-2', { ...context, providerConfig: { curate_timeout: 10 } });
    await clock.advance(11_000);
    provider.syncTurn('Turn 3 is about white tea.', 'Noted.');
    release();
    await provider.flush();
    expect(brv.heldRuns()).toBe(0);
    // Turn 1 failed once, then curated once (by the old run's curate-again); turns 2 and 3 after
    // it, by the new run (turn 2 taken over from the old outbox). A new run that curated beside
    // the old one's held curate would show turn 1 a third time here (no real-time wait needed).
    expect(curated().slice(before)).toEqual([
      'User: Turn 1 is about green tea.',
      'User: Turn 1 is about green tea.',
      'User: Turn 2 is about black tea.',
      'User: Turn 3 is about white tea.',
    ]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([0, 0]);
    // The old lane's turn 2, stale, did not judge itself skipped in the new run's state.
    expect(logger.lines.filter((l) => /not curated/.test(l))).toEqual([]);
    await provider.shutdown();
    expect(byteroverWritesOnDisk(hermesHome)).toBe(0);
  });
});
