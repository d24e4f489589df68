import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { writeFileAtomic, writeNewFile } from '../fs/atomic-write';
import { ensureDir } from '../fs/dirs';
import { removeStaleTempFiles } from '../fs/temp-files';
import { O_NOFOLLOW, readFileNoFollow } from '../fs/no-follow';
import { type Logger, silentLogger } from '../logging/logger';
import { type Clock, systemClock } from '../resilience/clock';
import { ackLine, foldJournals, type OutboxEntry, putLine } from './journal-lines';
import { adoptOwner, journalName, listJournals, lockName, ownerGone, removeQuietly } from './owner-files';

export type { OutboxEntry } from './journal-lines';

export interface OutboxOptions {
  /** The provider's outbox folder, e.g. `${HERMES_HOME}/honcho/outbox` (created 0700). */
  dir: string;
  /** Folders between `root` and `dir` must not be links (default: `dir` itself). */
  root?: string;
  /** Names the provider in log lines ("Honcho"). Log lines carry counts, never entry data. */
  name: string;
  logger?: Logger;
  clock?: Clock;
  /** Rewrite the journal once this many lines are acknowledged ones (default 512). */
  compactAfter?: number;
}

const C = fs.constants;
/** Temp files of the journal rewrites (`writeFileAtomic`), swept at open once a killed rewrite left one. */
const TEMP_PREFIX = '.outbox-';
const APPEND = C.O_WRONLY | C.O_APPEND | C.O_CREAT | O_NOFOLLOW;

/**
 * A provider's durable outbox (decision 0115): undelivered writes as an append-only JSON-lines
 * journal per process under HERMES_HOME, so a shutdown during an outage, a crash or a kill -9
 * does not lose them; the next process on the same home adopts them and delivers them first.
 *
 * - `add` is synchronous in memory and writes in the background (serially, fsynced): callers on
 *   the hot path never wait; `flushed()` / `append` resolve when what was added is on disk.
 * - `ack` removes delivered (or deliberately dropped) entries; the journal is rewritten (atomic
 *   rename of a new file, then removal of the old) once acknowledged lines pile up, so a crash at
 *   any point leaves every unacknowledged entry in at least one file (duplicates fold by id).
 * - Each process writes only its own files, guarded by its lock; at `open` it adopts (by atomic
 *   rename) the files of processes that are gone, so two live processes never hold the same entry.
 * - In one process, an outbox whose `close()` is still finishing its writes hands every entry it
 *   holds (on disk or still queued) to the next `open` of the same folder: a provider initialized
 *   again re-opens at once, without awaiting the old close and without leaving entries for the
 *   next process (see `open`).
 */
export class Outbox<T> {
  private readonly live = new Map<string, OutboxEntry<T>>();
  private readonly adoptedIds: ReadonlySet<string>;
  private chain: Promise<void> = Promise.resolve();
  private handle: fs.promises.FileHandle | undefined;
  private file: string;
  private seq: number;
  private counter = 0;
  /** Queued writes not finished yet (close waits for them only when there are some). */
  private queued = 0;
  private ackedLines = 0;
  /** `closing` while `close()` waits for queued writes (the next `open` here may take over). */
  private state: 'open' | 'closing' | 'closed' = 'open';
  /** The outbox of this process that took this one's entries while it was closing: acks go there. */
  private successor: Outbox<T> | undefined;
  private failure: Error | undefined;
  private readonly logger: Logger;
  private readonly clock: Clock;

  private constructor(
    private readonly options: OutboxOptions,
    /** The folder's real path: outboxes of this process meet by it (`closingHere`). */
    private readonly realDir: string,
    private readonly owner: string,
    adopted: readonly OutboxEntry<T>[],
    seq: number,
    /** Lines of the adopted journals that did not parse (a torn tail after a crash, or damage). */
    readonly skippedLines: number,
    /** Of the adopted entries, how many an outbox of this process handed over while closing. */
    readonly handedOver: number,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? systemClock;
    for (const entry of adopted) this.live.set(entry.id, entry);
    this.adoptedIds = new Set(adopted.map((e) => e.id));
    this.seq = seq;
    this.file = path.join(options.dir, journalName(owner, seq));
  }

