import { describe, expect, it, vi } from 'vitest';
import { createRecordingLogger } from '../logging/logger';
import { TimeoutError } from '../errors/memory-error';
import { ManualClock } from '../resilience/clock';
import { SerialQueue, withTimeout } from './index';

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SerialQueue', () => {
  it('runs tasks one at a time in FIFO order and push returns at once', async () => {
    const q = new SerialQueue();
    const order: string[] = [];
    let concurrent = 0;
    let maxConcurrent = 0;
    const gate = deferred();
    for (const id of ['a', 'b', 'c']) {
      q.push(async () => {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        if (id === 'a') await gate.promise;
        order.push(id);
        concurrent--;
      });
    }
    expect(order).toEqual([]);
    expect(q.size).toBe(3);
    gate.resolve();
    expect(await q.drain()).toBe(true);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(maxConcurrent).toBe(1);
    expect(q.size).toBe(0);
  });

  it('isolates a failing task and reports it to the logger', async () => {
    const logger = createRecordingLogger();
    const q = new SerialQueue({ name: 'q', logger });
    const ran: number[] = [];
    q.push(() => {
      throw new Error('boom');
    }, 'sync');
    q.push(() => {
      ran.push(2);
    });
    expect(await q.drain()).toBe(true);
    expect(ran).toEqual([2]);
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes('boom'))).toBe(true);
  });

  it('drain is true when empty and false on timeout', async () => {
    const q = new SerialQueue();
    expect(await q.drain(0)).toBe(true);
    const gate = deferred();
    q.push(() => gate.promise);
    expect(await q.drain(1)).toBe(false);
    gate.resolve();
    expect(await q.drain()).toBe(true);
  });

  it('close rejects later pushes with a warning; queued work still runs', async () => {
    const logger = createRecordingLogger();
    const q = new SerialQueue({ logger });
    const ran: string[] = [];
    q.push(() => {
      ran.push('before');
    });
    q.close();
    expect(q.push(() => void ran.push('after'), 'late')).toBe(false);
    await q.drain();
    expect(ran).toEqual(['before']);
    expect(logger.records.find((r) => r.level === 'warn')?.message).toContain("'late'");
  });

  it('abandon drops tasks that have not started', async () => {
    const q = new SerialQueue();
    const gate = deferred();
    const ran: string[] = [];
    q.push(() => gate.promise, 'running');
    q.push(() => void ran.push('x'), 'sync');
    q.push(() => void ran.push('y'), 'prefetch');
    await new Promise((resolve) => setImmediate(resolve)); // let the first task start
    expect(q.labels).toEqual(['running', 'sync', 'prefetch']);
    expect(q.abandon()).toEqual(['sync', 'prefetch']);
    gate.resolve();
    expect(await q.drain()).toBe(true);
    expect(ran).toEqual([]);
  });
});

describe('withTimeout', () => {
  it('resolves with the value when in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 1000)).resolves.toBe(7);
  });
  it('rejects with TimeoutError when the budget runs out', async () => {
    const never = new Promise<number>(() => {});
    const error = await withTimeout(never, 1, undefined, 'recall').catch((e: unknown) => e);
    expect(TimeoutError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('recall timed out after 1 ms');
  });
  it('rejects with the abort reason when the signal fires', async () => {
    const ctrl = new AbortController();
    const p = withTimeout(new Promise(() => {}), 60_000, ctrl.signal);
    ctrl.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    await expect(withTimeout(Promise.resolve(1), 10, ctrl.signal)).rejects.toThrow('stop');
  });
  it('passes through the rejection of the inner promise', async () => {
    await expect(withTimeout(Promise.reject(new Error('inner')), 1000)).rejects.toThrow('inner');
  });
});

describe('SerialQueue start', () => {
  it('never runs a task on the caller stack, even a synchronous one', async () => {
    const queue = new SerialQueue();
    const order: string[] = [];
    queue.push(() => {
      order.push('task');
    });
    order.push('caller');
    await Promise.resolve();
    order.push('caller-microtask');
    expect(await queue.drain()).toBe(true);
    expect(order).toEqual(['caller', 'caller-microtask', 'task']);
  });
});

describe('SerialQueue.drain with a timeout and a signal', () => {
  function blocked(clock = new ManualClock()) {
    const queue = new SerialQueue({ clock });
    const gate = deferred();
    const ran: string[] = [];
    queue.push(() => gate.promise, 'blocking');
    queue.push(() => void ran.push('next'), 'next');
    return { queue, gate, ran, clock };
  }

  it('is true at once when nothing is queued, even under an aborted signal', async () => {
    const queue = new SerialQueue({ clock: new ManualClock() });
    expect(await queue.drain(10, AbortSignal.abort())).toBe(true);
    expect(await queue.drain(undefined, new AbortController().signal)).toBe(true);
  });

  it('is false at once when the signal aborted before the wait; the work stays queued', async () => {
    const { queue, gate, ran, clock } = blocked();
    expect(await queue.drain(1000, AbortSignal.abort())).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    expect(queue.size).toBe(2);
    gate.resolve();
    expect(await queue.drain()).toBe(true);
    expect(ran).toEqual(['next']);
  });

  it('is false when the signal aborts while waiting, and lets go of its timer and listener', async () => {
    const { queue, gate, ran, clock } = blocked();
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    const waiting = queue.drain(60_000, controller.signal);
    await clock.advance(10);
    controller.abort();
    expect(await waiting).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
    gate.resolve();
    expect(await queue.drain()).toBe(true);
    expect(ran).toEqual(['next']);
  });

  it('is false when the timeout elapses first (ManualClock), and stops listening to the signal', async () => {
    const { queue, gate, clock } = blocked();
    const controller = new AbortController();
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    let answer: boolean | undefined;
    void queue.drain(500, controller.signal).then((drained) => {
      answer = drained;
    });
    await clock.advance(499);
    expect(answer).toBeUndefined();
    await clock.advance(1);
    expect(answer).toBe(false);
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
    controller.abort(); // late abort: nothing left listening, nothing thrown
    gate.resolve();
    expect(await queue.drain()).toBe(true);
  });

  it('is true when the queue empties in time, clearing its timer; a later abort changes nothing', async () => {
    const { queue, gate, ran, clock } = blocked();
    const controller = new AbortController();
    const waiting = queue.drain(500, controller.signal);
    expect(clock.pendingTimers).toBe(1);
    gate.resolve();
    expect(await waiting).toBe(true);
    expect(clock.pendingTimers).toBe(0);
    controller.abort();
    expect(ran).toEqual(['next']);
  });

  it('waits without a timeout until the signal aborts', async () => {
    const { queue, gate, clock } = blocked();
    const controller = new AbortController();
    const waiting = queue.drain(undefined, controller.signal);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(3_600_000);
    controller.abort();
    expect(await waiting).toBe(false);
    gate.resolve();
    expect(await queue.drain()).toBe(true);
  });
});
