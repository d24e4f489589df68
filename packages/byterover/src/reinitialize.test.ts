import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { byteroverWritesOnDisk } from './outbox';
import { cleanupTemp, openProvider, waitFor } from './test-support';
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
});
