import fs from 'node:fs';
import { createRequire } from 'node:module';
import { type PortableRecord, type SqliteHandle, sqliteRowProblem } from '@hermes-memory/core';
import { CliError } from './errors';

/**
 * The JSON Lines export format (decisions 0601, 0603). One record per line, in a fixed order, with
 * no timestamps of its own, so export → import into an empty home → export gives identical lines.
 *
 *   {"type":"hermes-memory-export","version":2}
 *   {"type":"memory","target":"memory"|"user","content":"..."}        MEMORY.md / USER.md entries
 *   {"type":"row","store":"state","table":"<table>","row":{...}}      state.db, every column, rowid order
 *   {"type":"record","provider":"<id>","data":{...}}                  a provider's own records
 *
 * Version 1 files (facts as `{"type":"row","store":"facts",...}`) are still read: those rows are
 * holographic's records, `{"table": ..., "row": ...}`.
 */
export const EXPORT_FORMAT = 'hermes-memory-export';
export const EXPORT_VERSION = 2;
const READABLE_VERSIONS: readonly number[] = [1, 2];

export const STATE_TABLES: readonly string[] = ['sessions', 'messages'];
/** Version 1 kept the holographic fact store as `store: "facts"` rows. */
const V1_FACT_TABLES: readonly string[] = ['facts', 'entities', 'fact_entities', 'memory_banks'];
const V1_FACTS_PROVIDER = 'holographic';

export type ExportRecord =
  | { type: typeof EXPORT_FORMAT; version: number }
  | { type: 'memory'; target: 'memory' | 'user'; content: string }
  | { type: 'row'; store: 'state'; table: string; row: PortableRecord }
  | { type: 'record'; provider: string; data: PortableRecord };

/** A better-sqlite3 handle as the export and import of state.db use it. */
export interface RawDb extends SqliteHandle {
  pragma(sql: string): unknown;
  transaction<T>(fn: () => T): () => T;
  close(): void;
}

const req = createRequire(import.meta.url);

export function openRawDb(file: string, options: { readonly: boolean }): RawDb {
  const Database = req('better-sqlite3') as new (f: string, o?: Record<string, unknown>) => RawDb;
  return new Database(file, { readonly: options.readonly, fileMustExist: true, timeout: 5000 });
}

const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]*$/i;

function isObject(value: unknown): value is PortableRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validate one parsed line; the error names the line so a person can find it. */
export function parseRecord(line: string, lineNo: number, version: number): ExportRecord {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new CliError(`Line ${lineNo} is not valid JSON.`);
  }
  if (!isObject(value)) throw new CliError(`Line ${lineNo} is not a JSON object.`);
  const r = value;
  if (r.type === EXPORT_FORMAT) {
    if (typeof r.version !== 'number' || !READABLE_VERSIONS.includes(r.version))
      throw new CliError(
        `Line ${lineNo}: unsupported export version ${String(r.version)} (this CLI reads ${READABLE_VERSIONS.join(' and ')}).`,
      );
    return { type: EXPORT_FORMAT, version: r.version };
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
    const table = r.table;
    const known =
      r.store === 'state' ? STATE_TABLES : r.store === 'facts' && version === 1 ? V1_FACT_TABLES : undefined;
    if (!known || typeof table !== 'string' || !known.includes(table))
      throw new CliError(
        `Line ${lineNo}: unknown store/table ${JSON.stringify(r.store)}/${JSON.stringify(r.table)}.`,
      );
    const problem = sqliteRowProblem(r.row);
    if (problem) throw new CliError(`Line ${lineNo}: ${problem}.`);
    const row = r.row as PortableRecord;
    return r.store === 'state'
      ? { type: 'row', store: 'state', table, row }
      : { type: 'record', provider: V1_FACTS_PROVIDER, data: { table, row } };
  }
  if (r.type === 'record') {
    if (typeof r.provider !== 'string' || !PROVIDER_ID.test(r.provider))
      throw new CliError(`Line ${lineNo}: a record needs a provider id.`);
    if (!isObject(r.data)) throw new CliError(`Line ${lineNo}: a record's data must be an object.`);
    return { type: 'record', provider: r.provider, data: r.data };
  }
  throw new CliError(`Line ${lineNo}: unknown record type ${JSON.stringify(r.type)}.`);
}

/** Read an export file (or stdin for "-"), validating every line's framing before anything is written. */
export function readExport(file: string): ExportRecord[] {
  let text: string;
  try {
    text = fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(`Cannot read ${file === '-' ? 'stdin' : file}${code ? ` (${code})` : ''}.`);
  }
  const records: ExportRecord[] = [];
  let version = 0;
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const record = parseRecord(line, i + 1, version);
    if (record.type === EXPORT_FORMAT && records.length === 0) version = record.version;
    records.push(record);
  });
  if (records.length === 0 || records[0]?.type !== EXPORT_FORMAT) {
    throw new CliError(
      `${file === '-' ? 'stdin' : file} is not a hermes-memory export (the first line must be the export header).`,
    );
  }
  return records;
}
