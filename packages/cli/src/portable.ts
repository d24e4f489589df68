import fs from 'node:fs';
import { createRequire } from 'node:module';
import { CliError } from './errors';

/**
 * The JSON Lines export format (decision 0601). One record per line, in a fixed order, with no
 * timestamps of its own, so export → import into an empty home → export gives identical lines.
 *
 *   {"type":"hermes-memory-export","version":1}
 *   {"type":"memory","target":"memory"|"user","content":"..."}          MEMORY.md / USER.md entries
 *   {"type":"row","store":"state"|"facts","table":"<table>","row":{...}} every column, rowid order
 *
 * BLOBs (holographic HRR vectors) are `{"$base64": "..."}`.
 */
export const EXPORT_FORMAT = 'hermes-memory-export';
export const EXPORT_VERSION = 1;

export type StoreName = 'state' | 'facts';
export const EXPORT_TABLES: Readonly<Record<StoreName, readonly string[]>> = {
  state: ['sessions', 'messages'],
  facts: ['facts', 'entities', 'fact_entities', 'memory_banks'],
};

export type ExportRecord =
  | { type: typeof EXPORT_FORMAT; version: number }
  | { type: 'memory'; target: 'memory' | 'user'; content: string }
  | { type: 'row'; store: StoreName; table: string; row: Record<string, unknown> };

export type Row = Record<string, unknown>;

export interface RawDb {
  prepare(sql: string): {
    all(...params: unknown[]): unknown[];
    get(...params: unknown[]): unknown;
    run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  };
  exec(sql: string): void;
  pragma(sql: string): unknown;
  transaction<T>(fn: () => T): () => T;
  close(): void;
}

const req = createRequire(import.meta.url);

export function openRawDb(file: string, options: { readonly: boolean }): RawDb {
  const Database = req('better-sqlite3') as new (f: string, o?: Record<string, unknown>) => RawDb;
  const db = new Database(file, { readonly: options.readonly, fileMustExist: true, timeout: 5000 });
  return db;
}

export function tableExists(db: RawDb, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

export function tableColumns(db: RawDb, table: string): string[] {
  return (db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name);
}

export function encodeRow(row: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (value instanceof Uint8Array) out[key] = { $base64: Buffer.from(value).toString('base64') };
    else if (typeof value === 'bigint') out[key] = Number(value);
    else out[key] = value;
  }
  return out;
}

export function decodeRow(row: Row): Row {
  const out: Row = {};
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

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validate one parsed line; the error names the line so a person can find it. */
export function parseRecord(line: string, lineNo: number): ExportRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new CliError(`Line ${lineNo} is not valid JSON.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new CliError(`Line ${lineNo} is not a JSON object.`);
  const r = value as Record<string, unknown>;
  if (r.type === EXPORT_FORMAT) {
    if (r.version !== EXPORT_VERSION)
      throw new CliError(
        `Line ${lineNo}: unsupported export version ${String(r.version)} (this CLI reads ${EXPORT_VERSION}).`,
      );
    return { type: EXPORT_FORMAT, version: EXPORT_VERSION };
  }
  if (r.type === 'memory') {
    if ((r.target !== 'memory' && r.target !== 'user') || typeof r.content !== 'string') {
      throw new CliError(
        `Line ${lineNo}: a memory record needs target "memory" or "user" and a string content.`,
      );
    }
    return { type: 'memory', target: r.target, content: r.content };
  }
  if (r.type === 'row') {
    const store = r.store;
    if (
      (store !== 'state' && store !== 'facts') ||
      typeof r.table !== 'string' ||
      !EXPORT_TABLES[store].includes(r.table)
    ) {
      throw new CliError(
        `Line ${lineNo}: unknown store/table ${JSON.stringify(r.store)}/${JSON.stringify(r.table)}.`,
      );
    }
    if (typeof r.row !== 'object' || r.row === null || Array.isArray(r.row))
      throw new CliError(`Line ${lineNo}: row must be an object.`);
    for (const key of Object.keys(r.row))
      if (!IDENT.test(key)) throw new CliError(`Line ${lineNo}: invalid column name '${key}'.`);
    return { type: 'row', store, table: r.table, row: r.row as Row };
  }
  throw new CliError(`Line ${lineNo}: unknown record type ${JSON.stringify(r.type)}.`);
}

/** Read an export file (or stdin for "-"), validating every line before anything is written. */
export function readExport(file: string): ExportRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`Cannot read ${file === '-' ? 'stdin' : file}${code ? ` (${code})` : ''}.`);
  }
  const records: ExportRecord[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    records.push(parseRecord(line, i + 1));
  });
  if (records.length === 0 || records[0]?.type !== EXPORT_FORMAT) {
    throw new CliError(
      `${file === '-' ? 'stdin' : file} is not a hermes-memory export (the first line must be the export header).`,
    );
  }
  return records;
}

export function quoteIdent(name: string): string {
  if (!IDENT.test(name)) throw new CliError(`Invalid column name '${name}'.`);
  return `"${name}"`;
}
