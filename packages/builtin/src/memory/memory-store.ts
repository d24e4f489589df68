import * as path from 'node:path';
import {
  type Logger,
  type MemoryWriteAction,
  type MemoryWriteMetadata,
  type ScanResult,
  UnsafePathError,
  checkDir,
  ensureDir,
  neutralizeMemoryText,
  removeStaleTempFiles,
  scanWrite,
  scanWriteInContext,
  silentLogger,
  withFileLock,
} from '@hermes-memory/core';
import {
  MEMORY_TEMP_PREFIX,
  type RawRead,
  readRawChecked,
  writeBackupFile,
  writeMemoryFile,
} from './atomic-file';
import {
  DEFAULT_MEMORY_CHAR_LIMIT,
  DEFAULT_USER_CHAR_LIMIT,
  FILE_NAMES,
  MEMORY_TARGETS,
  type MemoryTarget,
  charCount,
  codePointLength,
  dedupeEntries,
  formatCount,
  formatUsage,
  joinEntries,
  parseEntries,
  previewEntry,
  pyStrip,
  renderSnapshotBlock,
} from './entries';
import {
  type NewPendingWrite,
  type PendingAction,
  type PendingPayload,
  PendingStore,
  type PendingWrite,
} from './pending-store';

/** Every store operation answers with one of these; the tool serialises it as JSON. */
export type MemoryResult = { success: boolean; [key: string]: unknown };

export interface MemoryStoreOptions {
  /** Profile root; files live in `<hermesHome>/memories/`. */
  hermesHome?: string;
  /** Overrides the directory directly (tests, embedding hosts). */
  memoryDir?: string;
  /** Numbers or numeric strings (config values are coerced). */
  memoryCharLimit?: number | string;
  userCharLimit?: number | string;
  logger?: Logger;
  /** How long a mutation waits for another process's lock (default 10 s). */
  lockTimeoutMs?: number;
  /** Called after every committed add / replace / remove (the manager's mirror hook). */
  onWrite?: (
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata: MemoryWriteMetadata,
  ) => void;
  /** Failures per turn before the loop guard answers `done: true` (default 3). */
  maxFailuresPerTurn?: number;
}

export interface WriteOptions {
  /** "assistant_tool" (default), "flush", "background_review", ... */
  writeOrigin?: string;
  /** Extra metadata forwarded to `onWrite` (session id, platform, ...). */
  metadata?: MemoryWriteMetadata;
  /**
   * replace / remove only: the whole entry the write must hit. When `old_text` now locates a
   * different entry the write is refused (used when replaying a staged write).
   */
  expectedEntry?: string;
}

/** Why a write is staged instead of committed. */
export interface StageOptions {
  writeOrigin?: string;
  metadata?: MemoryWriteMetadata;
  reason?: PendingWrite['reason'];
}

/** Outcome of `applyPending`: the store's result plus what happened to the record. */
export type ApplyPendingResult = MemoryResult & {
  pending_id: string;
  /** True when the record is still pending (the write failed; `lastError` holds why). */
  kept: boolean;
};

export interface BatchOperation {
  action: string;
  content?: string;
  old_text?: string;
}

interface PlannedChange {
  entries: string[];
  message: string;
  extra?: Record<string, unknown>;
  events: Array<{ action: MemoryWriteAction; content: string; oldText?: string; previousContent?: string }>;
}

type Plan = PlannedChange | { failure: MemoryResult; counts: boolean };

const SUCCESS_NOTE = 'Write saved. This update is complete — do not repeat it.';

function coerceLimit(value: number | string | undefined, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(String(value).trim());
  return Number.isFinite(n) && n > 0 ? Math.trunc(n) : fallback;
}

/**
 * The curated memory files MEMORY.md and USER.md: a frozen snapshot for the system prompt and
 * live entries for the tool. Every mutation runs under a cross-process lock, re-reads the file,
 * and replaces it atomically, so concurrent sessions and external edits are merged, not clobbered.
 */
