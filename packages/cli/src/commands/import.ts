import fs from 'node:fs';
import { SessionStore } from '@hermes-memory/builtin';
import { FactStore } from '@hermes-memory/holographic';
import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import { CliError } from '../errors';
import { factsDbPath } from '../facts-store';
import { homePaths } from '../paths';
import {
  type ExportRecord,
  type RawDb,
  type Row,
  decodeRow,
  openRawDb,
  quoteIdent,
  readExport,
  tableColumns,
  tableExists,
} from '../portable';
import type { Progress } from '../progress';
import { openMemoryStore } from '../stores';

const USAGE = `Usage: hermes-memory import <file | ->

Load a 'hermes-memory export' file into this home. Every line is validated before anything is
written. Memory entries go through the memory store (limits, scanner, duplicates skipped);
sessions, messages and facts keep their ids where free. What already exists is skipped, so
importing the same file twice changes nothing.`;

interface ImportStats {
  memoryAdded: number;
  memorySkipped: number;
  memoryRefused: Array<{ target: string; content: string; error: string }>;
  rowsInserted: number;
  rowsSkipped: number;
}

export const importCommand: Command = {
  name: 'import',
  usage: USAGE,
  async run(ctx, argv) {
    const { positionals } = parseCommandArgs(argv, {}, 'import');
    if (positionals.length !== 1)
      throw new CliError('import takes one file (or - for stdin).', { exitCode: 2 });
    const records = readExport(positionals[0]!);
    fs.mkdirSync(ctx.home, { recursive: true, mode: 0o700 });
    const progress = ctx.progress('importing', records.length - 1);
    const stats = await importRecords(ctx.home, records, progress);
    progress.done();
    if (ctx.json) ctx.printJson({ ...stats, memoryRefused: stats.memoryRefused });
    else {
      ctx.out(
        `${ctx.style.green('✓')} imported ${stats.memoryAdded} memory entries (${stats.memorySkipped} already present), ` +
          `${stats.rowsInserted} rows (${stats.rowsSkipped} already present)`,
      );
      for (const r of stats.memoryRefused) ctx.err(`hermes-memory: refused ${r.target} entry: ${r.error}`);
    }
    return stats.memoryRefused.length > 0 ? 1 : 0;
  },
};

export async function importRecords(
  home: string,
  records: readonly ExportRecord[],
  progress: Progress,
): Promise<ImportStats> {
  const stats: ImportStats = {
    memoryAdded: 0,
    memorySkipped: 0,
    memoryRefused: [],
    rowsInserted: 0,
    rowsSkipped: 0,
  };
  const memory = records.filter((r): r is Extract<ExportRecord, { type: 'memory' }> => r.type === 'memory');
  if (memory.length > 0) {
    const store = openMemoryStore(home);
    for (const r of memory) {
      const result = await store.add(r.target, r.content, { writeOrigin: 'import' });
      if (!result.success)
        stats.memoryRefused.push({ target: r.target, content: r.content, error: String(result.error) });
      else if (String(result.message).startsWith('Entry already exists')) stats.memorySkipped++;
      else stats.memoryAdded++;
      progress.tick();
    }
  }
  const rows = records.filter((r): r is Extract<ExportRecord, { type: 'row' }> => r.type === 'row');
  const stateRows = rows.filter((r) => r.store === 'state');
  const factRows = rows.filter((r) => r.store === 'facts');
  if (stateRows.length > 0) {
    // The real store creates (or migrates) the schema; rows then go in through one transaction.
    new SessionStore({ hermesHome: home }).close();
    withDb(homePaths(home).stateDb, (db) => importState(db, stateRows, stats, progress));
  }
  if (factRows.length > 0) {
    const dbPath = factsDbPath(home);
    new FactStore({ dbPath }).close();
    withDb(dbPath, (db) => importFacts(db, factRows, stats, progress));
    // Rebuild the derived indexes (side index, category banks) from the imported rows.
    const store = new FactStore({ dbPath });
    try {
      store.syncSideIndex();
    } finally {
      store.close();
    }
  }
  return stats;
}

function withDb(file: string, fn: (db: RawDb) => void): void {
  const db = openRawDb(file, { readonly: false });
  try {
    db.pragma('foreign_keys = OFF');
    db.transaction(() => fn(db))();
  } finally {
    db.close();
  }
}

