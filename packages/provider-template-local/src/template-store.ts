import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Logger } from '@hermes-memory/core';

/** What one stored entry came from: a synced turn, an explicit tool write, or a builtin mirror. */
export type EntryKind = 'turn' | 'note' | 'mirror';

export interface StoredEntry {
  id: string;
  kind: EntryKind;
  text: string;
  /** For mirrors: which builtin file the entry shadows ('memory' or 'user'). */
  target?: string;
  sessionId?: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/**
 * One line of the log. The file is append-only: an `add` line stores an entry, a `remove` line
 * deletes one. Replaying the lines in order gives the current state; nothing is ever rewritten in
 * place, so a crash can at worst tear the last line, never an older one.
 */
type LogLine = { op: 'add'; entry: StoredEntry } | { op: 'remove'; id: string };

export interface LoadReport {
  entries: number;
  /** Unparsable lines in the middle of the file (skipped, left in place, logged). */
  corruptLines: number;
  /** A partial last line from an interrupted append was found (and cut off when writable). */
  tornTail: boolean;
}

/**
 * A JSON-lines memory file: `<hermesHome>/template-memory.jsonl`, mode 0600.
 *
 * Reads happen once, at `load()`. Every mutation is one `appendFile` of complete lines followed by
 * `fsync`, and the in-memory state changes only after the bytes are durable — so what a search
 * returns is always on disk too.
 */
export class JsonlStore {
  private readonly entries = new Map<string, StoredEntry>();

  constructor(
    readonly path: string,
    private readonly logger: Logger,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Entries in insertion order (oldest first). */
  all(): StoredEntry[] {
    return [...this.entries.values()];
  }

  get(id: string): StoredEntry | undefined {
    return this.entries.get(id);
  }

  /**
   * Replay the file. A torn last line (no trailing newline) is skipped; when `repair` is true it is
   * also cut off, so the next append starts on a clean line. Read-only contexts pass `repair: false`
   * and never modify the file.
   */
  async load(options: { repair: boolean }): Promise<LoadReport> {
    let raw: string;
    try {
      raw = await fs.promises.readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { entries: 0, corruptLines: 0, tornTail: false };
      throw error;
    }
    const lastNewline = raw.lastIndexOf('\n');
    const complete = raw.slice(0, lastNewline + 1);
    const tail = raw.slice(lastNewline + 1);
    let corruptLines = 0;
    for (const line of complete.split('\n')) {
      if (line.trim() === '') continue;
      if (!this.apply(line)) corruptLines += 1;
    }
    const tornTail = tail.trim() !== '';
    if (tornTail) {
      this.logger.warn(`template memory: skipped a torn last line in ${this.path} (interrupted write)`);
      if (options.repair) await fs.promises.truncate(this.path, Buffer.byteLength(complete, 'utf8'));
    }
    if (corruptLines > 0)
      this.logger.warn(`template memory: skipped ${corruptLines} unreadable line(s) in ${this.path}`);
    return { entries: this.entries.size, corruptLines, tornTail };
  }

  /** Add an entry durably; resolves with it once it is on disk. */
  async add(
    kind: EntryKind,
    text: string,
    extra: { target?: string; sessionId?: string } = {},
  ): Promise<StoredEntry> {
    const entry: StoredEntry = { id: randomUUID(), kind, text, createdAt: Date.now(), ...extra };
    await this.append([{ op: 'add', entry }]);
    return entry;
  }

  /** Remove entries by id durably (unknown ids are ignored). */
  async remove(ids: readonly string[]): Promise<number> {
    const known = ids.filter((id) => this.entries.has(id));
    if (known.length > 0) await this.append(known.map((id) => ({ op: 'remove', id }) as const));
    return known.length;
  }

  /** Remove `oldIds` and add one entry in a single append: a replace can never half-happen. */
  async replace(
    oldIds: readonly string[],
    kind: EntryKind,
    text: string,
    extra: { target?: string; sessionId?: string } = {},
  ): Promise<StoredEntry> {
    const entry: StoredEntry = { id: randomUUID(), kind, text, createdAt: Date.now(), ...extra };
    const lines: LogLine[] = oldIds
      .filter((id) => this.entries.has(id))
      .map((id) => ({ op: 'remove', id }) as const);
    lines.push({ op: 'add', entry });
    await this.append(lines);
    return entry;
  }

  /**
   * Add entries exactly as given (ids and times kept), in one append; an id already stored is
   * skipped, so importing the same export twice adds nothing. Returns the entries added.
   */
  async importEntries(entries: readonly StoredEntry[]): Promise<StoredEntry[]> {
    const seen = new Set<string>();
    const fresh = entries.filter((entry) => {
      if (this.entries.has(entry.id) || seen.has(entry.id)) return false;
      seen.add(entry.id);
      return true;
    });
    if (fresh.length > 0) await this.append(fresh.map((entry) => ({ op: 'add', entry }) as const));
    return fresh;
  }

  private async append(lines: readonly LogLine[]): Promise<void> {
    const payload = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    // 0o600: memory files hold personal data. The mode only applies when the file is created.
    const handle = await fs.promises.open(this.path, 'a', 0o600);
    try {
      await handle.appendFile(payload, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    for (const line of lines) this.applyLine(line);
  }

  private apply(text: string): boolean {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return false;
    }
    if (!isLogLine(parsed)) return false;
    this.applyLine(parsed);
    return true;
  }

  private applyLine(line: LogLine): void {
    if (line.op === 'add') this.entries.set(line.entry.id, line.entry);
    else this.entries.delete(line.id);
  }
}

function isLogLine(value: unknown): value is LogLine {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v.op === 'remove') return typeof v.id === 'string';
  return v.op === 'add' && isStoredEntry(v.entry);
}

/** The shape of one stored entry (also what the CLI's import accepts). */
export function isStoredEntry(value: unknown): value is StoredEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.id === 'string' &&
    typeof e.text === 'string' &&
    typeof e.createdAt === 'number' &&
    (e.kind === 'turn' || e.kind === 'note' || e.kind === 'mirror')
  );
}
