/**
 * The fact store in the portable export (decisions 0601, 0603): one record per row,
 * `{"table": "<table>", "row": {every column}}`, tables in a fixed order, rows in rowid order.
 */
import fs from 'node:fs';
import {
  type CliProgress,
  type PortableRecord,
  type ProviderCliContext,
  type ProviderImportResult,
  type SqliteHandle,
  type SqliteRow,
  addMissingColumns,
  decodeSqliteRow,
  exportTableRows,
  importTransaction,
  insertRow,
  sqliteRowProblem,
  tableExists,
} from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { guardFactText } from '../guard';
import { FactStore } from '../store';
import { factsDbPath } from './db-path';
import { openReadonly } from './open-store';

/** Exported in this order, so ids are remapped before the links that use them. */
export const FACT_TABLES = ['facts', 'entities', 'fact_entities', 'memory_banks'] as const;

export function* exportFactRecords(ctx: ProviderCliContext): Generator<PortableRecord> {
  const file = factsDbPath(ctx);
  if (!fs.existsSync(file)) return;
  const db = openReadonly(file);
  try {
    for (const table of FACT_TABLES) {
      if (!tableExists(db, table)) continue;
      for (const row of exportTableRows(db, table)) yield { table, row };
    }
  } finally {
    db.close();
  }
}

export function validateFactRecord(record: PortableRecord): string | undefined {
  const table = record.table;
  if (typeof table !== 'string' || !(FACT_TABLES as readonly string[]).includes(table))
    return `unknown fact table ${JSON.stringify(table)}`;
  return sqliteRowProblem(record.row);
}

/**
 * Insert imported rows in one transaction. Facts pass the same guard as `fact_store add` (a
 * refused one is reported and its entity links dropped), dedupe by content (a taken id gets a
 * fresh one, and links follow it); entities dedupe by name; links and category banks are kept
 * when free. The side index and banks are rebuilt from the imported rows afterwards.
 */
export async function importFactRecords(
  ctx: ProviderCliContext,
  records: readonly PortableRecord[],
  progress: CliProgress,
): Promise<ProviderImportResult> {
  const result: ProviderImportResult = { inserted: 0, skipped: 0, refused: [] };
  if (records.length === 0) return result;
  const dbPath = factsDbPath(ctx);
  // The real store creates (or migrates) the schema; rows then go in through one transaction.
  new FactStore({ dbPath }).close();
  const db = new Database(dbPath, { fileMustExist: true, timeout: 5000 });
  try {
    db.pragma('foreign_keys = OFF');
    importTransaction(db, dbPath, () => insertFacts(db, records, result, progress));
  } finally {
    db.close();
  }
  const store = new FactStore({ dbPath });
  try {
    store.syncSideIndex();
  } finally {
    store.close();
  }
  return result;
}

function insertFacts(
  db: SqliteHandle,
  records: readonly PortableRecord[],
  result: ProviderImportResult,
  progress: CliProgress,
): void {
  const known = new Map<string, Set<string>>();
  const factIds = new Map<unknown, number>();
  const refusedFacts = new Set<unknown>();
  const entityIds = new Map<unknown, number>();
  const recent = db.prepare('SELECT content FROM facts WHERE category = ? ORDER BY fact_id DESC LIMIT 8');
  for (const record of records) {
    const table = record.table as string;
    const row = decodeSqliteRow(record.row as Record<string, unknown>);
    progress.tick();
    if (!tableExists(db, table)) {
      result.skipped++;
      continue;
    }
    addMissingColumns(db, table, row, known);
    if (table === 'facts') {
      // Facts are recalled into the prompt: an imported one passes the same guard as a written one.
      const others = (recent.all(row.category ?? 'general') as Array<{ content: string }>).map(
        (r) => r.content,
      );
      const guarded = guardFactText(String(row.content ?? ''), others);
      if (!guarded.ok) {
        refusedFacts.add(row.fact_id);
        result.refused.push({ error: `fact ${String(row.fact_id)}: ${guarded.error}`, record });
        continue;
      }
      insertFact(db, { ...row, content: guarded.content }, factIds, result);
    } else if (table === 'entities') insertEntity(db, row, entityIds, result);
    else if (table === 'fact_entities') {
      if (refusedFacts.has(row.fact_id)) continue;
      const mapped = {
        ...row,
        fact_id: factIds.get(row.fact_id) ?? row.fact_id,
        entity_id: entityIds.get(row.entity_id) ?? row.entity_id,
      };
      count(result, insertRow(db, table, mapped).changes > 0);
    } else {
      // memory_banks: derived per-category bundles; kept as exported when the name is free.
      count(result, insertRow(db, table, row).changes > 0);
    }
  }
}

function insertFact(
  db: SqliteHandle,
  row: SqliteRow,
  factIds: Map<unknown, number>,
  result: ProviderImportResult,
) {
  const same = db.prepare('SELECT fact_id FROM facts WHERE content = ?').get(row.content) as
    | { fact_id: number }
    | undefined;
  if (same) {
    factIds.set(row.fact_id, same.fact_id);
    result.skipped++;
    return;
  }
  const taken = db.prepare('SELECT 1 FROM facts WHERE fact_id = ?').get(row.fact_id) !== undefined;
  const { fact_id: _f, ...rest } = row;
  const inserted = insertRow(db, 'facts', taken ? rest : row, 'plain');
  factIds.set(row.fact_id, Number(inserted.lastInsertRowid));
  result.inserted++;
}

function insertEntity(
  db: SqliteHandle,
  row: SqliteRow,
  entityIds: Map<unknown, number>,
  result: ProviderImportResult,
) {
  const byId = db.prepare('SELECT name FROM entities WHERE entity_id = ?').get(row.entity_id) as
    | { name: string }
    | undefined;
  if (byId && byId.name === row.name) {
    entityIds.set(row.entity_id, Number(row.entity_id));
    result.skipped++;
    return;
  }
  const byName = db.prepare('SELECT entity_id FROM entities WHERE name = ?').get(row.name) as
    | { entity_id: number }
    | undefined;
  if (byName) {
    entityIds.set(row.entity_id, byName.entity_id);
    result.skipped++;
    return;
  }
  const { entity_id: _e, ...rest } = row;
  const inserted = insertRow(db, 'entities', byId ? rest : row, 'plain');
  entityIds.set(row.entity_id, Number(inserted.lastInsertRowid));
  result.inserted++;
}

function count(result: ProviderImportResult, inserted: boolean): void {
  if (inserted) result.inserted++;
  else result.skipped++;
}
