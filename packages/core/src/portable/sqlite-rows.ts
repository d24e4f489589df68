import { CliError } from '../provider-cli/args';
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

/** Longest column name an import may carry (real schemas use short names). */
export const MAX_COLUMN_NAME_LENGTH = 64;
/** Most columns one imported row may have (validated before anything is written). */
export const MAX_ROW_COLUMNS = 128;
/** Most columns one import may add to one table (a newer schema adds a few, not hundreds). */
export const IMPORT_MAX_NEW_COLUMNS = 16;

/** A table or column name safe to splice into SQL; anything else is refused. */
export function isSqlIdentifier(name: string): boolean {
  return IDENT.test(name);
}

function isColumnName(name: string): boolean {
  return name.length <= MAX_COLUMN_NAME_LENGTH && IDENT.test(name);
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

/**
 * Why a row object cannot be imported (too many columns, a column name that is not a short
 * identifier), or undefined.
 */
export function sqliteRowProblem(row: unknown): string | undefined {
  if (typeof row !== 'object' || row === null || Array.isArray(row)) return 'row must be an object';
  const keys = Object.keys(row);
  if (keys.length > MAX_ROW_COLUMNS) return `row has ${keys.length} columns (at most ${MAX_ROW_COLUMNS})`;
  for (const key of keys) if (!isColumnName(key)) return `invalid column name '${clip(key)}'`;
  return undefined;
}

function clip(name: string): string {
  return name.length > MAX_COLUMN_NAME_LENGTH ? `${name.slice(0, MAX_COLUMN_NAME_LENGTH)}…` : name;
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

/** Each cached column set's size before the import added to it, so the cap spans every row. */
const columnsBefore = new WeakMap<Set<string>, number>();

/**
 * Add the columns a row has and the table lacks (a newer schema, e.g. the Python agent's), so
 * nothing in an export is dropped. `known` caches each table's columns across calls, and bounds the
 * import: names must be short identifiers and at most `maxNewColumns` (default
 * {@link IMPORT_MAX_NEW_COLUMNS}) are added per table; past that a `CliError` is thrown before any
 * ALTER for the row (inside `importTransaction`, the whole import rolls back).
 */
export function addMissingColumns(
  db: SqliteHandle,
  table: string,
  row: SqliteRow,
  known: Map<string, Set<string>>,
  options: { maxNewColumns?: number } = {},
): void {
  const maxNew = options.maxNewColumns ?? IMPORT_MAX_NEW_COLUMNS;
  let cols = known.get(table);
  if (!cols) {
    cols = new Set(tableColumns(db, table));
    known.set(table, cols);
    columnsBefore.set(cols, cols.size);
  }
  const missing = Object.keys(row).filter((key) => !cols.has(key));
  if (missing.length === 0) return;
  const bad = missing.find((key) => !isColumnName(key));
  if (bad !== undefined)
    throw new CliError(
      `Import refused: '${clip(bad)}' is not a valid column name for table '${table}' (letters, digits and _, at most ${MAX_COLUMN_NAME_LENGTH} characters).`,
    );
  const added = cols.size - (columnsBefore.get(cols) ?? cols.size);
  if (added + missing.length > maxNew)
    throw new CliError(
      `Import refused: table '${table}' would gain more than ${maxNew} new columns (${missing
        .slice(0, 5)
        .map((k) => `'${k}'`)
        .join(
          ', ',
        )}${missing.length > 5 ? ', …' : ''}); an export from this store's schema adds at most a few.`,
    );
  for (const key of missing) {
    db.exec(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(key)}`);
    cols.add(key);
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
