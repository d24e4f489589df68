/**
 * An in-memory cache of the `facts` columns retrieval scores with (no HRR blob), keyed by fact_id.
 * Rows are returned as cached objects: callers copy before changing them.
 * Candidate and neighbour rows are random reads by id; at 10k facts reading ~300 of them per search
 * cost as much as the FTS query. The cache is dropped whole on any data change, detected by
 * `total_changes()` (every INSERT/UPDATE/DELETE on this connection, ours or another store's sharing
 * it, triggers included) and `data_version` (commits by other connections and processes) — two
 * numbers read in one statement per search.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './connection';
import type { FactRecord } from './types';

/** Columns of a cached row (the reference's result keys, in its order). */
export const ROW_COLUMNS =
  'fact_id, content, category, tags, trust_score, retrieval_count, helpful_count, created_at, updated_at';
/** Dropped whole when it grows past this many rows (a search touches a few hundred). */
const MAX_ROWS = 100_000;

export class RowCache {
  private readonly rows = new Map<number, FactRecord | null>();
  private version = '';
  private readonly versionStmt: Statement<unknown[]>;
  private readonly loadStmt: Statement<unknown[]>;

  constructor(db: Db) {
    this.versionStmt = db
      .prepare("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version())")
      .pluck();
    this.loadStmt = db.prepare(
      `SELECT ${ROW_COLUMNS} FROM facts WHERE fact_id IN (SELECT value FROM json_each(?))`,
    );
  }

  /** Drop the cache if the database changed since it was filled. Call once per search. */
  validate(): void {
    const now = this.versionStmt.get() as string;
    if (now === this.version) return;
    this.rows.clear();
    this.version = now;
  }

  /**
   * Run a write that only adds `increments` (fact_id → n) to retrieval_count, keeping the cache if
   * it was current before the write: the cached rows get the same increments, so they stay exactly
   * what the database holds. If the write throws, nothing is applied and the cache is dropped at the
   * next `validate`.
   */
  statisticsWrite<T>(increments: ReadonlyMap<number, number>, write: () => T): T {
    const before = this.versionStmt.get() as string;
    const current = before === this.version;
    const out = write();
    if (current) {
      this.version = this.versionStmt.get() as string;
      for (const [id, inc] of increments) {
        const row = this.rows.get(id);
        if (row) row.retrieval_count += inc;
      }
    }
    return out;
  }

  /**
   * Run a write that only inserts new facts, passing each inserted row (as stored, e.g. from
   * `RETURNING`) to `keep`. If the cache was current before the write (an empty cache always is),
   * it stays current with those rows added — a search right after an import reads no row by id.
   */
  insertWrite<T>(write: (keep: (row: FactRecord) => void) => T): T {
    const current = this.rows.size === 0 || (this.versionStmt.get() as string) === this.version;
    const staged: FactRecord[] = [];
    const out = write((row) => {
      if (current) staged.push(row);
    });
    if (current) {
      this.version = this.versionStmt.get() as string;
      for (const row of staged) {
        if (this.rows.size >= MAX_ROWS) break;
        this.rows.set(row.fact_id, row);
      }
    }
    return out;
  }

  /** Rows for `ids` (absent ids are skipped), reading the misses in one query. */
  get(ids: readonly number[]): FactRecord[] {
    const missing: number[] = [];
    for (const id of ids) if (!this.rows.has(id)) missing.push(id);
    if (missing.length > 0) {
      if (this.rows.size + missing.length > MAX_ROWS) this.rows.clear();
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
}
