/**
 * `ContinuityStore`: records, their sources, the FTS index, lifecycle transitions and association
 * edges in `continuity.db`. Every write path ends here, so the safety checks, de-duplication and
 * index maintenance happen in one place, each in one IMMEDIATE transaction.
 */
import { randomBytes } from 'node:crypto';
import { type BusyRetryOptions, InvalidArgumentError, importTransaction } from '@hermes-memory/core';
import type Database from 'better-sqlite3';
import { type Db, type OpenOptions, openDatabase } from './connection';
import {
  type ContextRecord,
  type NormalizedInput,
  type RecordInput,
  type RecordSource,
  type RecordStatus,
  type Scopes,
  contentKey,
  normalizeRecordInput,
} from './records';
import { type SecretPolicy, checkRecordSafety } from './safety';

/** Columns of `records`, as stored. */
export interface RecordRow {
  seq: number;
  id: string;
  kind: string;
  title: string;
  summary: string;
  details: string | null;
  scope_project: string | null;
  scope_user: string | null;
  scope_repo: string | null;
  scope_profile: string | null;
  tags: string;
  entities: string;
  confidence: number;
  importance: number;
  trust_level: string;
  status: string;
  status_reason: string | null;
  superseded_by: string | null;
  expires_at: string | null;
  observed_at: string;
  created_at: string;
  updated_at: string;
  content_key: string;
  skill_links: string;
}

interface SourceRow {
  record_id: string;
  ordinal: number;
  type: string;
  ref: string;
  segment_id: number | null;
  excerpt: string | null;
  session_id: string | null;
}

export interface Edge {
  src: string;
  dst: string;
  relation: string;
  weight: number;
}

/** Lifecycle actions and the statuses each one applies to (decision 0902). */
export const TRANSITIONS = {
  archive: { from: ['active', 'expired'], to: 'archived' },
  retract: { from: ['active', 'archived', 'expired', 'superseded'], to: 'retracted' },
  expire: { from: ['active'], to: 'expired' },
  supersede: { from: ['active'], to: 'superseded' },
  restore: { from: ['archived', 'retracted', 'expired', 'superseded'], to: 'active' },
} as const satisfies Record<string, { from: readonly RecordStatus[]; to: RecordStatus }>;
export type LifecycleAction = keyof typeof TRANSITIONS;

export class LifecycleError extends InvalidArgumentError {
  constructor(message: string) {
    super('record_id', message);
    this.name = 'LifecycleError';
  }
}

export interface AddOptions {
  /** What to do with a secret: refuse the write (tools) or mask it (mirrors). Default `reject`. */
  secrets?: SecretPolicy;
  /** Return the existing active record with the same content instead of adding a copy. Default true. */
  dedupe?: boolean;
}

/** A record input validated and checked by `ContinuityStore.check`, for `insertChecked`. */
export interface CheckedInput {
  readonly normalized: Readonly<NormalizedInput>;
}

export interface AddResult {
  record: ContextRecord;
  /** False when an active record with the same content already existed (its sources were merged). */
  created: boolean;
}

export interface UpdatePatch {
  kind?: RecordInput['kind'];
  title?: string;
  summary?: string;
  details?: string | null;
  scopes?: Scopes;
  tags?: readonly string[];
  entities?: readonly string[];
  confidence?: number;
  importance?: number;
  trustLevel?: RecordInput['trustLevel'];
  expiresAt?: string | null;
  skillLinks?: RecordInput['skillLinks'];
  /** Appended to the record's sources (duplicates by type + ref + excerpt are skipped). */
  addSources?: readonly RecordSource[];
}

export interface ListOptions {
  statuses?: readonly RecordStatus[];
  kinds?: readonly string[];
  limit?: number;
  offset?: number;
}

export interface ContinuityStoreOptions extends OpenOptions {
  dbPath: string;
  /** Injected clock (tests). */
  now?: () => Date;
}

function parseList<T>(json: string | null): T[] {
  if (!json) return [];
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as T[]) : [];
  } catch {
    return [];
  }
}

/** A stored record with its insertion sequence number (retrieval's handle). */
export type RankedRecord = ContextRecord & { seq: number };

