import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../logging/logger';
import { Outbox } from './outbox';
import { killAfterOks, type Msg, ns, outboxFixture } from './test-support';

const fixture = outboxFixture('hm-outbox-');
afterEach(() => fixture.cleanup());
const { home, open } = fixture;
const journals = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl'));

describe('Outbox', () => {
  it('keeps undelivered writes across a restart, in order, and drops what was acknowledged', async () => {
    const dir = path.join(home(), 'p', 'outbox');
    const a = open(dir);
    const entries = await a.append([{ n: 1 }, { n: 2 }, { n: 3 }]);
    a.ack([entries[1]!.id]);
    await a.flushed();
    expect(await a.close()).toBe(2);
    const b = open(dir);
    expect(ns(b)).toEqual([1, 3]);
    expect(b.entries().map((e) => e.id)).toEqual([entries[0]!.id, entries[2]!.id]);
    expect(b.adoptedPending).toBe(2);
    b.ack(b.entries().map((e) => e.id));
    expect(await b.close()).toBe(0);
    expect(journals(dir)).toEqual([]);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('counts nothing, without throwing, for a folder that is missing or not a folder', () => {
    const dir = home();
    expect(Outbox.countOnDisk(path.join(dir, 'absent'))).toBe(0);
    fs.writeFileSync(path.join(dir, 'file'), 'x');
    expect(Outbox.countOnDisk(path.join(dir, 'file'))).toBe(0);
  });

  it('counts on disk only the entries the filter picks (a provider that journals more than writes)', async () => {
    const dir = path.join(home(), 'p', 'outbox');
    const a = open(dir);
    const [first] = await a.append([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    a.ack([first!.id]);
    await a.flushed();
    expect(Outbox.countOnDisk(dir)).toBe(3);
    expect(Outbox.countOnDisk<Msg>(dir, (m) => m.n % 2 === 0)).toBe(2);
  });

  it('creates the folder 0700 and its files 0600', async () => {
    const dir = path.join(home(), 'p', 'outbox');
    const a = open(dir);
    await a.append([{ n: 1 }]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of fs.readdirSync(dir)) expect(fs.statSync(path.join(dir, f)).mode & 0o777, f).toBe(0o600);
  });

  it('skips a torn last line (a crash mid-append) without losing the lines before it', async () => {
    const dir = home();
    const a = open(dir);
    await a.append([{ n: 1 }, { n: 2 }]);
    await a.close();
    const [file] = journals(dir);
    fs.appendFileSync(path.join(dir, file!), '{"v":1,"put":"x-9","at":1,"data":{"n"');
    const logger = createRecordingLogger();
    const b = open(dir, { logger });
    expect(ns(b)).toEqual([1, 2]);
    expect(b.skippedLines).toBe(1);
    expect(logger.records.some((r) => r.level === 'warn' && /1 unreadable line/.test(r.message))).toBe(true);
    // The next process appends to a fresh file: the torn fragment never joins a new line.
    await b.append([{ n: 3 }]);
    await b.close();
    expect(ns(open(dir))).toEqual([1, 2, 3]);
  });

  it('a write the disk refused reaches the disk with the next one: nothing stays in memory only', async () => {
    const dir = home();
    const logger = createRecordingLogger();
    const a = open(dir, { logger });
    // The journal's path is taken by a folder: opening it to append fails (EISDIR).
    const owner = fs
      .readdirSync(dir)
      .find((f) => f.endsWith('.lock'))!
      .slice(0, -'.lock'.length);
    const blocked = path.join(dir, `${owner}.0.jsonl`);
    fs.mkdirSync(blocked);
    await expect(a.append([{ n: 1 }, { n: 2 }])).rejects.toThrow();
    expect(logger.records.filter((r) => r.level === 'warn')).toHaveLength(1);
    fs.rmdirSync(blocked);
    await a.append([{ n: 3 }]);
    expect(a.lastError).toBeUndefined();
    expect(await a.close()).toBe(3);
    expect(ns(open(dir))).toEqual([1, 2, 3]);
  });

  it('never takes the files of a live process: two live outboxes hold disjoint entries', async () => {
    const dir = home();
    const a = open(dir);
    await a.append([{ n: 1 }]);
    const b = open(dir);
    expect(b.size).toBe(0);
    await b.append([{ n: 2 }]);
    const c = open(dir);
    expect(c.size).toBe(0);
    expect(Outbox.countOnDisk(dir)).toBe(2);
    await a.close();
    // a is gone now: the next process takes its entry, b keeps its own.
    const d = open(dir);
    expect(ns(d)).toEqual([1]);
    expect(ns(b)).toEqual([2]);
  });

  it('compacts acknowledged lines and keeps every unacknowledged entry', async () => {
    const dir = home();
    const a = open(dir, { compactAfter: 4 });
    const all = await a.append(Array.from({ length: 10 }, (_, n) => ({ n })));
    for (const e of all.slice(0, 8)) a.ack([e.id]);
    await a.flushed();
    const files = journals(dir);
    expect(files).toHaveLength(1);
    // 8 acks → two compactions: the file now holds only what is live (plus no more than 3 acks).
    const lines = fs.readFileSync(path.join(dir, files[0]!), 'utf8').trim().split('\n');
    expect(lines.length).toBeLessThan(2 + 4);
    await a.close();
    expect(ns(open(dir))).toEqual([8, 9]);
  });

  it('a compaction that died before removing its input replays each entry once', async () => {
    const dir = home();
    const a = open(dir);
    await a.append([{ n: 1 }, { n: 2 }]);
    await a.close();
    const [file] = journals(dir);
    // The state a crash leaves between "new journal renamed in" and "old journal removed".
    const copy = file!.replace(/\.(\d+)\.jsonl$/, (_, s) => `.${Number(s) + 1}.jsonl`);
    fs.copyFileSync(path.join(dir, file!), path.join(dir, copy));
    expect(ns(open(dir))).toEqual([1, 2]);
  });

  it("sweeps a killed rewrite's old temp file at open, never a fresh one", async () => {
    const dir = home();
    const old = path.join(dir, '.outbox-0123456789abcdef.tmp');
    const fresh = path.join(dir, '.outbox-fedcba9876543210.tmp');
    fs.writeFileSync(old, 'partial');
    fs.writeFileSync(fresh, 'partial');
    const hourAgo = new Date(Date.now() - 3_600_000);
    fs.utimesSync(old, hourAgo, hourAgo);
    open(dir);
    expect(fs.existsSync(old)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
  });

  it('orders adopted processes by when they began writing', async () => {
    let now = 1_000;
    const clock = { now: () => now } as never;
    const dir = home();
    const later = open(dir, { clock });
    now = 5_000;
    await later.append([{ n: 2 }]);
    now = 2_000;
    const earlier = open(dir, { clock });
    await earlier.append([{ n: 1 }]);
    await later.close();
    await earlier.close();
    expect(ns(open(dir))).toEqual([1, 2]);
  });

  it('kill -9 mid-append: every write acknowledged on disk survives, in order, and a dead process is adopted', async () => {
    const dir = home();
    const out = await killAfterOks('append-child.ts', dir, 25);
    const confirmed = (out.match(/^ok (\d+)$/gm) ?? []).map((l) => Number(l.slice(3)));
    expect(Outbox.countOnDisk(dir)).toBeGreaterThanOrEqual(confirmed.length);
    const after = ns(open(dir));
    // Everything confirmed, in order; at most the one write in flight beyond it.
    expect(after.slice(0, confirmed.length)).toEqual(confirmed);
    expect(after.length - confirmed.length).toBeLessThanOrEqual(1);
    expect(after).toEqual(after.map((_, i) => i));
  }, 20_000);
});
