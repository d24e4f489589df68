import { ManualClock } from '@hermes-memory/core';
import { providerCliTestContext, startChildWorker } from '@hermes-memory/testkit';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_WAITING_CURATES } from './byterover-provider';
import byteroverCli from './cli/index';
import { byteroverWritesOnDisk } from './outbox';
import { cleanupTemp, openProvider, tempDir, waitFor } from './test-support';
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

const CHILD = new URL('./outage-child.ts', import.meta.url).pathname;
const warnings = (lines: string[]) => lines.filter((l) => l.startsWith('warn '));

describe('ByteRover writes under outage and shutdown (§2.7.12, §2.7.18)', () => {
  it('turns and mirrored writes brv fails to curate are counted, in health() and at shutdown', async () => {
    const { provider, logger } = await openProvider({ brvPath: brv.path });
    const before = brv.callsOf('curate').length;
    brv.fail({ type: 'status', status: 503 });
    provider.syncTurn('The first turn is about green tea.', 'Noted.');
    provider.syncTurn('The second turn is about black coffee.', 'Noted.');
    provider.onMemoryWrite('add', 'user', 'Prefers short answers.');
    await provider.flush();
    // The writes behind the failed turn wait for it (in order): only it is tried, once per write at most.
    const tried = brv
      .callsOf('curate')
      .slice(before)
      .map((c) => c.argv[4]!);
    expect(tried.length).toBeGreaterThanOrEqual(2);
    expect(tried.length).toBeLessThanOrEqual(3);
    expect(tried.every((content) => content.includes('first turn'))).toBe(true);
    expect(provider.notCuratedWrites).toBe(3);
    const health = provider.health();
    expect(health?.status).not.toBe('ok');
    expect(health?.reason).toMatch(/the last 3 write\(s\) were not curated \(mirror add: /);
    expect(health?.reason).toMatch(/3 write\(s\) not curated since start/);
    await provider.shutdown();
    expect(warnings(logger.lines).join('\n')).toMatch(
      /ByteRover: 3 write\(s\) accepted this session were not curated \(0 abandoned at shutdown/,
    );
  });

  it('brv curates again: degraded clears, and the writes curated again from the journal leave the count', async () => {
    const { provider, logger } = await openProvider({ brvPath: brv.path });
    brv.fail({ type: 'status', status: 503 });
    provider.syncTurn('The first turn is about green tea.', 'Noted.');
    provider.onMemoryWrite('add', 'user', 'Prefers short answers.');
    await provider.flush();
    expect(provider.notCuratedWrites).toBe(2);
    brv.clearFaults();
    provider.syncTurn('The third turn is about oolong.', 'Noted.');
    await provider.flush();
    expect(provider.health()?.reason ?? '').not.toMatch(/were not curated/);
    expect([provider.notCuratedWrites, provider.writesOnDisk]).toEqual([0, 0]);
    await provider.shutdown();
    expect(warnings(logger.lines).join('\n')).not.toMatch(/were not curated/);
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

describe('ByteRover outbox: accepted writes survive the process (decision 0115)', () => {
  const curated = () => brv.callsOf('curate').map((c) => c.argv[4]!.split('\n')[0]);

  it('a restart curates what a failing brv left, once, in order; status and doctor show what waits', async () => {
    const hermesHome = tempDir('hm-brv-outbox-');
    const a = await openProvider({ brvPath: brv.path }, { hermesHome });
    brv.fail({ type: 'status', status: 503 });
    a.provider.syncTurn('The first turn is about green tea.', 'Noted.');
    a.provider.onMemoryWrite('add', 'user', 'Prefers short answers.');
    await a.provider.flush();
    expect(a.provider.writesOnDisk).toBe(2);
    expect(a.provider.health()?.reason).toMatch(
      /2 write\(s\) wait in the outbox \(curated once brv answers; the next start curates what is left\)/,
    );
    await a.provider.shutdown();
    expect(warnings(a.logger.lines).join('\n')).toMatch(/2 stay on disk and are curated at the next start/);
    expect(byteroverWritesOnDisk(hermesHome)).toBe(2);
    const cli = providerCliTestContext(byteroverCli, {
      home: hermesHome,
      env: { PATH: process.env.PATH, HOME: hermesHome },
    }).ctx;
    expect((await byteroverCli.status!(cli)).details).toMatchObject({ waiting_on_disk: 2 });
    expect((await byteroverCli.doctor!(cli)).find((c) => c.id === 'outbox')).toMatchObject({
      status: 'warn',
    });

    brv.clearFaults();
    const before = brv.callsOf('curate').length;
    const b = await openProvider({ brvPath: brv.path }, { hermesHome });
    await b.provider.flush();
    expect(curated().slice(before)).toEqual([
      'User: The first turn is about green tea.',
      '[User profile] Prefers short answers.',
    ]);
    await b.provider.shutdown();
    expect(byteroverWritesOnDisk(hermesHome)).toBe(0);
  });

  it('kill -9 while brv fails: every turn the killed agent had on disk is curated by the next start, in order', async () => {
    const hermesHome = tempDir('hm-brv-kill-');
    brv.fail({ type: 'status', status: 503 });
    const child = startChildWorker(CHILD, { args: [hermesHome, brv.path], execArgv: ['--import', 'tsx'] });
    await child.waitForLines(4, (line) => line.startsWith('held '));
    const exit = await child.kill('SIGKILL');
    expect(exit.signal ?? exit.code, exit.stderr.slice(-400)).toBe('SIGKILL');
    const held = child.lines.filter((l) => l.startsWith('held ')).length;

    brv.clearFaults();
    const before = brv.callsOf('curate').length;
    const b = await openProvider({ brvPath: brv.path }, { hermesHome });
    await b.provider.flush();
    const sent = curated().slice(before);
    // The killed agent's own last brv run may still report (an orphan child, faults cleared by
    // then): the replay is every journaled turn, in order, with at most that one around it.
    const confirmed = Array.from({ length: held }, (_, i) => `User: User turn ${i + 1} is about green tea.`);
    let next = 0;
    for (const line of sent) if (line === confirmed[next]) next += 1;
    expect(next, JSON.stringify(sent)).toBe(held);
    expect(sent.length - held).toBeLessThanOrEqual(2);
    await b.provider.shutdown();
    expect(byteroverWritesOnDisk(hermesHome)).toBe(0);
  }, 30_000);
});

describe('ByteRover outbox: bounded', () => {
  it(`brv down for long: the newest ${MAX_WAITING_CURATES} writes stay on disk; the dropped count is told`, async () => {
    const hermesHome = tempDir('hm-brv-cap-');
    const clock = new ManualClock();
    const { provider, logger } = await openProvider(
      { brvPath: brv.path, curateTimeout: 3600 },
      { clock, hermesHome },
    );
    // One curate hangs: every later write waits behind it on the lane, journaled.
    brv.fail({ type: 'timeout' });
    for (let n = 1; n <= MAX_WAITING_CURATES + 3; n++)
      provider.onMemoryWrite('add', 'memory', `Fact number ${n} about the lighthouse.`);
    await provider.journaled();
    expect(provider.writesOnDisk).toBe(MAX_WAITING_CURATES);
    expect(warnings(logger.lines).filter((l) => /dropping the oldest/.test(l))).toHaveLength(1);
    const stopping = provider.shutdown();
    await clock.advance(10_000);
    await stopping;
    expect(warnings(logger.lines).join('\n')).toMatch(/3 older one\(s\) were dropped over the cap of 1000/);
    expect(byteroverWritesOnDisk(hermesHome)).toBe(MAX_WAITING_CURATES);
  });
});

describe('ByteRover curates again within the run once brv answers (decision 0971)', () => {
  const curated = () => brv.callsOf('curate').map((c) => c.argv[4]!.split('\n')[0]);

  it('curates that failed go out again after a later curate succeeds: in order, each once; nothing waits on disk', async () => {
    const { provider } = await openProvider({ brvPath: brv.path });
    brv.fail({ type: 'status', status: 503 });
    provider.syncTurn('Turn A is about green tea.', 'Noted.');
    provider.onMemoryWrite('add', 'user', 'Write B: prefers short answers.');
    await provider.flush();
    expect([provider.notCuratedWrites, provider.writesOnDisk]).toEqual([2, 2]);
    const failedCalls = curated().length;
    brv.clearFaults();
    provider.syncTurn('Turn C is about oolong.', 'Noted.');
    await provider.flush();
    const after = curated().slice(failedCalls);
    // Turn C is newer than the failed writes: it goes after them, never before.
    expect(after).toHaveLength(3);
    expect(after[0]).toContain('Turn A');
    expect(after[1]).toContain('Write B');
    expect(after[2]).toContain('Turn C');
    expect(provider.writesOnDisk).toBe(0);
    // Curated after all: no longer counted.
    expect(provider.notCuratedWrites).toBe(0);
    expect(provider.health()?.reason ?? '').not.toMatch(/were not curated/);
    // Nothing is curated twice: another success finds nothing left.
    provider.syncTurn('Turn D is about rooibos.', 'Noted.');
    await provider.flush();
    expect(curated().slice(failedCalls)).toHaveLength(4);
    await provider.shutdown();
  });
});