export class MemoryStore {
  readonly memoryDir: string;
  /**
   * Folders below this one (`memories/` under HERMES_HOME) must be real folders: nothing inside
   * HERMES_HOME is reached through a symbolic link. HERMES_HOME (or an explicit `memoryDir`) may be one.
   */
  private readonly root: string;
  /** Whether leftover `.mem_*.tmp` files were looked for yet (once per store, under the lock). */
  private swept = false;
  readonly memoryCharLimit: number;
  readonly userCharLimit: number;
  private readonly logger: Logger;
  private readonly lockTimeoutMs: number;
  private readonly maxFailures: number;
  private onWrite: MemoryStoreOptions['onWrite'];
  private readonly live: Record<MemoryTarget, string[]> = { memory: [], user: [] };
  private readonly snapshot: Record<MemoryTarget, string | null> = { memory: null, user: null };
  private failuresThisTurn = 0;
  /** Staged writes waiting for approval (`<memoryDir>/pending-writes.jsonl`). */
  readonly pending: PendingStore;

  constructor(options: MemoryStoreOptions = {}) {
    if (options.memoryDir) this.memoryDir = this.root = path.resolve(options.memoryDir);
    else if (options.hermesHome) {
      this.root = path.resolve(options.hermesHome);
      this.memoryDir = path.join(this.root, 'memories');
    } else throw new TypeError('MemoryStore needs hermesHome or memoryDir.');
    this.memoryCharLimit = coerceLimit(options.memoryCharLimit, DEFAULT_MEMORY_CHAR_LIMIT);
    this.userCharLimit = coerceLimit(options.userCharLimit, DEFAULT_USER_CHAR_LIMIT);
    this.logger = options.logger ?? silentLogger;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
    this.maxFailures = options.maxFailuresPerTurn ?? 3;
    this.onWrite = options.onWrite;
    this.pending = new PendingStore({
      memoryDir: this.memoryDir,
      root: this.root,
      lockTimeoutMs: this.lockTimeoutMs,
    });
  }

  /** Replace the write hook (the provider wires the manager's mirror after construction). */
  setOnWrite(hook: MemoryStoreOptions['onWrite']): void {
    this.onWrite = hook;
  }

  limit(target: MemoryTarget): number {
    return target === 'user' ? this.userCharLimit : this.memoryCharLimit;
  }

  pathFor(target: MemoryTarget): string {
    return path.join(this.memoryDir, FILE_NAMES[target]);
  }

  /**
   * Read both files and capture the frozen snapshot. Call at session start; writes during the
   * session never change the snapshot (it keeps the prompt-cache prefix stable). `createDir:
   * false` (read-only contexts) leaves the disk untouched.
   */
  load(options: { createDir?: boolean } = {}): this {
    const dirProblem = this.prepareDir(options.createDir !== false);
    for (const target of MEMORY_TARGETS) {
      const file = this.pathFor(target);
      const read: RawRead = dirProblem
        ? { raw: '', ok: false, exists: true, problem: dirProblem }
        : readRawChecked(file);
      if (!read.ok)
        this.logger.warn(
          `Memory file ${FILE_NAMES[target]} could not be read; loading it as empty. ${read.problem ?? ''}`.trim(),
        );
      const entries = dedupeEntries(parseEntries(read.raw));
      this.live[target] = entries;
      const current = charCount(entries);
      const limit = this.limit(target);
      if (current > limit) {
        this.logger.warn(
          `Memory file ${FILE_NAMES[target]} exceeds its limit (${formatCount(current)}/${formatCount(limit)} chars); loaded in full — consolidate it.`,
        );
      }
      this.snapshot[target] =
        entries.length === 0
          ? null
          : renderSnapshotBlock(target, this.safeView(target, entries), current, limit);
    }
    return this;
  }

