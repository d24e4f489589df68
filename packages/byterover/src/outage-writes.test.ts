import { ManualClock } from '@hermes-memory/core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanupTemp, openProvider, waitFor } from './test-support';
import { type FakeBrv, startFakeBrv } from './testing';

/**
 * Writes while brv cannot curate (its LLM or daemon down: `success: false`, or a hung child) and
 * at shutdown. Nothing holds a write brv did not take, so none may be lost silently: each is
 * counted, in `health()` and in the shutdown warning.
 */
const brv: FakeBrv = await startFakeBrv();
afterAll(() => brv.close());
beforeEach(() => brv.clearFaults());
afterEach(() => cleanupTemp());

const warnings = (lines: string[]) => lines.filter((l) => l.startsWith('warn '));

describe('ByteRover writes under outage and shutdown (§2.7.12, §2.7.18)', () => {
  it('turns and mirrored writes brv fails to curate are counted, in health() and at shutdown', async () => {
    const { provider, logger } = await openProvider({ brvPath: brv.path });
    brv.fail({ type: 'status', status: 503 });
    provider.syncTurn('The first turn is about green tea.', 'Noted.');
    provider.syncTurn('The second turn is about black coffee.', 'Noted.');
    provider.onMemoryWrite('add', 'user', 'Prefers short answers.');
    await provider.flush();
    expect(brv.callsOf('curate').length).toBeGreaterThanOrEqual(3);
    expect(provider.notCuratedWrites).toBe(3);
    const health = provider.health();
    expect(health?.status).not.toBe('ok');
    expect(health?.reason).toMatch(/the last 3 write\(s\) were not curated \(mirror add: /);
    expect(health?.reason).toMatch(/3 write\(s\) not curated since start/);
    // brv curates again: degraded clears; the total stays for the shutdown warning.
    brv.clearFaults();
    provider.syncTurn('The third turn is about oolong.', 'Noted.');
    await provider.flush();
    expect(provider.health()?.reason ?? '').not.toMatch(/were not curated/);
    await provider.shutdown();
    expect(warnings(logger.lines).join('\n')).toMatch(
      /ByteRover: 3 write\(s\) accepted this session were not curated \(0 abandoned at shutdown/,
    );
  });

  it('a hung brv: the running and the queued curate abandoned at shutdown are counted in the warning', async () => {
    const clock = new ManualClock();
    const { provider, logger } = await openProvider({ brvPath: brv.path, curateTimeout: 3600 }, { clock });
    brv.fail({ type: 'timeout' });
    provider.syncTurn('A turn whose curate hangs.', 'Noted.');
    await waitFor(
      () => brv.callsOf('curate').length > 0 && provider.pendingWork === 1,
      'the curate to start',
    );
    provider.onMemoryWrite('add', 'memory', 'The deploy runs on Fridays.');
    const stopping = provider.shutdown();
    await clock.advance(10_000);
    await stopping;
    expect(provider.notCuratedWrites).toBe(2);
    expect(warnings(logger.lines).join('\n')).toMatch(
      /ByteRover: 2 write\(s\) accepted this session were not curated \(2 abandoned at shutdown/,
    );
  });
});
