import { ManualClock } from '@hermes-memory/core';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_WAITING_CURATES } from './byterover-provider';
import { byteroverWritesOnDisk } from './outbox';
import { advanceUntilSettled, cleanupTemp, openProvider, tempDir, waitFor } from './test-support';
import { type FakeBrv, startFakeBrv } from './testing';

/**
 * Turns skipped behind a slow curate (§2.7.12: a turn that waited more than 5 s is skipped) are
 * journaled like every accepted write; once brv answers, this run curates them from the journal,
 * behind the lane, in order, once — never on `syncTurn`'s path. What a shutdown leaves goes with
 * the next start; the cap on waiting writes still bounds them. Fake brv, injected clock.
 */
const brv: FakeBrv = await startFakeBrv();
afterAll(() => brv.close());
beforeEach(() => brv.clearFaults());
afterEach(() => cleanupTemp());

const curated = () => brv.callsOf('curate').map((c) => c.argv[4]!.split('\n')[0]!);
const turn = (n: number) => `Turn ${n} is about green tea.`;
const userLine = (n: number) => `User: ${turn(n)}`;
/** Each of `lines` once among `sent`, in that order. */
const eachOnceInOrder = (sent: string[], lines: string[]) =>
  expect(sent.filter((l) => lines.includes(l))).toEqual(lines);

/** Turn 1's curate hangs until its 60 s timeout; turns 2..`last` wait behind it and are skipped. */
async function timedOutWithSkippedTurns(last: number, hermesHome = tempDir('hm-brv-skip-')) {
  const clock = new ManualClock();
  const opened = await openProvider({ brvPath: brv.path, curateTimeout: 60 }, { clock, hermesHome });
  const before = curated().length;
  brv.fail({ type: 'timeout', count: 1 });
  opened.provider.syncTurn(turn(1), 'Noted.');
  await waitFor(() => curated().length === before + 1, 'the first curate');
  for (let n = 2; n <= last; n++) opened.provider.syncTurn(turn(n), 'Noted.');
  await advanceUntilSettled(clock, opened.provider.flush(), 5000);
  return { ...opened, clock, before, hermesHome };
}