  /**
   * Take this process's place in `options.dir`: create its lock, adopt the journals of processes
   * that are gone and fold them (oldest process first) into one journal of ours. Synchronous (a
   * few small files at startup); throws FileWriteError / UnsafePathError when the folder is unusable.
   *
   * Re-opening in the same process: call `close()` on the old outbox first (no need to await it),
   * then `open`. While the old close still waits for its queued writes its lock stands (so no
   * other process takes its files); this `open` takes every entry it holds, queued ones included,
   * from memory, writes them into the new journal (fsynced) and only then lets the old one stop:
   * its remaining queued writes are skipped, it removes its files and lock, later `ack`s on it
   * go to the new outbox and `add` on it throws. An old close that already finished left its
   * files lock-less: they are adopted like a gone process's, but what it holds is taken from
   * memory (an ack after its close is not replayed) and later `ack`s on it go to the new outbox
   * too. An outbox that is still open (not closing) is never taken.
   */
  static open<T>(options: OutboxOptions): Outbox<T> {
    const dir = path.resolve(options.dir);
    ensureDir(dir, { root: options.root ?? dir });
    const realDir = fs.realpathSync(dir);
    const owner = `${process.pid}-${randomBytes(6).toString('hex')}`;
    writeNewFile(
      path.join(dir, lockName(owner)),
      JSON.stringify({ pid: process.pid, host: hostname(), ts: Date.now(), token: owner }),
      { durable: false },
    );
    let seq = 0;
    const groups: Array<OutboxEntry<T>[]> = [];
    let skipped = 0;
    const taken: string[] = [];
    const acked = new Set<string>();
    const listing = listJournals(dir);
    // Outboxes of this process whose close finished with entries left: their files are adopted
    // like a gone process's, but what they hold is taken from memory (acks since the close
    // included), and later acks on them pass to this one.
    const finished = closedHere.get(realDir);
    for (const gone of finished?.keys() ?? []) if (!listing.has(gone)) finished!.delete(gone);
    const handing: Outbox<T>[] = [];
    for (const [other, files] of listing) {
      // A closing outbox of this process has a live lock (this pid): never adopted from disk here.
      if (other === owner || !ownerGone(dir, other)) continue;
      const mine = adoptOwner(dir, other, files, owner, () => seq++);
      if (mine.length === 0) continue;
      taken.push(...mine);
      const folded = foldJournals<T>(mine.map((f) => readText(path.join(dir, f))));
      skipped += folded.skipped;
      for (const id of folded.acked) acked.add(id);
      const old = finished?.get(other) as Outbox<T> | undefined;
      if (old) {
        finished!.delete(other);
        handing.push(old);
      } else if (folded.entries.length > 0) groups.push(folded.entries);
    }
    if (finished?.size === 0) closedHere.delete(realDir);
    // Closing outboxes of this process: what they hold in memory (queued writes included).
    const closingNow = closingHere<T>(realDir);
    handing.push(...closingNow);
    let handedOver = 0;
    for (const old of handing) {
      const held = old.entries();
      // Counted as handed over only from a close still running (a re-initialize); a finished
      // one's are an earlier run's, as if another process had left them.
      if (closingNow.includes(old)) handedOver += held.length;
      if (held.length > 0) groups.push(held);
    }
    // Writers in the order they started writing; each one's entries in its own order. An id
    // acknowledged in any journal is settled (a handover a crash cut short left two copies).
    groups.sort((a, b) => a[0]!.at - b[0]!.at);
    const seen = new Set<string>();
    const adopted = groups.flat().filter((e) => !acked.has(e.id) && !seen.has(e.id) && seen.add(e.id));
    if (adopted.length > 0)
      writeFileAtomic(path.join(dir, journalName(owner, seq)), adopted.map(putLine).join(''), {
        createDirs: false,
        tempPrefix: TEMP_PREFIX,
      });
    // The folded journal is on disk (fsynced, renamed): the adopted inputs can go, and the closing
    // outboxes stop (each removes its own files once its running write is done).
    for (const f of taken) removeQuietly(path.join(dir, f));
    // A rewrite killed between its temp file and the rename left it (only ones untouched for 10 min).
    removeStaleTempFiles(dir, { prefix: TEMP_PREFIX });
    const outbox = new Outbox<T>({ ...options, dir }, realDir, owner, adopted, seq, skipped, handedOver);
    for (const old of handing) old.handTo(outbox);
    if (skipped > 0)
      outbox.logger.warn(
        `${options.name}: ${skipped} unreadable line(s) in the outbox were skipped (a write cut short by a crash).`,
      );
    return outbox;
  }