  /**
   * Create (or, read-only, just check) the memories folder. Answers why it cannot be used — a
   * symbolic link or a file in its place — and throws for anything else (a folder that cannot be
   * created is an error for the caller, not an empty memory).
   */
  private prepareDir(create: boolean): string | undefined {
    try {
      if (create) ensureDir(this.memoryDir, { root: this.root });
      else checkDir(this.memoryDir, { root: this.root });
      return undefined;
    } catch (error) {
      if (UnsafePathError.isInstance(error)) return error.message;
      throw error;
    }
  }

  /** The frozen block captured by the last `load()`, or null when the target had no entries. */
  formatForSystemPrompt(target: MemoryTarget): string | null {
    return this.snapshot[target];
  }

  /** Live entries (what the files held after this store's last read or write). */
  entries(target: MemoryTarget): readonly string[] {
    return this.live[target];
  }

  usage(target: MemoryTarget): { current: number; limit: number; text: string } {
    const current = charCount(this.live[target]);
    const limit = this.limit(target);
    return { current, limit, text: formatUsage(current, limit) };
  }

  /** Start of a user turn: clears the consolidation-loop counter. */
  resetTurn(): void {
    this.failuresThisTurn = 0;
  }

  async add(target: MemoryTarget, content: string, options: WriteOptions = {}): Promise<MemoryResult> {
    // Stored text is neutralised: an entry can never open, close or imitate the recall fence.
    const text = neutralizeMemoryText(pyStrip(String(content ?? '')));
    if (!text) return { success: false, error: 'Content cannot be empty.' };
    const scan = this.scan(text);
    if (!scan.ok) return { success: false, error: scan.message };
    return this.mutate(
      target,
      (entries) => {
        if (entries.includes(text)) {
          return { entries, message: 'Entry already exists (no duplicate added).', events: [] };
        }
        const next = [...entries, text];
        const total = charCount(next);
        const limit = this.limit(target);
        if (total > limit) {
          const cur = charCount(entries);
          return {
            counts: true,
            failure: {
              success: false,
              error:
                `Memory at ${formatCount(cur)}/${formatCount(limit)} chars. Adding this entry (${formatCount(codePointLength(text))} chars) would exceed the limit. ` +
                'Consolidate now: merge related entries with replace or drop stale ones with remove, then retry this add in the same turn.',
              current_entries: this.safeView(target, entries),
              usage: `${formatCount(cur)}/${formatCount(limit)}`,
            },
          };
        }
        return { entries: next, message: 'Entry added.', events: [{ action: 'add', content: text }] };
      },
      { skipDrift: true, options },
    );
  }

  async replace(
    target: MemoryTarget,
    oldText: string,
    newContent: string,
    options: WriteOptions = {},
  ): Promise<MemoryResult> {
    const old = pyStrip(String(oldText ?? ''));
    const text = neutralizeMemoryText(pyStrip(String(newContent ?? '')));
    if (!old) return { success: false, error: 'old_text cannot be empty.' };
    if (!text)
      return { success: false, error: "new_content cannot be empty. Use 'remove' to delete entries." };
    const scan = this.scan(text);
    if (!scan.ok) return { success: false, error: scan.message };
    return this.mutate(
      target,
      (entries) => {
        const found = this.locate(target, entries, old);
        if ('failure' in found) return found;
        const previous = entries[found.index]!;
        const moved = this.checkExpected(previous, options.expectedEntry);
        if (moved) return moved;
        const next = dedupeEntries(entries.map((e, i) => (i === found.index ? text : e)));
        const total = charCount(next);
        const limit = this.limit(target);
        if (total > limit) {
          return {
            counts: true,
            failure: {
              success: false,
              error:
                `Replacement would put memory at ${formatCount(total)}/${formatCount(limit)} chars. ` +
                'Shorten the new content or remove other entries first, then retry in the same turn.',
              current_entries: this.safeView(target, entries),
              usage: `${formatCount(charCount(entries))}/${formatCount(limit)}`,
            },
          };
        }
        return {
          entries: next,
          message: 'Entry replaced.',
          extra: { replaced_entry: previous },
          events: [{ action: 'replace', content: text, oldText: old, previousContent: previous }],
        };
      },
      { skipDrift: false, options },
    );
  }