describe('ByteRover: turns skipped behind a slow curate are curated once brv answers (§2.7.12)', () => {
  it('§2.7.12 a slow curate that succeeds: the turns skipped behind it are curated right after, in order, once', async () => {
    const clock = new ManualClock();
    const { provider, logger } = await openProvider({ brvPath: brv.path }, { clock });
    const before = curated().length;
    const release = brv.hold('curate');
    provider.syncTurn(turn(1), 'Noted.');
    await waitFor(() => brv.heldRuns() === 1, 'the held curate');
    provider.syncTurn(turn(2), 'Noted.');
    provider.syncTurn(turn(3), 'Noted.');
    await clock.advance(6000);
    release();
    await provider.flush();
    expect(logger.lines.filter((l) => /a turn was not curated/.test(l))).toHaveLength(2);
    expect(curated().slice(before)).toEqual([userLine(1), userLine(2), userLine(3)]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([0, 0]);
    expect(provider.health()?.status).toBe('ok');
    await provider.shutdown();
  });

  it('§2.7.12 a slow curate that fails: the skipped turns wait until brv answers again, then go out oldest first, once', async () => {
    const { provider, before } = await timedOutWithSkippedTurns(3);
    expect(curated().slice(before)).toEqual([userLine(1)]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([3, 3]);
    // brv answers (a status call): the timed-out turn and the skipped ones are curated again.
    expect(JSON.parse(await provider.handleToolCall('brv_status', {})).error).toBeUndefined();
    await provider.flush();
    expect(curated().slice(before)).toEqual([userLine(1), userLine(1), userLine(2), userLine(3)]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([0, 0]);
    await provider.shutdown();
  });

  it('§2.7.18 skipped turns then shutdown: they stay in the journal and the next start curates them once', async () => {
    const a = await timedOutWithSkippedTurns(3);
    await a.provider.shutdown();
    expect(byteroverWritesOnDisk(a.hermesHome)).toBe(3);
    const b = await openProvider({ brvPath: brv.path }, { hermesHome: a.hermesHome });
    await b.provider.flush();
    await b.provider.shutdown();
    expect(byteroverWritesOnDisk(a.hermesHome)).toBe(0);
    const c = await openProvider({ brvPath: brv.path }, { hermesHome: a.hermesHome });
    await c.provider.flush();
    await c.provider.shutdown();
    const sent = curated().slice(a.before);
    // Turn 1 was tried (and timed out) in the first run; turns 2 and 3 were curated once, by the next.
    expect(sent).toEqual([userLine(1), userLine(1), userLine(2), userLine(3)]);
  });

  it('§2.7.12 skipped turns curated within the run are crossed off: a restart curates none of them again', async () => {
    const a = await timedOutWithSkippedTurns(3);
    await a.provider.handleToolCall('brv_status', {});
    await a.provider.flush();
    await a.provider.shutdown();
    expect(byteroverWritesOnDisk(a.hermesHome)).toBe(0);
    const b = await openProvider({ brvPath: brv.path }, { hermesHome: a.hermesHome });
    await b.provider.flush();
    await b.provider.shutdown();
    eachOnceInOrder(curated().slice(a.before), [userLine(2), userLine(3)]);
  });

  it(`§2.7.12 skipped turns stay bounded: past ${MAX_WAITING_CURATES} waiting the oldest drop (counted); the rest are curated oldest first`, async () => {
    const last = MAX_WAITING_CURATES + 3;
    const a = await timedOutWithSkippedTurns(last);
    // Turns 1 (running), 2 and 3 left the journal over the cap: none of them is curated again.
    expect(a.provider.writesOnDisk).toBe(MAX_WAITING_CURATES);
    expect(a.provider.health()?.reason).toMatch(/3 older one\(s\) dropped over the cap of 1000/);
    await a.provider.handleToolCall('brv_status', {});
    await waitFor(() => curated().length >= a.before + 3, 'two curates again');
    // Shutdown lets the running curate finish and queues no next one.
    await a.provider.shutdown();
    const again = curated().slice(a.before + 1);
    expect(again.slice(0, 2)).toEqual([userLine(4), userLine(5)]);
    expect(again).toEqual(Array.from({ length: again.length }, (_, i) => userLine(i + 4)));
    expect(byteroverWritesOnDisk(a.hermesHome)).toBe(MAX_WAITING_CURATES - again.length);
    expect(a.logger.lines.join('\n')).toMatch(/3 older one\(s\) were dropped over the cap of 1000/);
  });
});

describe('ByteRover: a write curated late is never overtaken by a newer turn (decision 0971)', () => {
  it('a turn skipped behind a slow curate goes before the later turn that was not skipped', async () => {
    const clock = new ManualClock();
    const { provider } = await openProvider({ brvPath: brv.path }, { clock });
    const before = curated().length;
    const release = brv.hold('curate');
    provider.syncTurn(turn(1), 'Noted.');
    await waitFor(() => brv.heldRuns() === 1, 'the held curate');
    provider.syncTurn(turn(2), 'Noted.');
    await clock.advance(6000);
    // Turn 3 waited for nothing: not skipped, but it waits for turn 2, which is.
    provider.syncTurn(turn(3), 'Noted.');
    release();
    await provider.flush();
    expect(curated().slice(before)).toEqual([userLine(1), userLine(2), userLine(3)]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([0, 0]);
    expect(provider.health()?.status).toBe('ok');
    await provider.shutdown();
  });

  it('a failed curate is curated again before the turn after it, which waits for it; each once', async () => {
    const { provider } = await openProvider({ brvPath: brv.path });
    const before = curated().length;
    brv.fail({ type: 'status', status: 503, count: 1 });
    provider.syncTurn(turn(1), 'Noted.');
    await provider.flush();
    expect(provider.notCuratedWrites).toBe(1);
    provider.syncTurn(turn(2), 'Noted.');
    await provider.flush();
    expect(curated().slice(before)).toEqual([userLine(1), userLine(1), userLine(2)]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([0, 0]);
    expect(provider.health()?.status).toBe('ok');
    await provider.shutdown();
  });

  it('brv still down: the turn behind the failed curate is not sent, and is counted (once) when the retry fails', async () => {
    const { provider } = await openProvider({ brvPath: brv.path });
    const before = curated().length;
    brv.fail({ type: 'status', status: 503, count: 2 });
    provider.syncTurn(turn(1), 'Noted.');
    await provider.flush();
    provider.syncTurn(turn(2), 'Noted.');
    await provider.flush();
    // One curate per turn, as before: the older write, tried again; the newer turn never went out.
    expect(curated().slice(before)).toEqual([userLine(1), userLine(1)]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([2, 2]);
    expect(provider.health()?.reason).toMatch(
      /the last 2 write\(s\) were not curated \(turn 2: held behind an uncurated write \(.*503/,
    );
    provider.syncTurn(turn(3), 'Noted.');
    await provider.flush();
    expect(curated().slice(before)).toEqual([
      userLine(1),
      userLine(1),
      userLine(1),
      userLine(2),
      userLine(3),
    ]);
    expect([provider.writesOnDisk, provider.notCuratedWrites]).toEqual([0, 0]);
    await provider.shutdown();
  });

  it('a turn waiting behind an uncurated one at shutdown is counted once, stays on disk, and the next start curates both in order', async () => {
    const hermesHome = tempDir('hm-brv-order-');
    const a = await openProvider({ brvPath: brv.path }, { hermesHome });
    const before = curated().length;
    brv.fail({ type: 'status', status: 503, count: 1 });
    a.provider.syncTurn(turn(1), 'Noted.');
    await a.provider.flush();
    const release = brv.hold('curate');
    a.provider.syncTurn(turn(2), 'Noted.');
    await waitFor(() => brv.heldRuns() === 1, 'turn 1 curated again, held');
    await a.provider.shutdown({ timeoutMs: 0 });
    release();
    expect(a.logger.lines.join('\n')).toMatch(
      /ByteRover: 2 write\(s\) accepted this session were not curated/,
    );
    expect(byteroverWritesOnDisk(hermesHome)).toBe(2);
    const b = await openProvider({ brvPath: brv.path }, { hermesHome });
    await b.provider.flush();
    await b.provider.shutdown();
    expect(byteroverWritesOnDisk(hermesHome)).toBe(0);
    expect(curated().slice(before).slice(-2)).toEqual([userLine(1), userLine(2)]);
    eachOnceInOrder(curated().slice(before + 2), [userLine(1), userLine(2)]);
  });
});
