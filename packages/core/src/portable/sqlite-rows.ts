import type { JsonValue, PortableRecord } from '../provider-cli/types';

/**
 * SQLite rows in the portable export (decision 0601): every column kept, BLOBs as
 * `{"$base64": "..."}`, integers as JSON numbers. Structural over the database handle, so core
 * stays free of native modules while builtin, holographic and third-party SQLite stores share it.
 */
export interface SqliteHandle {
  prepare(sql: string): {
    all(...params: unknown[]): unknown[];
    get(...params: unknown[]): unknown;
    run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  };
  exec(sql: string): void;
}

export type SqliteRow = Record<string, unknown>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A table or column name safe to splice into SQL; anything else is refused. */
export function isSqlIdentifier(name: string): boolean {
  return IDENT.test(name);
}

export function quoteIdent(name: string): string {
  if (!IDENT.test(name)) throw new Error(`Invalid SQL identifier '${name}'.`);
  return `"${name}"`;
}

export function encodeSqliteRow(row: SqliteRow): PortableRecord {
  const out: PortableRecord = {};
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array) out[key] = { $base64: Buffer.from(value).toString('base64') };
    else if (typeof value === 'bigint') out[key] = Number(value);
    else out[key] = (value ?? null) as JsonValue;
  }
  return out;
}

export function decodeSqliteRow(row: Readonly<Record<string, unknown>>): SqliteRow {
  const out: SqliteRow = {};
  for (const [key, value] of Object.entries(row)) {
    if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      typeof (value as { $base64?: unknown }).$base64 === 'string'
    ) {
      out[key] = Buffer.from((value as { $base64: string }).$base64, 'base64');
    } else out[key] = value;
  }
  return out;
}

/** Why a row object cannot be imported (a column name that is not an identifier), or undefined. */
export function sqliteRowProblem(row: unknown): string | undefined {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return 'row must be an object';
  for (const key of Object.keys(row)) if (!IDENT.test(key)) return `invalid column name '${key}'`;
  return undefined;
}

export function tableExists(db: SqliteHandle, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

export function tableColumns(db: SqliteHandle, table: string): string[] {
  return (db.prepare(`PRAGMA table_info(${quoteIdent(table)})`).all() as Array<{ name: string }>).map(
    (c) => c.name,
  );
}

/** Every row of a table in rowid order, encoded for export. */
export function exportTableRows(db: SqliteHandle, table: string): PortableRecord[] {
  return (db.prepare(`SELECT * FROM ${quoteIdent(table)} ORDER BY rowid`).all() as SqliteRow[]).map(
    encodeSqliteRow,
  );
}

/**
 * Add the columns a row has and the table lacks (a newer schema, e.g. the Python agent's), so
 * nothing in an export is dropped. `known` caches each table's columns across calls.
 */
export function addMissingColumns(
  db: SqliteHandle,
  table: string,
  row: SqliteRow,
  known: Map<string, Set<string>>,
): void {
  let cols = known.get(table);
  if (!cols) {
    cols = new Set(tableColumns(db, table));
    known.set(table, cols);
  }
  for (const key of Object.keys(row)) {
    if (!cols.has(key)) {
      db.exec(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(key)}`);
      cols.add(key);
    }
  }
}

/** INSERT (or INSERT OR IGNORE) one row, every column named. */
export function insertRow(
  db: SqliteHandle,
  table: string,
  row: SqliteRow,
  mode: 'ignore' | 'plain' = 'ignore',
): { changes: number; lastInsertRowid: number | bigint } {
  const keys = Object.keys(row);
  const sql = `INSERT ${mode === 'ignore' ? 'OR IGNORE ' : ''}INTO ${quoteIdent(table)} (${keys.map(quoteIdent).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`;
  return db.prepare(sql).run(...keys.map((k) => row[k]));
}
