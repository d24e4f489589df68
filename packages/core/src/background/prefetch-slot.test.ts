import { describe, expect, it } from 'vitest';
import { ManualClock } from '../resilience/clock';
import { PrefetchSlot, type PrefetchOutcome } from './prefetch-slot';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('PrefetchSlot', () => {
  it('serves a finished result once, without waiting', async () => {
    const slot = new PrefetchSlot<string>();
    expect(slot.start('q', async () => 'recall for q')).toBe('started');
    expect(slot.peek('q')).toBeUndefined();
    await tick();
    expect(slot.peek('q')).toBe('recall for q');
    expect(slot.take('q')).toBe('recall for q');
    expect(slot.take('q')).toBeUndefined();
  });

  it('keyed single-flight: a second start for the same key joins; another key is busy (single) or runs (per-key)', async () => {
    const slot = new PrefetchSlot<string>();
    const work = deferred<string>();
    let calls = 0;
    const run = () => {
      calls++;
      return work.promise;
    };
    expect(slot.start('a', run)).toBe('started');
    expect(slot.start('a', run)).toBe('joined');
    expect(slot.start('b', run)).toBe('busy');
    await tick();
    expect(calls).toBe(1);
    work.resolve('A');
    await tick();
    expect(slot.take('a')).toBe('A');

    const perKey = new PrefetchSlot<string>({ concurrency: 'per-key' });
    expect(perKey.start('a', () => new Promise(() => {}))).toBe('started');
    expect(perKey.start('b', async () => 'B')).toBe('started');
    await tick();
    expect(perKey.take('b')).toBe('B');
    expect(perKey.isInFlight('a')).toBe(true);
  });

  it('drops results from before a session switch, including ones that arrive later', async () => {
    const slot = new PrefetchSlot<string>();
    slot.start('done', async () => 'old session');
    await tick();
    const late = deferred<string>();
    let aborted: AbortSignal | undefined;
    slot.start('late', (signal) => {
      aborted = signal;
      return late.promise;
    });
    await tick();
    expect(slot.newGeneration()).toBe(1);
    expect(slot.take('done')).toBeUndefined();
    expect(aborted?.aborted).toBe(true);
    late.resolve('old session, late');
    await tick();
    expect(slot.take('late')).toBeUndefined();
    slot.start('late', async () => 'new session');
    await tick();
    expect(slot.take('late')).toBe('new session');
  });

  it('never serves a result older than maxAgeTurns', async () => {
    const slot = new PrefetchSlot<string>({ maxAgeTurns: 2 });
    slot.setTurn(3);
    slot.start('dialectic', async () => 'fired on turn 3');
    await tick();
    slot.setTurn(5);
    expect(slot.peek('dialectic')).toBe('fired on turn 3');
    slot.setTurn(6);
    expect(slot.take('dialectic')).toBeUndefined();
  });

  it('join waits at most its budget (bounded, clock-driven), and returns at once when nothing runs', async () => {
    const clock = new ManualClock();
    const slot = new PrefetchSlot<string>({ clock });
    expect(await slot.join('none', 5000)).toBeUndefined();
    const slow = deferred<string>();
    slot.start('base', () => slow.promise);
    let joined: string | undefined | null = null;
    const waiting = slot.join('base', 2000).then((v) => {
      joined = v;
    });
    await clock.advance(1999);
    expect(joined).toBeNull();
    await clock.advance(1);
    await waiting;
    expect(joined).toBeUndefined();
    // A result that lands within the budget is returned as soon as it lands.
    const fast = slot.join('base', 2000);
    slow.resolve('base context');
    expect(await fast).toBe('base context');
  });

  it('treats a request older than hungAfterMs as hung: it stops blocking and its late result is dropped', async () => {
    const clock = new ManualClock();
    const settled: PrefetchOutcome[] = [];
    const slot = new PrefetchSlot<string>({ clock, hungAfterMs: 10_000, onSettled: (o) => settled.push(o) });
    const hung = deferred<string>();
    let signal: AbortSignal | undefined;
    slot.start('dialectic', (s) => {
      signal = s;
      return hung.promise;
    });
    await clock.advance(9_999);
    expect(slot.start('dialectic', async () => 'x')).toBe('joined');
    expect(slot.inFlightAgeMs('dialectic')).toBe(9_999);
    await clock.advance(1);
    expect(slot.isInFlight('dialectic')).toBe(false);
    expect(signal?.aborted).toBe(true);
    expect(slot.start('dialectic', async () => 'fresh')).toBe('started');
    hung.resolve('stale');
    await tick();
    expect(slot.take('dialectic')).toBe('fresh');
    expect(settled.map((s) => s.ok)).toEqual([true]);
  });

  it('a per-request timeout aborts the work; failures are reported, not stored', async () => {
    const clock = new ManualClock();
    const settled: PrefetchOutcome[] = [];
    const slot = new PrefetchSlot<string>({ clock, onSettled: (o) => settled.push(o) });
    slot.start(
      'q',
      (signal) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        ),
      { timeoutMs: 3000 },
    );
    await clock.advance(3000);
    await tick();
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ key: 'q', ok: false, firedTurn: 0 });
    expect((settled[0]!.error as Error).message).toBe("prefetch 'q' timed out after 3000 ms");
    expect(slot.take('q')).toBeUndefined();
  });

  it('idle waits for running work within a bound; close abandons it', async () => {
    const clock = new ManualClock();
    const slot = new PrefetchSlot<string>({ clock });
    expect(await slot.idle(100)).toBe(true);
    const work = deferred<string>();
    slot.start('q', () => work.promise);
    const waiting = slot.idle(1000);
    await clock.advance(1000);
    expect(await waiting).toBe(false);
    slot.close();
    work.resolve('after close');
    await tick();
    expect(slot.take('q')).toBeUndefined();
  });
});