/** Add columns a newer (e.g. Python v30) schema had, so nothing in the export is dropped. */
function ensureColumns(db: RawDb, table: string, row: Row, known: Map<string, Set<string>>): Set<string> {
  let cols = known.get(table);
  if (!cols) {
    cols = new Set(tableColumns(db, table));
    known.set(table, cols);
  }
  for (const key of Object.keys(row)) {
    if (!cols.has(key)) {
      db.exec(`ALTER TABLE "${table}" ADD COLUMN ${quoteIdent(key)}`);
      cols.add(key);
    }
  }
  return cols;
}

function insert(db: RawDb, table: string, row: Row, mode: 'OR IGNORE' | '' = 'OR IGNORE') {
  const keys = Object.keys(row);
  const sql = `INSERT ${mode} INTO "${table}" (${keys.map(quoteIdent).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`;
  return db.prepare(sql).run(...keys.map((k) => row[k]));
}

function importState(
  db: RawDb,
  records: ReadonlyArray<{ table: string; row: Row }>,
  stats: ImportStats,
  progress: Progress,
): void {
  const known = new Map<string, Set<string>>();
  for (const { table, row: raw } of records) {
    const row = decodeRow(raw);
    ensureColumns(db, table, row, known);
    if (table === 'sessions') {
      if (insert(db, table, row).changes > 0) stats.rowsInserted++;
      else stats.rowsSkipped++;
    } else {
      // messages: keep the id when it is free; the same message already there is a duplicate; an
      // unrelated message holding the id means this one gets a fresh id.
      const existing = db
        .prepare('SELECT session_id, timestamp, content, role FROM messages WHERE id = ?')
        .get(row.id) as Row | undefined;
      if (!existing) {
        insert(db, table, row, '');
        stats.rowsInserted++;
      } else if (
        existing.session_id === row.session_id &&
        existing.timestamp === row.timestamp &&
        existing.content === row.content &&
        existing.role === row.role
      ) {
        stats.rowsSkipped++;
      } else {
        const { id: _id, ...rest } = row;
        insert(db, table, rest, '');
        stats.rowsInserted++;
      }
    }
    progress.tick();
  }
}

function importFacts(
  db: RawDb,
  records: ReadonlyArray<{ table: string; row: Row }>,
  stats: ImportStats,
  progress: Progress,
): void {
  const known = new Map<string, Set<string>>();
  const factIds = new Map<unknown, number>();
  const entityIds = new Map<unknown, number>();
  for (const { table, row: raw } of records) {
    const row = decodeRow(raw);
    if (!tableExists(db, table)) {
      stats.rowsSkipped++;
      progress.tick();
      continue;
    }
    ensureColumns(db, table, row, known);
    if (table === 'facts') {
      const same = db.prepare('SELECT fact_id FROM facts WHERE content = ?').get(row.content) as
        | { fact_id: number }
        | undefined;
      if (same) {
        factIds.set(row.fact_id, same.fact_id);
        stats.rowsSkipped++;
      } else {
        const taken = db.prepare('SELECT 1 FROM facts WHERE fact_id = ?').get(row.fact_id) !== undefined;
        const { fact_id: _f, ...rest } = row;
        const result = insert(db, table, taken ? rest : row, '');
        factIds.set(row.fact_id, Number(result.lastInsertRowid));
        stats.rowsInserted++;
      }
    } else if (table === 'entities') {
      const byId = db.prepare('SELECT name FROM entities WHERE entity_id = ?').get(row.entity_id) as
        | { name: string }
        | undefined;
      if (byId && byId.name === row.name) {
        entityIds.set(row.entity_id, Number(row.entity_id));
        stats.rowsSkipped++;
      } else {
        const byName = db.prepare('SELECT entity_id FROM entities WHERE name = ?').get(row.name) as
          | { entity_id: number }
          | undefined;
        if (byName) {
          entityIds.set(row.entity_id, byName.entity_id);
          stats.rowsSkipped++;
        } else {
          const { entity_id: _e, ...rest } = row;
          const result = insert(db, table, byId ? rest : row, '');
          entityIds.set(row.entity_id, Number(result.lastInsertRowid));
          stats.rowsInserted++;
        }
      }
    } else if (table === 'fact_entities') {
      const mapped = {
        ...row,
        fact_id: factIds.get(row.fact_id) ?? row.fact_id,
        entity_id: entityIds.get(row.entity_id) ?? row.entity_id,
      };
      if (insert(db, table, mapped).changes > 0) stats.rowsInserted++;
      else stats.rowsSkipped++;
    } else {
      // memory_banks: derived per-category bundles; kept as exported when the name is free.
      if (insert(db, table, row).changes > 0) stats.rowsInserted++;
      else stats.rowsSkipped++;
    }
    progress.tick();
  }
}