  /**
   * Count the undelivered entries on disk without taking anything (for status and doctor):
   * every journal in `dir`, live processes' included; 0 when the folder is missing or unreadable,
   * so a status line never fails on it. `counts` picks the entries that count (a provider that
   * journals more than writes, e.g. a merge base, leaves those out).
   */
  static countOnDisk<T = unknown>(dir: string, counts?: (data: T) => boolean): number {
    try {
      // Folded per owner, then across owners as `open` folds them: an entry in two journals (a
      // handover or an adoption a crash cut short) counts once, and not at all if acked in either.
      const ids = new Set<string>();
      const acked = new Set<string>();
      for (const files of listJournals(dir).values()) {
        const folded = foldJournals<T>(files.map((f) => readText(path.join(dir, f))));
        for (const e of folded.entries) if (!counts || counts(e.data)) ids.add(e.id);
        for (const id of folded.acked) acked.add(id);
      }
      let count = 0;
      for (const id of ids) if (!acked.has(id)) count += 1;
      return count;
    } catch {
      return 0;
    }
  }

  /** Unacknowledged entries, oldest first (adopted ones from earlier processes come first). */
  entries(): OutboxEntry<T>[] {
    return [...this.live.values()];
  }

  /** Whether `id` is held here: added or adopted, and not acknowledged yet. */
  has(id: string): boolean {
    return this.live.has(id);
  }

  /** Entries that came from earlier processes and are not acknowledged yet. */
  get adoptedPending(): number {
    let n = 0;
    for (const id of this.live.keys()) if (this.adoptedIds.has(id)) n += 1;
    return n;
  }

  /** Undelivered entries held (on disk once `flushed()` resolves). */
  get size(): number {
    return this.live.size;
  }

  /** Writes queued and not finished (background work, for a provider's pending-work count). */
  get writing(): number {
    return this.queued;
  }

  /** The last write error, if the disk refused one (entries then live in memory only). */
  get lastError(): Error | undefined {
    return this.failure;
  }

  /** Record `items` as undelivered; returns their entries at once and writes them in the background. */
  add(items: readonly T[]): OutboxEntry<T>[] {
    if (this.state !== 'open') throw new Error(`${this.options.name}: the outbox is closed.`);
    const at = this.clock.now();
    const entries = items.map((data) => ({ id: `${this.owner}-${this.counter++}`, at, data }));
    if (entries.length === 0) return entries;
    for (const e of entries) this.live.set(e.id, e);
    this.write(entries.map(putLine).join(''));
    return entries;
  }

  /** `add`, resolving when the entries are on disk (fsynced). */
  async append(items: readonly T[]): Promise<OutboxEntry<T>[]> {
    const entries = this.add(items);
    await this.flushed();
    return entries;
  }

  /**
   * Mark entries delivered (or dropped on purpose): they are not replayed. Written in the
   * background, also while `close()` finishes; after a handover, passed on to the new outbox.
   */
  ack(ids: Iterable<string>): void {
    if (this.successor) {
      this.successor.ack(ids);
      return;
    }
    const done = [...ids].filter((id) => this.live.delete(id));
    if (done.length === 0 || this.state === 'closed') return;
    this.ackedLines += 1;
    this.write(ackLine(done));
    if (this.ackedLines >= (this.options.compactAfter ?? 512)) {
      this.ackedLines = 0;
      this.enqueue(() => this.compact());
    }
  }

  /** Resolves when every write queued so far has finished (rejects if the last one failed). */
  async flushed(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }

  /**
   * Finish pending writes and give up the lock. Entries still undelivered stay on disk for the
   * next process; with none left the journal is removed. Returns how many stay (0 once an
   * `open` of this process took them over while this waited for its writes).
   */
  async close(): Promise<number> {
    if (this.state !== 'open') return this.live.size;
    this.state = 'closing';
    // Waits only for writes still queued: an idle close takes no turn of the event loop, so a
    // shutdown under a deadline is not held by a file handle's close (its data is already synced).
    if (this.queued > 0) {
      const here = closing.get(this.realDir) ?? new Set<Outbox<unknown>>();
      closing.set(this.realDir, here.add(this as Outbox<unknown>));
      // Acks that arrive meanwhile are queued too: wait until nothing is.
      while (this.queued > 0) await this.chain;
      this.leaveClosing();
    }
    this.state = 'closed';
    void this.closeHandle();
    if (this.successor) {
      // Handed over: the successor's journal holds every entry; ours go, the lock last.
      for (const f of listJournals(this.options.dir).get(this.owner) ?? [])
        removeQuietly(path.join(this.options.dir, f));
      removeQuietly(path.join(this.options.dir, lockName(this.owner)));
      return 0;
    }
    const left = this.live.size;
    if (left === 0) removeQuietly(this.file);
    else {
      // Lock-less from now on: the next `open` here adopts the files and takes over from this one.
      const here = closedHere.get(this.realDir) ?? new Map<string, Outbox<unknown>>();
      closedHere.set(this.realDir, here.set(this.owner, this as Outbox<unknown>));
    }
    removeQuietly(path.join(this.options.dir, lockName(this.owner)));
    return left;
  }

  private write(text: string): void {
    this.enqueue(async () => {
      // A write the disk refused left its entries in memory only: the journal is rewritten whole
      // (every live entry, this write's included) instead of appending after the gap.
      if (this.failure) return this.compact();
      this.handle ??= await fs.promises.open(this.file, APPEND, 0o600);
      const bytes = Buffer.from(text, 'utf8');
      let offset = 0;
      while (offset < bytes.length) {
        const { bytesWritten } = await this.handle.write(bytes, offset, bytes.length - offset);
        offset += bytesWritten;
      }
      await this.handle.datasync();
    });
  }

  private enqueue(task: () => Promise<void>): void {
    this.queued += 1;
    // After a handover the successor's journal holds everything: what was still queued is skipped.
    this.chain = this.chain
      .then(() => (this.successor ? undefined : task()))
      .then(
        () => {
          this.queued -= 1;
          this.failure = undefined;
        },
        (error: unknown) => {
          this.queued -= 1;
          const first = this.failure === undefined;
          this.failure = error instanceof Error ? error : new Error(String(error));
          if (first)
            this.logger.warn(
              `${this.options.name}: the outbox could not write to disk (${errorCode(error)}); undelivered writes are kept in memory only until it can, then rewritten to disk whole.`,
            );
        },
      );
  }

  /** Rewrite the journal with only the live entries (a new file, atomically), then drop the old one. */
  private async compact(): Promise<void> {
    await this.closeHandle();
    const old = this.file;
    this.seq += 1;
    this.file = path.join(this.options.dir, journalName(this.owner, this.seq));
    if (this.live.size > 0)
      writeFileAtomic(this.file, [...this.live.values()].map(putLine).join(''), {
        createDirs: false,
        tempPrefix: TEMP_PREFIX,
      });
    removeQuietly(old);
  }

  /** An `open` of this process took this closing outbox's entries (already in its journal, on disk). */
  private handTo(next: Outbox<T>): void {
    this.successor = next;
    this.live.clear();
    this.leaveClosing();
  }

  private leaveClosing(): void {
    const here = closing.get(this.realDir);
    here?.delete(this as Outbox<unknown>);
    if (here?.size === 0) closing.delete(this.realDir);
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }
}

/**
 * Outboxes of this process whose `close()` waits for queued writes, by real folder path (their
 * locks stand until they finish). Module state: one per loaded copy of core.
 */
const closing = new Map<string, Set<Outbox<unknown>>>();

/**
 * Outboxes of this process whose close finished with entries left, by real folder path and owner,
 * until an `open` here adopts their files (or the files are gone: another process took them).
 */
const closedHere = new Map<string, Map<string, Outbox<unknown>>>();

function closingHere<T>(realDir: string): Outbox<T>[] {
  return [...(closing.get(realDir) ?? [])] as unknown as Outbox<T>[];
}

function readText(file: string): string {
  const bytes = readFileNoFollow(file);
  return bytes ? Buffer.from(bytes).toString('utf8') : '';
}

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'error';
}