  async remove(target: MemoryTarget, oldText: string, options: WriteOptions = {}): Promise<MemoryResult> {
    const old = pyStrip(String(oldText ?? ''));
    if (!old) return { success: false, error: 'old_text cannot be empty.' };
    return this.mutate(
      target,
      (entries) => {
        const found = this.locate(target, entries, old);
        if ('failure' in found) return found;
        const previous = entries[found.index]!;
        const moved = this.checkExpected(previous, options.expectedEntry);
        if (moved) return moved;
        return {
          entries: entries.filter((_, i) => i !== found.index),
          message: 'Entry removed.',
          extra: { removed_entry: previous },
          events: [{ action: 'remove', content: previous, oldText: old, previousContent: previous }],
        };
      },
      { skipDrift: false, options },
    );
  }

  /**
   * All-or-nothing batch of add / replace / remove on one target. Every content is scanned first;
   * ops apply to a working copy in order; the budget is judged on the final state only.
   */
  async applyBatch(
    target: MemoryTarget,
    operations: readonly unknown[],
    options: WriteOptions = {},
  ): Promise<MemoryResult> {
    const parsed = parseBatchOps(operations);
    if ('failure' in parsed) return parsed.counts ? this.countFailure(parsed.failure) : parsed.failure;
    const ops = parsed.ops;
    const abort = batchAbort;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op.action === 'remove') continue;
      const scan = this.scan(op.content);
      if (!scan.ok) return { success: false, error: `Operation ${i + 1}: ${scan.message}` };
    }
    return this.mutate(
      target,
      (entries) => {
        let work = [...entries];
        const events: PlannedChange['events'] = [];
        const replaced: Record<string, string> = {};
        let applied = 0;
        for (let i = 0; i < ops.length; i++) {
          const op = ops[i]!;
          if (op.action === 'add') {
            if (work.includes(op.content)) continue; // duplicate add: a no-op, not a failure
            work.push(op.content);
            events.push({ action: 'add', content: op.content });
            applied++;
            continue;
          }
          const found = this.locate(target, work, op.old, false);
          if ('failure' in found) {
            return { counts: true, failure: abort(i + 1, op.action, String(found.failure.error)) };
          }
          const previous = work[found.index]!;
          if (op.action === 'replace') {
            work = dedupeEntries(work.map((e, j) => (j === found.index ? op.content : e)));
            replaced[String(i + 1)] = previous;
            events.push({
              action: 'replace',
              content: op.content,
              oldText: op.old,
              previousContent: previous,
            });
          } else {
            work = work.filter((_, j) => j !== found.index);
            events.push({ action: 'remove', content: previous, oldText: op.old, previousContent: previous });
          }
          applied++;
        }
        if (entries.length > 0 && work.length === 0) {
          return {
            counts: true,
            failure: {
              success: false,
              error: `Refusing a batch that would remove every entry from ${FILE_NAMES[target]}. Keep at least one entry, or remove entries individually.`,
            },
          };
        }
        const total = charCount(work);
        const limit = this.limit(target);
        if (total > limit) {
          return {
            counts: true,
            failure: {
              success: false,
              error:
                `Batch would put memory at ${formatCount(total)}/${formatCount(limit)} chars. ` +
                'Consolidate further (merge or remove entries) and retry. No operations were applied (batch is all-or-nothing).',
              usage: `${formatCount(charCount(entries))}/${formatCount(limit)}`,
            },
          };
        }
        return {
          entries: work,
          message: `Applied ${applied} operation(s).`,
          extra: Object.keys(replaced).length > 0 ? { replaced_entries: replaced } : {},
          events,
        };
      },
      { skipDrift: false, options },
    );
  }

  // ── staged writes (write approval) ─────────────────────────────────────────────────────

  /**
   * Stage a write for approval instead of committing it. Contents are scanned first (blocked
   * content is never persisted, not even as a proposal); a single replace/remove pins the entry
   * `old_text` matches now, so approving later can never hit a different entry. Answers the
   * tool's staged shape `{success, staged, pending_id, message}`.
   */
  async stageWrite(
    target: MemoryTarget,
    action: PendingAction,
    payload: PendingPayload,
    options: StageOptions = {},
  ): Promise<MemoryResult> {
    const contents =
      action === 'batch'
        ? (payload.operations ?? []).map((op) => opContent(op))
        : action === 'remove'
          ? []
          : [payload.content ?? ''];
    for (let i = 0; i < contents.length; i++) {
      const text = contents[i]?.trim();
      if (!text) continue;
      const scan = this.scan(text);
      if (!scan.ok) {
        return {
          success: false,
          error: action === 'batch' ? `Operation ${i + 1}: ${scan.message}` : scan.message,
        };
      }
    }
    const input: NewPendingWrite = {
      target,
      action,
      payload: cleanPayload(action, payload),
      origin: options.writeOrigin ?? options.metadata?.writeOrigin ?? 'assistant_tool',
      reason: options.reason ?? 'write_approval',
      summary: summarise(target, action, payload),
    };
    if (options.metadata && Object.keys(options.metadata).length > 0)
      input.metadata = { ...options.metadata };
    if (action === 'batch') {
      const parsed = parseBatchOps(payload.operations ?? []);
      if ('failure' in parsed) return parsed.failure;
    }
    if ((action === 'replace' || action === 'remove') && payload.old_text) {
      const pinned = this.pinEntry(target, pyStrip(payload.old_text));
      if (pinned !== undefined) input.matchedEntry = pinned;
    }
    let record: PendingWrite;
    try {
      record = await this.pending.stage(input);
    } catch (error) {
      return { success: false, error: `Could not stage the memory write: ${errorText(error)}` };
    }
    const why =
      input.reason === 'background_review'
        ? 'Background review may only add; this change was staged for the user to approve and was not applied.'
        : 'Staged for approval (write_approval is on). Not yet saved — the user reviews pending memory writes before they are applied.';
    return { success: true, staged: true, pending_id: record.id, message: why };
  }

  /** Staged writes, oldest first. */
  listPending(): PendingWrite[] {
    return this.pending.list();
  }

  /**
   * Commit a staged write: replayed through the normal store path (bypassing the gate, but
   * scanned and limit-checked again, under the memory-file lock, against the current file). On
   * success the record is removed and `onWrite` fires with the original `writeOrigin`; on failure
   * the record stays, carrying the reason in `lastError`. The pending lock is held throughout, so
   * two approvers cannot apply one record twice.
   */
  async applyPending(id: string): Promise<ApplyPendingResult> {
    const failures = this.failuresThisTurn; // approvals are not the model's consolidation attempts
    try {
      const out = await this.pending.withRecord(id, async (record) => {
        const result = await this.replay(record);
        if (result.success) return { value: result, keep: null };
        const keep: PendingWrite = {
          ...record,
          lastError: String(result.error ?? 'unknown error'),
          lastAttemptAt: new Date().toISOString(),
        };
        return { value: result, keep };
      });
      if (!out.found) {
        return {
          success: false,
          pending_id: id,
          kept: false,
          error: `No pending memory write with id '${id}'.`,
        };
      }
      return { ...out.value, pending_id: id, kept: !out.value.success };
    } catch (error) {
      return {
        success: false,
        pending_id: id,
        kept: true,
        error: `Could not apply the pending write: ${errorText(error)}`,
      };
    } finally {
      this.failuresThisTurn = failures;
    }
  }

  /** Discard a staged write without applying it; false when there was no such record. */
  async rejectPending(id: string): Promise<boolean> {
    return this.pending.remove(id);
  }

  private async replay(record: PendingWrite): Promise<MemoryResult> {
    const options: WriteOptions = { writeOrigin: record.origin, metadata: record.metadata };
    const { content = '', old_text: oldText = '', operations } = record.payload;
    switch (record.action) {
      case 'add':
        return this.add(record.target, content, options);
      case 'replace':
        return this.replace(record.target, oldText, content, {
          ...options,
          expectedEntry: record.matchedEntry,
        });
      case 'remove':
        return this.remove(record.target, oldText, { ...options, expectedEntry: record.matchedEntry });
      case 'batch':
        return this.applyBatch(record.target, operations ?? [], options);
      default:
        return { success: false, error: `Unknown staged action '${String(record.action)}'.` };
    }
  }

  /** The unique entry `old` locates on disk right now, or undefined (unreadable, none, ambiguous). */
  private pinEntry(target: MemoryTarget, old: string): string | undefined {
    const read = readRawChecked(this.pathFor(target));
    if (!read.ok) return undefined;
    const entries = dedupeEntries(parseEntries(read.raw));
    const found = this.locate(target, entries, old, false);
    return 'failure' in found ? undefined : entries[found.index];
  }

  private checkExpected(previous: string, expected: string | undefined): Plan | null {
    if (expected === undefined || previous === expected) return null;
    return {
      counts: false,
      failure: {
        success: false,
        error:
          'The entry this staged change targeted has changed since it was staged; nothing was applied. Reject it and stage the change again.',
        staged_entry: expected,
        current_entry: previous,
      },
    };
  }

  // ── internals ──────────────────────────────────────────────────────────────────────────

  private scan(content: string): ScanResult {
    return scanWrite(content, { scope: 'strict' });
  }

  /**
   * Every added or replacing entry judged with the file it joins: a payload split across entries
   * ("ignore all previous" now, "instructions and …" later) is refused like a whole one.
   */
  private judgeJoined(planned: PlannedChange): Plan {
    for (const event of planned.events) {
      if (event.action === 'remove') continue;
      const others = planned.entries.filter((e) => e !== event.content);
      const scan = scanWriteInContext(event.content, others, { scope: 'strict' });
      if (!scan.ok) return { counts: true, failure: { success: false, error: scan.message } };
    }
    return planned;
  }

  /**
   * The view of entries shown to the model (snapshot and error echoes): an entry that trips the
   * scanner is replaced by a "[BLOCKED: ...]" marker; live state keeps the raw text.
   */
  safeView(target: MemoryTarget, entries: readonly string[]): string[] {
    const file = FILE_NAMES[target];
    return entries.map((entry) => {
      if (entry.startsWith('[BLOCKED:')) return entry;
      const scan = this.scan(entry);
      // Entries written before neutralising (or by another program) are neutralised on the way out.
      if (scan.ok) return neutralizeMemoryText(entry);
      if (scan.kind === 'too_large') {
        return `[BLOCKED: ${file} entry too large to scan. Removed from system prompt; use memory(action=remove) to delete the original.]`;
      }
      return `[BLOCKED: ${file} entry contained threat pattern(s): ${scan.patternId}. Removed from system prompt; use memory(action=remove) to delete the original.]`;
    });
  }

  /** Substring match with the reference's rules: exact entry wins, identical duplicates are one. */
  private locate(
    target: MemoryTarget,
    entries: readonly string[],
    old: string,
    echoEntries = true,
  ): { index: number } | { failure: MemoryResult; counts: boolean } {
    const exact = entries.indexOf(old);
    if (exact >= 0) return { index: exact };
    const matches = entries.filter((e) => e.includes(old));
    const distinct = dedupeEntries(matches);
    if (distinct.length === 0) {
      const failure: MemoryResult = { success: false, error: `No entry matched '${old}'.` };
      if (echoEntries) failure.current_entries = this.safeView(target, entries);
      return { counts: true, failure };
    }
    if (distinct.length > 1) {
      return {
        counts: true,
        failure: {
          success: false,
          error: `Multiple entries matched '${old}'. Be more specific.`,
          matches: this.safeView(target, distinct).map(previewEntry),
        },
      };
    }
    return { index: entries.indexOf(distinct[0]!) };
  }

  private countFailure(result: MemoryResult): MemoryResult {
    this.failuresThisTurn++;
    if (this.failuresThisTurn > this.maxFailures) {
      return {
        success: false,
        done: true,
        error:
          `Memory consolidation failed ${this.failuresThisTurn} times this turn. Stop retrying memory writes now; ` +
          'continue with the task and tell the user memory could not be updated.',
      };
    }
    return result;
  }

  private async mutate(
    target: MemoryTarget,
    plan: (entries: string[]) => Plan,
    ctx: { skipDrift: boolean; options: WriteOptions },
  ): Promise<MemoryResult> {
    const file = this.pathFor(target);
    let events: PlannedChange['events'] = [];
    const result = await (async () => {
      ensureDir(this.memoryDir, { root: this.root });
      return withFileLock(
        `${file}.lock`,
        (): MemoryResult => {
          this.sweepTempFiles();
          const read = readRawChecked(file);
          if (!read.ok) {
            return {
              success: false,
              error: `Refusing to write ${FILE_NAMES[target]}: the file exists but could not be read (${read.problem ?? 'permissions or invalid UTF-8'}). Nothing was changed; fix or move the file, then retry.`,
            };
          }
          const parsed = parseEntries(read.raw);
          if (!ctx.skipDrift) {
            const drift = this.detectDrift(target, file, read.raw, parsed);
            if (drift) return drift;
          }
          const entries = dedupeEntries(parsed);
          this.live[target] = entries;
          let planned = plan(entries);
          if (!('failure' in planned)) planned = this.judgeJoined(planned);
          if ('failure' in planned)
            return planned.counts ? this.countFailure(planned.failure) : planned.failure;
          // Throws on a full disk, a file-size limit or a short write, with the file untouched.
          if (planned.events.length > 0) writeMemoryFile(file, joinEntries(planned.entries));
          this.live[target] = planned.entries;
          events = planned.events;
          this.failuresThisTurn = 0;
          const usage = this.usage(target);
          return {
            success: true,
            target,
            message: planned.message,
            usage: usage.text,
            entry_count: planned.entries.length,
            ...planned.extra,
            done: true,
            note: SUCCESS_NOTE,
          };
        },
        { timeoutMs: this.lockTimeoutMs, logger: this.logger, description: 'memory file lock' },
      );
    })().catch((error: unknown): MemoryResult => {
      const reason = error instanceof Error ? error.message : String(error);
      return { success: false, error: `Memory write failed: ${reason}` };
    });
    if (result.success) this.emit(target, events, ctx.options);
    return result;
  }

  /** Remove `.mem_*.tmp` files a killed writer left (ours or the reference's; stale, regular files only). */
  private sweepTempFiles(): void {
    if (this.swept) return;
    this.swept = true;
    for (const file of removeStaleTempFiles(this.memoryDir, { prefix: MEMORY_TEMP_PREFIX }))
      this.logger.info(`Removed ${path.basename(file)}, left in ${this.memoryDir} by an interrupted write.`);
  }

  /** External-drift guard: content that would not survive parse+join, or an oversized entry. */
  private detectDrift(
    target: MemoryTarget,
    file: string,
    raw: string,
    parsed: string[],
  ): MemoryResult | null {
    const trimmed = pyStrip(raw);
    if (!trimmed) return null;
    const longest = parsed.reduce((m, e) => Math.max(m, codePointLength(e)), 0);
    if (trimmed === joinEntries(parsed) && longest <= this.limit(target)) return null;
    const bak = `${file}.bak.${Math.floor(Date.now() / 1000)}`;
    let saved: string;
    try {
      saved = writeBackupFile(bak, raw);
    } catch {
      saved = `${bak} (BACKUP FAILED, file unchanged on disk)`;
    }
    return {
      success: false,
      error:
        `Refusing to write ${FILE_NAMES[target]}: it was edited outside the memory tool and no longer parses as §-delimited entries within the limit. ` +
        `A snapshot was saved to ${saved}; the file is unchanged.`,
      drift_backup: saved,
      remediation: `Split the file into entries separated by a line containing only "§", each under ${formatCount(this.limit(target))} chars, then retry. 'add' still works.`,
    };
  }

  private emit(target: MemoryTarget, events: PlannedChange['events'], options: WriteOptions): void {
    if (!this.onWrite) return;
    for (const ev of events) {
      const metadata: MemoryWriteMetadata = {
        ...options.metadata,
        writeOrigin: options.writeOrigin ?? options.metadata?.writeOrigin ?? 'assistant_tool',
        toolName: 'memory',
      };
      if (ev.oldText !== undefined) metadata.oldText = ev.oldText;
      if (ev.previousContent !== undefined) metadata.previousContent = ev.previousContent;
      try {
        this.onWrite(ev.action, target, ev.content, metadata);
      } catch (error) {
        this.logger.warn('memory onWrite hook failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }
}

function opContent(op: unknown): string {
  if (typeof op !== 'object' || op === null) return '';
  const o = op as Record<string, unknown>;
  const c = o.content ?? o.new_text;
  return typeof c === 'string' ? c : '';
}

/** Keep only the replayable fields (trimmed), so the file holds exactly what will be applied. */
function cleanPayload(action: PendingAction, payload: PendingPayload): PendingPayload {
  if (action === 'batch') return { operations: [...(payload.operations ?? [])] };
  const out: PendingPayload = {};
  if (action !== 'remove' && payload.content !== undefined) out.content = pyStrip(payload.content);
  if (action !== 'add' && payload.old_text !== undefined) out.old_text = pyStrip(payload.old_text);
  return out;
}

function clip(text: string, n = 60): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t.length > n ? `${t.slice(0, n)}…` : t;
}

function summarise(target: MemoryTarget, action: PendingAction, p: PendingPayload): string {
  switch (action) {
    case 'add':
      return `add ${target}: "${clip(p.content ?? '')}"`;
    case 'replace':
      return `replace ${target}: "${clip(p.old_text ?? '')}" → "${clip(p.content ?? '')}"`;
    case 'remove':
      return `remove ${target}: "${clip(p.old_text ?? '')}"`;
    default:
      return `batch ${target}: ${(p.operations ?? []).length} operation(s)`;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type BatchOp = { action: 'add' | 'replace' | 'remove'; content: string; old: string };

function batchAbort(i: number, action: string, why: string): MemoryResult {
  return {
    success: false,
    error: `Operation ${i} (${action}): ${why} No operations were applied (batch is all-or-nothing).`,
  };
}

/** Structural validation of a batch (before any scan or disk access). */
function parseBatchOps(
  operations: readonly unknown[],
): { ops: BatchOp[] } | { failure: MemoryResult; counts: boolean } {
  if (!Array.isArray(operations) || operations.length === 0) {
    return {
      counts: false,
      failure: {
        success: false,
        error: "'operations' must be a non-empty list of {action, content?, old_text?}.",
      },
    };
  }
  const ops: BatchOp[] = [];
  for (let i = 0; i < operations.length; i++) {
    const n = i + 1;
    const raw = operations[i];
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return { counts: true, failure: batchAbort(n, '?', 'each operation must be an object.') };
    }
    const op = raw as Record<string, unknown>;
    const action = typeof op.action === 'string' ? op.action.trim() : '';
    const contentRaw = op.content ?? op.new_text;
    const content = typeof contentRaw === 'string' ? neutralizeMemoryText(pyStrip(contentRaw)) : '';
    const old = typeof op.old_text === 'string' ? pyStrip(op.old_text) : '';
    if (action !== 'add' && action !== 'replace' && action !== 'remove') {
      return {
        counts: true,
        failure: batchAbort(n, action || '?', "unknown action. Use 'add', 'replace' or 'remove'."),
      };
    }
    if ((action === 'add' || action === 'replace') && !content) {
      return { counts: true, failure: batchAbort(n, action, `content is required for '${action}'.`) };
    }
    if ((action === 'replace' || action === 'remove') && !old) {
      return { counts: true, failure: batchAbort(n, action, `old_text is required for '${action}'.`) };
    }
    ops.push({ action, content, old });
  }
  return { ops };
}
