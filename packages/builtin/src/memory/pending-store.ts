import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { type MemoryWriteMetadata, ensureDir, withFileLock } from '@hermes-memory/core';
import { readRawChecked, writeMemoryFile } from './atomic-file';
import type { MemoryTarget } from './entries';

/** The staged-writes file inside `<HERMES_HOME>/memories/` (JSON Lines, one record a line). */
export const PENDING_FILE_NAME = 'pending-writes.jsonl';

/** Record format version written in every line (`v`). */
export const PENDING_FORMAT_VERSION = 1;

export type PendingAction = 'add' | 'replace' | 'remove' | 'batch';

/** Exactly what is replayed on approval: the tool's own arguments, normalised. */
export interface PendingPayload {
  content?: string;
  old_text?: string;
  operations?: unknown[];
}

/** One staged memory write waiting for the user's approval. */
export interface PendingWrite {
  v: number;
  /** Short random id (`pw_` + 10 hex), stable across restarts. */
  id: string;
  target: MemoryTarget;
  action: PendingAction;
  payload: PendingPayload;
  /** `writeOrigin` of the original call ("assistant_tool", "background_review", ...). */
  origin: string;
  /** Why it was staged: the write-approval gate, or background review's add-only rule. */
  reason: 'write_approval' | 'background_review';
  /** One line for a review UI, e.g. `replace memory: "uses npm" → "uses pnpm"`. */
  summary: string;
  /** ISO 8601. */
  createdAt: string;
  /** Session id / platform of the original call, forwarded to `onMemoryWrite` on apply. */
  metadata?: MemoryWriteMetadata;
  /** For a single replace/remove: the whole entry `old_text` matched when staged (apply refuses if it changed). */
  matchedEntry?: string;
  /** Set when an apply attempt failed; the record stays pending. */
  lastError?: string;
  lastAttemptAt?: string;
}

export type NewPendingWrite = Omit<PendingWrite, 'v' | 'id' | 'createdAt' | 'lastError' | 'lastAttemptAt'>;

export interface PendingStoreOptions {
  memoryDir: string;
  /** Folders below this one must not be symbolic links (the memory store passes HERMES_HOME). */
  root?: string;
  lockTimeoutMs?: number;
}

/**
 * The pending-writes file. Every change takes `<file>.lock` (the same O_EXCL sidecar lock as the
 * memory files), re-reads the file, and rewrites it atomically (temp + fsync + rename, 0600), so
 * concurrent stagers in several processes never lose a record. Lines that do not parse are kept
 * verbatim on rewrite (never dropped) and skipped when listing. See decision 0303.
 */
export class PendingStore {
  readonly file: string;
  private readonly root: string;
  private readonly lockTimeoutMs: number;

  constructor(options: PendingStoreOptions) {
    this.file = path.join(path.resolve(options.memoryDir), PENDING_FILE_NAME);
    this.root = path.resolve(options.root ?? options.memoryDir);
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  }

  /** All readable records, oldest first. Readers do not lock (the file is replaced atomically). */
  list(): PendingWrite[] {
    return this.read().records;
  }

  get(id: string): PendingWrite | undefined {
    return this.list().find((r) => r.id === id);
  }

  /** Persist a new record and return it (with its id). */
  async stage(input: NewPendingWrite): Promise<PendingWrite> {
    const record: PendingWrite = {
      v: PENDING_FORMAT_VERSION,
      id: `pw_${randomBytes(5).toString('hex')}`,
      ...input,
      createdAt: new Date().toISOString(),
    };
    await this.locked((state) => {
      state.lines.push(JSON.stringify(record));
      return true;
    });
    return record;
  }

  /** Delete a record; false when it was not there. */
  async remove(id: string): Promise<boolean> {
    return this.locked((state) => {
      const i = state.indexOf(id);
      if (i < 0) return false;
      state.lines.splice(state.lineOf[i]!, 1);
      return true;
    });
  }

  /**
   * Run `fn` with the record under the pending lock (so two approvers cannot apply one record
   * twice). `fn` answers what to do with the record: drop it, or keep it with an updated copy.
   */
  async withRecord<T>(
    id: string,
    fn: (record: PendingWrite) => Promise<{ value: T; keep: PendingWrite | null }>,
  ): Promise<{ found: false } | { found: true; value: T }> {
    type Out = { found: false } | { found: true; value: T };
    return this.lockedAsync<Out>(async (state) => {
      const i = state.indexOf(id);
      const record = i >= 0 ? state.records[i] : undefined;
      if (i < 0 || !record) return { changed: false, value: { found: false } };
      const out = await fn(record);
      if (out.keep) state.lines[state.lineOf[i]!] = JSON.stringify(out.keep);
      else state.lines.splice(state.lineOf[i]!, 1);
      return { changed: true, value: { found: true, value: out.value } };
    });
  }

  // ── internals ──────────────────────────────────────────────────────────────────────────

  private read(): PendingState {
    const read = readRawChecked(this.file);
    if (!read.ok) {
      throw new Error(
        `${PENDING_FILE_NAME} exists but could not be read (${read.problem ?? 'permissions or invalid UTF-8'}); nothing was changed.`,
      );
    }
    return parseState(read.raw);
  }

  private locked<T>(fn: (state: PendingState) => T | false): Promise<T | false> {
    return this.lockedAsync(async (state) => {
      const value = fn(state);
      return { changed: value !== false, value };
    });
  }

  private async lockedAsync<T>(
    fn: (state: PendingState) => Promise<{ changed: boolean; value: T }>,
  ): Promise<T> {
    ensureDir(path.dirname(this.file), { root: this.root });
    return withFileLock(
      `${this.file}.lock`,
      async () => {
        const state = this.read();
        const { changed, value } = await fn(state);
        if (changed) {
          const text = state.lines.filter((l) => l.trim() !== '').join('\n');
          writeMemoryFile(this.file, text ? `${text}\n` : '');
        }
        return value;
      },
      { timeoutMs: this.lockTimeoutMs, description: 'memory file lock' },
    );
  }
}

interface PendingState {
  /** Every line of the file, parseable or not (unparseable ones are preserved on rewrite). */
  lines: string[];
  records: PendingWrite[];
  /** records[i] lives at lines[lineOf[i]]. */
  lineOf: number[];
  indexOf(id: string): number;
}

function parseState(raw: string): PendingState {
  const lines = raw.split('\n').filter((l) => l.trim() !== '');
  const records: PendingWrite[] = [];
  const lineOf: number[] = [];
  lines.forEach((line, n) => {
    const rec = parseRecord(line);
    if (rec) {
      records.push(rec);
      lineOf.push(n);
    }
  });
  return { lines, records, lineOf, indexOf: (id) => records.findIndex((r) => r.id === id) };
}

function parseRecord(line: string): PendingWrite | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Partial<PendingWrite>;
  if (typeof r.id !== 'string' || (r.target !== 'memory' && r.target !== 'user')) return null;
  if (!['add', 'replace', 'remove', 'batch'].includes(String(r.action))) return null;
  if (typeof r.payload !== 'object' || r.payload === null) return null;
  return r as PendingWrite;
}
