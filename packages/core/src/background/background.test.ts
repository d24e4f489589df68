import { describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../logging/logger';
import { TimeoutError } from '../errors/memory-error';
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
