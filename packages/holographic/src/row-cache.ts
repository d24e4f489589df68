/**
 * An in-memory cache of the `facts` columns retrieval scores with (no HRR blob), keyed by fact_id.
 * Rows are returned as cached objects: callers copy before changing them.
 * Candidate and neighbour rows are random reads by id; at 10k facts reading ~300 of them per search
 * cost as much as the FTS query. Changes are detected by `total_changes()` (every INSERT/UPDATE/
 * DELETE on this connection, ours or another store's sharing it, triggers included) and
 * `data_version` (commits by other connections and processes) — two numbers read in one statement
 * per search. A change this store made through `write` updates only the rows it touched; any other
 * change drops the cache whole (it cannot say which rows it touched).
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './connection';
import type { FactRecord } from './types';

/** Columns of a cached row (the reference's result keys, in its order). */
export const ROW_COLUMNS =
  'fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at';
/** Rows kept at most; past it the oldest-cached go first (a search touches a few hundred). */
export const MAX_ROWS = 100_000;

/** What one of this store's write transactions did to `facts`, applied to the cache once committed. */
export interface RowChanges {
  /** A row as stored after the write (e.g. from `RETURNING`). */
  put(row: FactRecord): void;
  /** A row the write changed or deleted: read again on its next use. */
  drop(factId: number): void;
  /** retrieval_count += n for a fact (the only column the write changed). */
  increment(factId: number, n: number): void;
}

/** The `data_version` half of a version string (`total_changes:data_version`). */
function dataVersion(version: string): string {
  return version.slice(version.indexOf(':') + 1);
}

export class RowCache {
  private readonly rows = new Map<number, FactRecord | null>();
  private version = '';
  private readonly versionStmt: Statement<unknown[]>;
  private readonly loadStmt: Statement<unknown[]>;
  private readonly rangeStmt: Statement<unknown[]>;

  constructor(
    private readonly db: Db,
    private readonly maxRows = MAX_ROWS,
  ) {
    this.versionStmt = db
      .prepare("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version())")
      .pluck();
    this.loadStmt = db.prepare(
      `SELECT ${ROW_COLUMNS} FROM facts WHERE fact_id IN (SELECT value FROM json_each(?))`,
    );
    this.rangeStmt = db.prepare(
      `SELECT ${ROW_COLUMNS} FROM facts WHERE fact_id > ? ORDER BY fact_id LIMIT ?`,
    );
  }

  /** Rows held (absent ids remembered as absent included). */
  get size(): number {
    return this.rows.size;
  }

  /** No room for another row. */
  get full(): boolean {
    return this.rows.size >= this.maxRows;
  }

  /**
   * Drop the cache if the database changed since it was filled, other than through `write`. Call
   * once per search. Returns whether it changed (callers drop what they derived from the data too).
   */
  validate(): boolean {
    const now = this.versionStmt.get() as string;
    if (now === this.version) return false;
    this.rows.clear();
    this.version = now;
    return true;
  }

  /**
   * Run `body` in an IMMEDIATE transaction as this store's own write; `changes` records what it did
   * to `facts`. The cache stays current only when nothing else changed it since it was filled (an
   * empty cache always is): checked at the start of the transaction, where no other connection can
   * commit, and again after the commit (FTS5 writes its index at commit, so total_changes is only
   * final then): a `data_version` that moved means another connection committed meanwhile. The
   * changes are applied once committed; if the transaction throws, nothing is applied and the next
   * `validate` drops the cache.
   */
  write<T>(body: (changes: RowChanges) => T): T {
    const puts: FactRecord[] = [];
    const drops: number[] = [];
    const increments: Array<[number, number]> = [];
    const changes: RowChanges = {
      put: (row) => puts.push(row),
      drop: (id) => drops.push(id),
      increment: (id, n) => increments.push([id, n]),
    };
    let before: string | null = null;
    const out = this.db
      .transaction(() => {
        const now = this.versionStmt.get() as string;
        if (this.rows.size === 0 || now === this.version) before = now;
        return body(changes);
      })
      .immediate();
    if (before === null) return out;
    const after = this.versionStmt.get() as string;
    if (dataVersion(after) !== dataVersion(before)) return out;
    this.version = after;
    for (const id of drops) this.rows.delete(id);
    for (const [id, n] of increments) {
      const row = this.rows.get(id);
      if (row) row.retrieval_count += n;
    }
    for (const row of puts) {
      if (this.full) break;
      this.rows.set(row.fact_id, row);
    }
    return out;
  }

  /**
   * Read the next `limit` rows after `afterId` (ascending), caching those that fit; null when none
   * are left. The background warm-up's step (`FactRetriever.warmStep`, which validates first).
   */
  readAfter(afterId: number, limit: number): FactRecord[] | null {
    const rows = this.rangeStmt.all(afterId, limit) as FactRecord[];
    if (rows.length === 0) return null;
    for (const row of rows) {
      if (this.full) break;
      if (!this.rows.has(row.fact_id)) this.rows.set(row.fact_id, row);
    }
    return rows;
  }

  /** Rows for `ids` (absent ids are skipped), reading the misses in one query. */
  get(ids: readonly number[]): FactRecord[] {
    const missing: number[] = [];
    for (const id of ids) if (!this.rows.has(id)) missing.push(id);
    if (missing.length > 0) {
      this.makeRoom(missing.length, ids);
      for (const id of missing) this.rows.set(id, null);
      for (const row of this.loadStmt.all(JSON.stringify(missing)) as FactRecord[])
        this.rows.set(row.fact_id, row);
    }
    const out: FactRecord[] = [];
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row) out.push(row);
    }
    return out;
  }

  /**
   * Evict the oldest-cached rows, never one of `wanted`, until `n` more fit (a full cache used to
   * empty at once, so a store past the cap re-read every candidate).
   */
  private makeRoom(n: number, wanted: readonly number[]): void {
    let excess = this.rows.size + n - this.maxRows;
    if (excess <= 0) return;
    const keep = new Set(wanted);
    for (const id of this.rows.keys()) {
      if (excess <= 0) break;
      if (keep.has(id)) continue;
      this.rows.delete(id);
      excess--;
    }
  }
}
