/**
 * Re-opening an outbox in the same process (decision 0115): an outbox whose close still waits for
 * its writes hands every entry to the next `open` of its folder, so a provider initialized again
 * delivers them in this run instead of leaving them for the next process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ackLine, putLine } from './journal-lines';
import { Outbox } from './outbox';
import { killAfterOks, ns, outboxFixture } from './test-support';

const fixture = outboxFixture('hm-handover-');
afterEach(() => fixture.cleanup());
const { home, open } = fixture;
const locks = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.lock'));

describe('Outbox handover within one process', () => {
  it('a close that finished: the next open of this process adopts its files, and acks on the old outbox reach the new one', async () => {
    const dir = home();
    const a = open(dir);
    const [one, two] = await a.append([{ n: 1 }, { n: 2 }]);
    // Nothing queued: the close finishes at once and leaves its journal lock-less.
    expect(await a.close()).toBe(2);
    const b = open(dir);
    expect(ns(b)).toEqual([1, 2]);
    expect(b.handedOver).toBe(0);
    // A delivery that was running on the old outbox ends now: it is not replayed by the new one.
    a.ack([one!.id]);
    expect(ns(b)).toEqual([2]);
    await b.flushed();
    expect(Outbox.countOnDisk(dir)).toBe(1);
    expect(() => a.add([{ n: 3 }])).toThrow(/closed/);
    b.ack([two!.id]);
    await b.close();
    expect(Outbox.countOnDisk(dir)).toBe(0);
  });

  it('close without await, then open: every pending entry is taken, queued ones included, in order, once', async () => {
    const dir = home();
    const a = open(dir);
    await a.append([{ n: 1 }, { n: 2 }]);
    // Still queued (in memory, not on disk) when the close starts.
    a.add([{ n: 3 }, { n: 4 }]);
    expect(a.writing).toBeGreaterThan(0);
    const closed = a.close();
    const b = open(dir);
    expect(ns(b)).toEqual([1, 2, 3, 4]);
    expect(b.handedOver).toBe(4);
    expect(b.adoptedPending).toBe(4);
    // The new journal already holds them (fsynced at open), before the old close has finished.
    expect(Outbox.countOnDisk(dir)).toBeGreaterThanOrEqual(4);
    expect(a.entries()).toEqual([]);
    expect(await closed).toBe(0);
    // The old outbox's files and lock are gone: only b's remain, each entry on disk once.
    expect(locks(dir)).toHaveLength(1);
    expect(Outbox.countOnDisk(dir)).toBe(4);
    await b.close();
    expect(ns(open(dir))).toEqual([1, 2, 3, 4]);
  });

  it('adds to the old outbox after close are refused; its acks reach the new one and are kept', async () => {
    const dir = home();
    const a = open(dir);
    const [first, second] = a.add([{ n: 1 }, { n: 2 }]);
    void a.close();
    expect(() => a.add([{ n: 3 }])).toThrow(/closed/);
    const b = open(dir);
    // A delivery that finishes after the handover acknowledges through the old reference.
    expect(b.has(first!.id)).toBe(true);
    a.ack([first!.id]);
    expect(ns(b)).toEqual([2]);
    expect(b.has(first!.id)).toBe(false);
    expect(a.has(second!.id)).toBe(false);
    await b.flushed();
    b.ack([second!.id]);
    expect(await b.close()).toBe(0);
    expect(Outbox.countOnDisk(dir)).toBe(0);
  });

  it('an ack that arrives while close waits for its writes is written before the lock goes', async () => {
    const dir = home();
    const a = open(dir);
    const [first] = a.add([{ n: 1 }, { n: 2 }]);
    const closed = a.close();
    a.ack([first!.id]);
    expect(await closed).toBe(1);
    expect(ns(open(dir))).toEqual([2]);
  });

  it('orders entries from a gone process and a closing outbox by when each began writing', async () => {
    let now = 1_000;
    const clock = { now: () => now } as never;
    const dir = home();
    const gone = open(dir, { clock });
    now = 2_000;
    await gone.append([{ n: 1 }]);
    await gone.close();
    const live = open(dir, { clock });
    expect(ns(live)).toEqual([1]);
    now = 3_000;
    live.add([{ n: 2 }]);
    // A second outbox of this process, still open: never taken.
    const other = open(dir, { clock });
    other.add([{ n: 9 }]);
    void live.close();
    const next = open(dir, { clock });
    expect(ns(next)).toEqual([1, 2]);
    expect(ns(other)).toEqual([9]);
  });

  it('a closing outbox is taken by the next open only: a third open finds nothing more', async () => {
    const dir = home();
    const a = open(dir);
    a.add([{ n: 1 }]);
    void a.close();
    const b = open(dir);
    const c = open(dir);
    expect(ns(b)).toEqual([1]);
    expect(c.size).toBe(0);
  });

  it('kill -9 while re-opening over and over: every entry on disk survives once, in order, and no acked one comes back', async () => {
    const dir = home();
    const out = await killAfterOks('handover-child.ts', dir, 60);
    const numbers = (word: string) =>
      (out.match(new RegExp(`^${word} (\\d+)$`, 'gm')) ?? []).map((l) => Number(l.slice(word.length + 1)));
    const acked = new Set(numbers('acked'));
    // Asked to be acknowledged: gone or not, depending on whether the ack reached the disk.
    const asked = new Set(numbers('ack'));
    const confirmed = numbers('ok').filter((n) => !asked.has(n));
    const after = ns(open(dir));
    // Each confirmed entry once, in order; beyond them at most the entries still in flight.
    expect(new Set(after).size).toBe(after.length);
    expect(after.filter((n) => confirmed.includes(n))).toEqual(confirmed);
    expect(after.filter((n) => acked.has(n))).toEqual([]);
    expect(after.length - confirmed.length).toBeLessThanOrEqual(3);
    expect(after).toEqual([...after].sort((a, b) => a - b));
  }, 20_000);

  it('an id acknowledged in one journal is not replayed from another (a handover cut short by a crash)', () => {
    const dir = home();
    const entry = { id: '111-aaaaaaaaaaaa-0', at: 1, data: { n: 1 } };
    const other = { id: '111-aaaaaaaaaaaa-1', at: 1, data: { n: 2 } };
    // The old owner's journal, and the successor's holding the same entries and an ack of one.
    fs.writeFileSync(path.join(dir, '111-aaaaaaaaaaaa.0.jsonl'), putLine(entry) + putLine(other), {
      mode: 0o600,
    });
    fs.writeFileSync(
      path.join(dir, '222-bbbbbbbbbbbb.0.jsonl'),
      putLine(entry) + putLine(other) + ackLine([entry.id]),
      { mode: 0o600 },
    );
    expect(Outbox.countOnDisk(dir)).toBe(1);
    expect(ns(open(dir))).toEqual([2]);
  });
});