/** Records kept by `readBySeq` before the cache starts over (≈ 1 KB each). */
const READ_CACHE_LIMIT = 20_000;

interface ReadCache {
  version: string;
  records: Map<number, Readonly<RankedRecord>>;
  seqOf: Map<string, number>;
  /** Edges touching each record id (either end). */
  edges: Map<string, Edge[]>;
  edgeCount: number;
}

/**
 * SQLite's BINARY collation (UTF-8 byte order) on JavaScript strings: UTF-16 code-unit order,
 * except that a surrogate pair (a character above U+FFFF) sorts after U+E000–U+FFFF, as in UTF-8.
 */
export function compareBinary(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    if (sx !== sy && (sx ? y : x) >= 0xe000) return sx ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function newRecordId(): string {
  return `ctx_${randomBytes(6).toString('hex')}`;
}

/** The FTS `sources` column: where a corpus-derived record came from (paths, headings), not excerpts. */
function sourceText(sources: readonly RecordSource[], headings: readonly string[]): string {
  const parts: string[] = [];
  for (const s of sources)
    if (s.type === 'file' || s.type === 'corpus_segment' || s.type === 'import') parts.push(s.ref);
  return [...parts, ...headings].join(' ');
}

export class ContinuityStore {
  readonly db: Db;
  readonly dbPath: string;
  readonly now: () => Date;
  private closedFlag = false;
  /** Bumped when a record changes through this store (caches key on it and on `PRAGMA data_version`). */
  private writes = 0;
  private readonly listeners = new Set<(seq: number) => void>();
  private cache: ReadCache | null = null;
  /** What `check` returned (only those are accepted by `insertChecked`). */
  private readonly checkedInputs = new WeakSet<CheckedInput>();

  constructor(options: ContinuityStoreOptions) {
    this.dbPath = options.dbPath;
    this.now = options.now ?? (() => new Date());
    this.db = openDatabase(options.dbPath, options);
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  close(): void {
    if (this.closedFlag) return;
    this.closedFlag = true;
    if (this.db.open) this.db.close();
  }

  /** Changes when this store or another connection (process) committed a write. */
  version(): string {
    return `${this.writes}:${this.externalVersion()}`;
  }

  /** Changes only when another connection (process) committed a write. */
  externalVersion(): number {
    return (this.stmt('PRAGMA data_version').get() as { data_version: number }).data_version;
  }

  /**
   * Called with the sequence number of every record whose text was written or deleted through this
   * store (the vector index re-embeds them). Writes by other connections show in `version()` only.
   */
  onRecordChange(listener: (seq: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(seq: number): void {
    this.writes++;
    for (const l of this.listeners) l(seq);
  }

  private nowIso(): string {
    return this.now().toISOString();
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** A prepared statement, compiled once per store. */
  stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  // ── records ────────────────────────────────────────────────────────────────────────────────

  /**
   * Validate, check (scanner + secrets) and store a record. With `dedupe` (default), an active
   * record with the same title and summary is returned instead, with the new sources merged in.
   */
  add(input: RecordInput, options: AddOptions = {}): AddResult {
    const normalized = checkRecordSafety(normalizeRecordInput(input), options.secrets ?? 'reject');
    return this.tx(() => this.insertNormalized(normalized, options.dedupe ?? true));
  }

  /** Add many records in one transaction (imports). Each is validated and checked like `add`. */
  addMany(inputs: readonly RecordInput[], options: AddOptions = {}): AddResult[] {
    const normalized = inputs.map((i) =>
      checkRecordSafety(normalizeRecordInput(i), options.secrets ?? 'reject'),
    );
    return this.tx(() => normalized.map((n) => this.insertNormalized(n, options.dedupe ?? true)));
  }

  /**
   * Validate and run the safety checks (scanner + secrets) without writing. Imports check every
   * line before writing any, then store them with `insertChecked`: each line is checked once.
   */
  check(input: RecordInput, secrets: SecretPolicy = 'reject'): CheckedInput {
    const checked: CheckedInput = deepFreeze({
      normalized: checkRecordSafety(normalizeRecordInput(input), secrets),
    });
    this.checkedInputs.add(checked);
    return checked;
  }

  /**
   * Store a record this store's `check` returned, inside a `transaction` (without a savepoint of
   * its own: a failure rolls the caller's whole transaction back). Under `dedupe` (default) the
   * active record with the same content is kept instead, with the new sources merged in.
   */
  insertChecked(
    checked: CheckedInput,
    options: Pick<AddOptions, 'dedupe'> = {},
  ): { id: string; created: boolean } {
    if (!this.checkedInputs.has(checked))
      throw new Error("insertChecked takes only what this store's check() returned");
    if (!this.db.inTransaction) throw new Error('insertChecked runs inside a transaction');
    return this.insertNormalizedId(checked.normalized, options.dedupe ?? true);
  }

  private insertNormalized(n: NormalizedInput, dedupe: boolean): AddResult {
    const { id, created } = this.insertNormalizedId(n, dedupe);
    return { record: this.get(id)!, created };
  }

  private insertNormalizedId(
    n: Readonly<NormalizedInput>,
    dedupe: boolean,
  ): { id: string; created: boolean } {
    const key = contentKey(n.title, n.summary);
    if (dedupe) {
      const existing = this.stmt(
        "SELECT id FROM records WHERE content_key = ? AND status = 'active' LIMIT 1",
      ).get(key) as { id: string } | undefined;
      if (existing) {
        if (n.sources.length > 0) this.appendSources(existing.id, n.sources);
        return { id: existing.id, created: false };
      }
    }
    const id = n.id ?? newRecordId();
    if (n.id && this.stmt('SELECT 1 FROM records WHERE id = ?').get(n.id))
      throw new InvalidArgumentError('id', `A record with id '${n.id}' already exists.`);
    const now = this.nowIso();
    this.insertRecord({
      ...n,
      id,
      status: 'active',
      statusReason: null,
      supersededBy: null,
      observedAt: n.observedAt ?? now,
      createdAt: now,
      updatedAt: now,
    });
    return { id, created: true };
  }

  private insertSources(id: string, sources: readonly RecordSource[], start: number): void {
    const stmt = this.stmt(
      'INSERT INTO record_sources (record_id, ordinal, type, ref, segment_id, excerpt, session_id) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    sources.forEach((s, i) => {
      stmt.run(id, start + i, s.type, s.ref, s.segmentId ?? null, s.excerpt ?? null, s.sessionId ?? null);
    });
  }

  private appendSources(id: string, sources: readonly RecordSource[]): void {
    const existing = this.sourcesOf([id]).get(id) ?? [];
    const same = (a: RecordSource, b: RecordSource) =>
      a.type === b.type &&
      a.ref === b.ref &&
      (a.excerpt ?? '') === (b.excerpt ?? '') &&
      a.segmentId === b.segmentId;
    const fresh = sources.filter((s) => !existing.some((e) => same(e, s)));
    if (fresh.length === 0) return;
    const max = this.stmt(
      'SELECT COALESCE(MAX(ordinal), -1) AS m FROM record_sources WHERE record_id = ?',
    ).get(id) as {
      m: number;
    };
    this.insertSources(id, fresh, max.m + 1);
    const row = this.stmt('SELECT seq FROM records WHERE id = ?').get(id) as { seq: number };
    this.reindex(row.seq);
  }

  /** Rewrite the FTS row of one record from its current columns and sources. */
  private reindex(seq: number): void {
    this.changed(seq);
    const row = this.stmt('SELECT * FROM records WHERE seq = ?').get(seq) as RecordRow | undefined;
    this.stmt('DELETE FROM records_fts WHERE rowid = ?').run(seq);
    if (!row) return;
    this.writeFts(seq, {
      title: row.title,
      summary: row.summary,
      details: row.details,
      tags: parseList<string>(row.tags),
      entities: parseList<string>(row.entities),
      sources: this.sourcesOf([row.id]).get(row.id) ?? [],
    });
  }

  /** Insert the FTS row of `seq` (none may exist) from the record's fields as stored. */
  private writeFts(
    seq: number,
    r: Pick<ContextRecord, 'title' | 'summary' | 'details' | 'tags' | 'entities' | 'sources'>,
  ): void {
    const segIds = r.sources
      .map((s) => s.segmentId)
      .filter((x): x is number => x !== undefined && x !== null);
    const headings = segIds.length
      ? (
          this.stmt(
            'SELECT DISTINCT heading FROM source_segments WHERE id IN (SELECT value FROM json_each(?)) AND heading IS NOT NULL',
          ).all(JSON.stringify(segIds)) as Array<{ heading: string }>
        ).map((h) => h.heading)
      : [];
    this.stmt(
      'INSERT INTO records_fts (rowid, title, summary, details, tags, entities, sources) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(
      seq,
      r.title,
      r.summary,
      r.details ?? '',
      r.tags.join(' '),
      r.entities.join(' '),
      sourceText(r.sources, headings),
    );
  }

  get(id: string): ContextRecord | undefined {
    const row = this.stmt('SELECT * FROM records WHERE id = ?').get(id) as RecordRow | undefined;
    return row ? this.toRecords([row])[0] : undefined;
  }

  /**
   * `bySeq` for retrieval, served from memory while nothing was written: the records are shared
   * between calls and frozen. Any write through this store or another process (`version()`) empties
   * the cache; inside a transaction it is bypassed, so rolled-back rows are never kept.
   */
  readBySeq(seqs: readonly number[]): ReadonlyArray<Readonly<RankedRecord>> {
    if (this.db.inTransaction) return this.bySeq(seqs);
    const cache = this.readCache();
    let missing = seqs.filter((s) => !cache.records.has(s));
    if (missing.length > 0) {
      if (cache.records.size + missing.length > READ_CACHE_LIMIT) {
        // Start over with just this call's records.
        cache.records.clear();
        cache.seqOf.clear();
        missing = [...new Set(seqs)];
      }
      for (const r of this.bySeq(missing)) {
        const frozen = deepFreeze(r);
        cache.records.set(r.seq, frozen);
        cache.seqOf.set(r.id, r.seq);
      }
    }
    const out: Array<Readonly<RankedRecord>> = [];
    for (const s of seqs) {
      const r = cache.records.get(s);
      if (r) out.push(r);
    }
    return out;
  }

  /** `byIds` for retrieval (see `readBySeq`). */
  readByIds(ids: readonly string[]): ReadonlyArray<Readonly<RankedRecord>> {
    if (this.db.inTransaction || ids.length === 0) return this.byIds(ids);
    const cache = this.readCache();
    const seqs: number[] = [];
    const unknown: string[] = [];
    for (const id of ids) {
      const seq = cache.seqOf.get(id);
      if (seq === undefined) unknown.push(id);
      else seqs.push(seq);
    }
    if (unknown.length > 0) seqs.push(...this.seqsOf(unknown));
    return this.readBySeq(seqs);
  }

  private readCache(): ReadCache {
    const version = this.version();
    if (this.cache?.version !== version)
      this.cache = { version, records: new Map(), seqOf: new Map(), edges: new Map(), edgeCount: 0 };
    return this.cache;
  }

  private seqsOf(ids: readonly string[]): number[] {
    return (
      this.stmt('SELECT seq FROM records WHERE id IN (SELECT value FROM json_each(?))').all(
        JSON.stringify(ids),
      ) as Array<{ seq: number }>
    ).map((r) => r.seq);
  }

  /** Records by sequence number, in the order given (missing ones skipped). */
  bySeq(seqs: readonly number[]): Array<ContextRecord & { seq: number }> {
    if (seqs.length === 0) return [];
    const rows = this.stmt('SELECT * FROM records WHERE seq IN (SELECT value FROM json_each(?))').all(
      JSON.stringify(seqs),
    ) as RecordRow[];
    const bySeq = new Map(rows.map((r) => [r.seq, r]));
    const ordered = seqs.map((s) => bySeq.get(s)).filter((r): r is RecordRow => r !== undefined);
    const records = this.toRecords(ordered);
    return records.map((r, i) => ({ ...r, seq: ordered[i]!.seq }));
  }

  byIds(ids: readonly string[]): Array<ContextRecord & { seq: number }> {
    if (ids.length === 0) return [];
    return this.bySeq(this.seqsOf(ids));
  }

  list(options: ListOptions = {}): ContextRecord[] {
    const statuses = options.statuses ?? ['active'];
    const where = ['status IN (SELECT value FROM json_each(?))'];
    const params: unknown[] = [JSON.stringify(statuses)];
    if (options.kinds?.length) {
      where.push('kind IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(options.kinds));
    }
    const rows = this.stmt(
      `SELECT * FROM records WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ? OFFSET ?`,
    ).all(...params, options.limit ?? -1, options.offset ?? 0) as RecordRow[];
    return this.toRecords(rows);
  }

  /** Every record, any status, in insertion order (export, dream, prune). */
  *iterate(batch = 500): Generator<ContextRecord & { seq: number }> {
    let after = 0;
    for (;;) {
      const rows = this.stmt('SELECT * FROM records WHERE seq > ? ORDER BY seq LIMIT ?').all(
        after,
        batch,
      ) as RecordRow[];
      if (rows.length === 0) return;
      const records = this.toRecords(rows);
      for (let i = 0; i < rows.length; i++) yield { ...records[i]!, seq: rows[i]!.seq };
      after = rows[rows.length - 1]!.seq;
    }
  }

  count(status: RecordStatus | 'all' = 'active'): number {
    const row =
      status === 'all'
        ? this.stmt('SELECT count(*) AS n FROM records').get()
        : this.stmt('SELECT count(*) AS n FROM records WHERE status = ?').get(status);
    return (row as { n: number }).n;
  }

  countsByStatus(): Record<string, number> {
    const rows = this.stmt('SELECT status, count(*) AS n FROM records GROUP BY status').all() as Array<{
      status: string;
      n: number;
    }>;
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  }

  /** Active records whose title + summary match `title`/`summary` once normalised. */
  findByContent(title: string, summary: string): ContextRecord | undefined {
    const row = this.stmt("SELECT id FROM records WHERE content_key = ? AND status = 'active' LIMIT 1").get(
      contentKey(title, summary),
    ) as { id: string } | undefined;
    return row ? this.get(row.id) : undefined;
  }

  /** Records with a source of this type and ref (any status), newest first. */
  findBySource(type: RecordSource['type'], ref: string): ContextRecord[] {
    const rows = this.stmt(
      `SELECT r.* FROM records r WHERE r.id IN (SELECT record_id FROM record_sources WHERE type = ? AND ref = ?)
         ORDER BY r.seq DESC`,
    ).all(type, ref) as RecordRow[];
    return this.toRecords(rows);
  }

  /** Update fields (validated and checked again); the FTS row is rewritten and the vector dropped. */
  update(id: string, patch: UpdatePatch, options: Pick<AddOptions, 'secrets'> = {}): ContextRecord {
    const current = this.get(id);
    if (!current) throw new InvalidArgumentError('record_id', `No record with id '${id}'.`);
    const merged: RecordInput = {
      id: current.id,
      kind: patch.kind ?? current.kind,
      title: patch.title ?? current.title,
      summary: patch.summary ?? current.summary,
      details: patch.details === undefined ? current.details : patch.details,
      scopes: patch.scopes ?? current.scopes,
      tags: patch.tags ?? current.tags,
      entities: patch.entities ?? current.entities,
      confidence: patch.confidence ?? current.confidence,
      importance: patch.importance ?? current.importance,
      trustLevel: patch.trustLevel ?? current.trustLevel,
      expiresAt: patch.expiresAt === undefined ? current.expiresAt : patch.expiresAt,
      observedAt: current.observedAt,
      skillLinks: patch.skillLinks ?? current.skillLinks,
      sources: patch.addSources ?? [],
    };
    const n = checkRecordSafety(normalizeRecordInput(merged), options.secrets ?? 'reject');
    return this.tx(() => {
      const row = this.stmt('SELECT seq FROM records WHERE id = ?').get(id) as { seq: number };
      this.stmt(
        `UPDATE records SET kind = ?, title = ?, summary = ?, details = ?, scope_project = ?, scope_user = ?,
             scope_repo = ?, scope_profile = ?, tags = ?, entities = ?, confidence = ?, importance = ?,
             trust_level = ?, expires_at = ?, skill_links = ?, content_key = ?, updated_at = ? WHERE id = ?`,
      ).run(
        n.kind,
        n.title,
        n.summary,
        n.details,
        n.scopes.project ?? null,
        n.scopes.user ?? null,
        n.scopes.repo ?? null,
        n.scopes.profile ?? null,
        JSON.stringify(n.tags),
        JSON.stringify(n.entities),
        n.confidence,
        n.importance,
        n.trustLevel,
        n.expiresAt,
        JSON.stringify(n.skillLinks),
        contentKey(n.title, n.summary),
        this.nowIso(),
        id,
      );
      if (n.sources.length > 0) this.appendSources(id, n.sources);
      this.stmt('DELETE FROM record_vectors WHERE seq = ?').run(row.seq);
      this.reindex(row.seq);
      return this.get(id)!;
    });
  }

  /**
   * Move a record through its lifecycle. Throws `LifecycleError` for a transition that does not
   * apply (restoring an active record, archiving a retracted one).
   */
  transition(
    id: string,
    action: LifecycleAction,
    options: { reason?: string; supersededBy?: string } = {},
  ): ContextRecord {
    return this.tx(() => {
      const current = this.get(id);
      if (!current) throw new LifecycleError(`No record with id '${id}'.`);
      const rule = TRANSITIONS[action];
      if (!(rule.from as readonly string[]).includes(current.status))
        throw new LifecycleError(
          `Record '${id}' is ${current.status}; ${action} applies to ${rule.from.join(' or ')} records.`,
        );
      if (action === 'supersede') {
        if (!options.supersededBy) throw new LifecycleError('supersede needs the id of the newer record.');
        if (options.supersededBy === id) throw new LifecycleError('A record cannot supersede itself.');
        if (!this.get(options.supersededBy))
          throw new LifecycleError(`No record with id '${options.supersededBy}'.`);
      }
      const now = this.nowIso();
      const clearExpiry = action === 'restore' && current.status === 'expired';
      this.stmt(
        `UPDATE records SET status = ?, status_reason = ?, superseded_by = ?, updated_at = ?,
             expires_at = CASE WHEN ? THEN NULL ELSE expires_at END WHERE id = ?`,
      ).run(
        rule.to,
        options.reason?.slice(0, 300) ?? null,
        action === 'supersede' ? options.supersededBy! : null,
        now,
        clearExpiry ? 1 : 0,
        id,
      );
      if (action === 'supersede') this.linkUnchecked(options.supersededBy!, id, 'supersedes', 1);
      this.writes++;
      return this.get(id)!;
    });
  }

  /**
   * Hard delete: the record, its sources, vector, FTS row and edges. With `purgeSources`, segments
   * (and then documents) no other record points to are deleted too. For wrong or sensitive records.
   */
  delete(id: string, options: { purgeSources?: boolean } = {}): boolean {
    return this.tx(() => {
      const row = this.stmt('SELECT seq FROM records WHERE id = ?').get(id) as { seq: number } | undefined;
      if (!row) return false;
      const segments = (
        this.stmt('SELECT segment_id FROM record_sources WHERE record_id = ? AND segment_id IS NOT NULL').all(
          id,
        ) as Array<{
          segment_id: number;
        }>
      ).map((r) => r.segment_id);
      this.changed(row.seq);
      this.stmt('DELETE FROM records_fts WHERE rowid = ?').run(row.seq);
      this.stmt('DELETE FROM record_vectors WHERE seq = ?').run(row.seq);
      this.stmt('DELETE FROM edges WHERE src = ? OR dst = ?').run(id, id);
      this.stmt('UPDATE records SET superseded_by = NULL WHERE superseded_by = ?').run(id);
      this.stmt('DELETE FROM records WHERE id = ?').run(id);
      if (options.purgeSources && segments.length > 0) {
        this.db
          .prepare(
            `DELETE FROM source_segments WHERE id IN (SELECT value FROM json_each(?))
               AND id NOT IN (SELECT segment_id FROM record_sources WHERE segment_id IS NOT NULL)`,
          )
          .run(JSON.stringify(segments));
        this.db.exec(
          'DELETE FROM source_documents WHERE id NOT IN (SELECT document_id FROM source_segments)',
        );
      }
      return true;
    });
  }

  // ── edges ──────────────────────────────────────────────────────────────────────────────────

  /** An association between two records (`related_to`, `next_segment`, `supersedes`, ...). */
  link(src: string, dst: string, relation: string, weight = 1): void {
    if (src === dst) throw new InvalidArgumentError('related_ids', 'A record cannot be linked to itself.');
    this.tx(() => {
      const n = this.stmt('SELECT count(*) AS n FROM records WHERE id IN (?, ?)').get(src, dst) as {
        n: number;
      };
      if (n.n !== 2)
        throw new InvalidArgumentError('related_ids', `Cannot link '${src}' and '${dst}': unknown record.`);
      this.linkUnchecked(src, dst, relation, weight);
    });
  }

  /** Inside a transaction, for records known to exist. */
  linkUnchecked(src: string, dst: string, relation: string, weight: number): void {
    // The graph is part of what retrieval reads: caches keyed on `version()` must see the edge.
    this.writes++;
    this.stmt(
      `INSERT INTO edges (src, dst, relation, weight, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(src, dst, relation) DO UPDATE SET weight = excluded.weight`,
    ).run(src, dst, relation, Math.max(0, Math.min(1, weight)), this.nowIso());
  }

  /** Edges touching any of `ids`, in either direction. */
  edgesOf(ids: readonly string[]): Edge[] {
    if (ids.length === 0) return [];
    const json = JSON.stringify(ids);
    return this.stmt(
      `SELECT src, dst, relation, weight FROM edges WHERE src IN (SELECT value FROM json_each(?))
         UNION SELECT src, dst, relation, weight FROM edges WHERE dst IN (SELECT value FROM json_each(?))`,
    ).all(json, json) as Edge[];
  }

  /**
   * `edgesOf` for retrieval, from a per-record adjacency kept until the next write (see
   * `readBySeq`). Same rows in the same order as the SQL: its UNION returns them sorted by all
   * four columns, which graph expansion's tie-breaking depends on.
   */
  readEdgesOf(ids: readonly string[]): Edge[] {
    if (this.db.inTransaction || ids.length === 0) return this.edgesOf(ids);
    const cache = this.readCache();
    if (cache.edgeCount > READ_CACHE_LIMIT) {
      cache.edges.clear();
      cache.edgeCount = 0;
    }
    const missing = new Set(ids.filter((id) => !cache.edges.has(id)));
    if (missing.size > 0) {
      for (const id of missing) cache.edges.set(id, []);
      const json = JSON.stringify([...missing]);
      const rows = this.stmt(
        `SELECT src, dst, relation, weight FROM edges WHERE src IN (SELECT value FROM json_each(?))
           UNION SELECT src, dst, relation, weight FROM edges WHERE dst IN (SELECT value FROM json_each(?))`,
      ).all(json, json) as Edge[];
      for (const e of rows) {
        const edge = Object.freeze(e);
        if (missing.has(e.src)) cache.edges.get(e.src)!.push(edge);
        if (e.dst !== e.src && missing.has(e.dst)) cache.edges.get(e.dst)!.push(edge);
        cache.edgeCount++;
      }
    }
    // An edge between two requested records is one row, as in the UNION (the primary key is unique).
    const touching = new Map<string, Edge>();
    for (const id of ids)
      for (const e of cache.edges.get(id)!) touching.set(`${e.src}\u0000${e.dst}\u0000${e.relation}`, e);
    return [...touching.values()].sort(
      (a, b) =>
        compareBinary(a.src, b.src) ||
        compareBinary(a.dst, b.dst) ||
        compareBinary(a.relation, b.relation) ||
        a.weight - b.weight,
    );
  }

  /** Run `fn` in one IMMEDIATE transaction (bulk imports that mix records, edges and documents). */
  transaction<T>(fn: () => T): T {
    return this.tx(fn);
  }

  /**
   * Run an import's writes in one transaction that first waits out another writer (an agent's
   * turn) with core's busy retry, instead of failing with "database is locked"; a lock held past
   * the deadline is a `CliError` naming the file, with nothing written. Writes inside use savepoints.
   */
  importTransaction<T>(fn: () => T, lock: BusyRetryOptions = {}): T {
    return importTransaction(this.db, this.dbPath, fn, lock);
  }

  /** Insert a validated record inside a `transaction` (imports keep their ids, statuses and times). */
  insertExact(record: ContextRecord): void {
    this.insertRecord(record);
  }

  /** The row, its sources and its FTS row, for a record whose every field is known. */
  private insertRecord(r: ContextRecord): void {
    const info = this.stmt(
      `INSERT INTO records (id, kind, title, summary, details, scope_project, scope_user, scope_repo,
         scope_profile, tags, entities, confidence, importance, trust_level, status, status_reason,
         superseded_by, expires_at, observed_at, created_at, updated_at, content_key, skill_links)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      r.id,
      r.kind,
      r.title,
      r.summary,
      r.details,
      r.scopes.project ?? null,
      r.scopes.user ?? null,
      r.scopes.repo ?? null,
      r.scopes.profile ?? null,
      JSON.stringify(r.tags),
      JSON.stringify(r.entities),
      r.confidence,
      r.importance,
      r.trustLevel,
      r.status,
      r.statusReason,
      r.supersededBy,
      r.expiresAt,
      r.observedAt,
      r.createdAt,
      r.updatedAt,
      contentKey(r.title, r.summary),
      JSON.stringify(r.skillLinks),
    );
    this.insertSources(r.id, r.sources, 0);
    // A new row (seq is AUTOINCREMENT): its FTS row is written from the values just stored,
    // without reading them back.
    const seq = Number(info.lastInsertRowid);
    this.changed(seq);
    this.stmt('DELETE FROM records_fts WHERE rowid = ?').run(seq);
    const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : []);
    this.writeFts(seq, { ...r, tags: list(r.tags), entities: list(r.entities) });
  }

  // ── rows → records ─────────────────────────────────────────────────────────────────────────

  sourcesOf(ids: readonly string[]): Map<string, RecordSource[]> {
    const out = new Map<string, RecordSource[]>();
    if (ids.length === 0) return out;
    const rows = this.stmt(
      'SELECT * FROM record_sources WHERE record_id IN (SELECT value FROM json_each(?)) ORDER BY record_id, ordinal',
    ).all(JSON.stringify(ids)) as SourceRow[];
    for (const r of rows) {
      const s: RecordSource = { type: r.type as RecordSource['type'], ref: r.ref };
      if (r.segment_id !== null) s.segmentId = r.segment_id;
      if (r.excerpt !== null) s.excerpt = r.excerpt;
      if (r.session_id !== null) s.sessionId = r.session_id;
      const list = out.get(r.record_id);
      if (list) list.push(s);
      else out.set(r.record_id, [s]);
    }
    return out;
  }

  private toRecords(rows: readonly RecordRow[]): ContextRecord[] {
    const sources = this.sourcesOf(rows.map((r) => r.id));
    return rows.map((r) => rowToRecord(r, sources.get(r.id) ?? []));
  }
}

export function rowToRecord(r: RecordRow, sources: RecordSource[]): ContextRecord {
  const scopes: Scopes = {};
  if (r.scope_project) scopes.project = r.scope_project;
  if (r.scope_user) scopes.user = r.scope_user;
  if (r.scope_repo) scopes.repo = r.scope_repo;
  if (r.scope_profile) scopes.profile = r.scope_profile;
  return {
    id: r.id,
    kind: r.kind as ContextRecord['kind'],
    title: r.title,
    summary: r.summary,
    details: r.details,
    scopes,
    tags: parseList<string>(r.tags),
    entities: parseList<string>(r.entities),
    confidence: r.confidence,
    importance: r.importance,
    trustLevel: r.trust_level as ContextRecord['trustLevel'],
    status: r.status as RecordStatus,
    statusReason: r.status_reason,
    supersededBy: r.superseded_by,
    expiresAt: r.expires_at,
    observedAt: r.observed_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    sources,
    skillLinks: parseList(r.skill_links),
  };
}
