import { SessionStore } from '@hermes-memory/builtin';
import {
  type PortableRecord,
  type ProviderImportResult,
  type SqliteRow,
  addMissingColumns,
  decodeSqliteRow,
  describeError,
  ensureDir,
  importTransaction,
  insertRow,
  loadHermesConfig,
} from '@hermes-memory/core';
import type { Command } from '../command';
import { type CommandContext, parseCommandArgs } from '../context';
import { CliError } from '../errors';
import { homePaths } from '../paths';
import { type ExportRecord, type RawDb, openRawDb, readExport } from '../portable';
import type { Progress } from '../progress';
import { type LoadedProviderCli, providerCliContext, requireProviderCli } from '../provider-seam';
import { openMemoryStore } from '../stores';

const USAGE = `Usage: hermes-memory import <file | ->

Load a 'hermes-memory export' file into this home. Every line is validated before anything is
written, providers' records by the provider itself (which must be installed). Memory entries go
through the memory store (limits, scanner, duplicates skipped); sessions and messages keep their
ids where free; each provider imports its own records the same way. What already exists is
skipped, so importing the same file twice changes nothing.`;

interface ImportStats {
  memoryAdded: number;
  memorySkipped: number;
  memoryRefused: Array<{ target: string; content: string; error: string }>;
  /** state.db rows and providers' records, together. */
  rowsInserted: number;
  rowsSkipped: number;
  providers: Record<string, ProviderImportResult>;
}

export const importCommand: Command = {
  name: 'import',
  usage: USAGE,
  async run(ctx, argv) {
    const { positionals } = parseCommandArgs(argv, {}, 'import');
    if (positionals.length !== 1)
      throw new CliError('import takes one file (or - for stdin).', { exitCode: 2 });
    const records = readExport(positionals[0]!);
    const providers = await providersFor(ctx, records);
    ensureDir(ctx.home);
    const progress = ctx.progress('importing', records.length - 1);
    const stats = await importRecords(ctx, records, progress, providers);
    progress.done();
    const refused = stats.memoryRefused.length + providerRefusals(stats).length;
    if (ctx.json) ctx.printJson(stats);
    else {
      ctx.out(
        `${ctx.style.green('✓')} imported ${stats.memoryAdded} memory entries (${stats.memorySkipped} already present), ` +
          `${stats.rowsInserted} rows (${stats.rowsSkipped} already present)`,
      );
      for (const r of stats.memoryRefused) ctx.err(`hermes-memory: refused ${r.target} entry: ${r.error}`);
      for (const r of providerRefusals(stats))
        ctx.err(`hermes-memory: refused ${r.provider} record: ${r.error}`);
    }
    return refused > 0 ? 1 : 0;
  },
};

function providerRefusals(stats: ImportStats): Array<{ provider: string; error: string }> {
  return Object.entries(stats.providers).flatMap(([provider, r]) =>
    r.refused.map((x) => ({ provider, error: x.error })),
  );
}

/**
 * The CLI module of every provider the file has records for, each record validated by it: a
 * provider that is missing, cannot import, or rejects a record stops the import before any write.
 */
async function providersFor(
  ctx: CommandContext,
  records: readonly ExportRecord[],
): Promise<Map<string, LoadedProviderCli>> {
  const out = new Map<string, LoadedProviderCli>();
  const ids = new Set(records.flatMap((r) => (r.type === 'record' ? [r.provider] : [])));
  for (const id of ids) {
    let loaded: LoadedProviderCli;
    try {
      loaded = await requireProviderCli(ctx, id);
    } catch (error) {
      throw new CliError(`The export holds records of provider '${id}': ${describeError(error)}`);
    }
    if (!loaded.module.importRecords)
      throw new CliError(`The export holds records of provider '${id}', which cannot import records.`);
    out.set(id, loaded);
  }
  let line = 0;
  for (const r of records) {
    line++;
    if (r.type !== 'record') continue;
    const problem = out.get(r.provider)?.module.validateRecord?.(r.data);
    if (problem) throw new CliError(`Record ${line} (${r.provider}): ${problem}.`);
  }
  return out;
}

export async function importRecords(
  ctx: CommandContext,
  records: readonly ExportRecord[],
  progress: Progress,
  providers: ReadonlyMap<string, LoadedProviderCli>,
): Promise<ImportStats> {
  const home = ctx.home;
  const stats: ImportStats = {
    memoryAdded: 0,
    memorySkipped: 0,
    memoryRefused: [],
    rowsInserted: 0,
    rowsSkipped: 0,
    providers: {},
  };
  const memory = records.filter((r): r is Extract<ExportRecord, { type: 'memory' }> => r.type === 'memory');
  if (memory.length > 0) {
    const store = openMemoryStore(home, { create: true });
    for (const r of memory) {
      const result = await store.add(r.target, r.content, { writeOrigin: 'import' });
      if (!result.success)
        stats.memoryRefused.push({ target: r.target, content: r.content, error: String(result.error) });
      else if (String(result.message).startsWith('Entry already exists')) stats.memorySkipped++;
      else stats.memoryAdded++;
      progress.tick();
    }
  }
  const stateRows = records.filter((r): r is Extract<ExportRecord, { type: 'row' }> => r.type === 'row');
  if (stateRows.length > 0) {
    // The real store creates (or migrates) the schema; rows then go in through one transaction
    // that waits out an agent's writes.
    new SessionStore({ hermesHome: home }).close();
    const file = homePaths(home).stateDb;
    const db = openRawDb(file, { readonly: false });
    try {
      db.pragma('foreign_keys = OFF');
      importTransaction(db, file, () => importState(db, stateRows, stats, progress));
    } finally {
      db.close();
    }
  }
  const config = loadHermesConfig(home);
  for (const [id, { module }] of providers) {
    const own: PortableRecord[] = [];
    for (const r of records) if (r.type === 'record' && r.provider === id) own.push(r.data);
    const result = await module.importRecords!(
      providerCliContext(ctx, { id, module }, { config }),
      own,
      progress,
    );
    stats.providers[id] = result;
    stats.rowsInserted += result.inserted;
    stats.rowsSkipped += result.skipped;
  }
  return stats;
}

function importState(
  db: RawDb,
  records: ReadonlyArray<{ table: string; row: PortableRecord }>,
  stats: ImportStats,
  progress: Progress,
): void {
  const known = new Map<string, Set<string>>();
  for (const { table, row: raw } of records) {
    const row = decodeSqliteRow(raw);
    addMissingColumns(db, table, row, known);
    if (table === 'sessions') {
      if (insertRow(db, table, row).changes > 0) stats.rowsInserted++;
      else stats.rowsSkipped++;
    } else {
      // messages: keep the id when it is free; the same message already there is a duplicate; an
      // unrelated message holding the id means this one gets a fresh id.
      const existing = db
        .prepare('SELECT session_id, timestamp, content, role FROM messages WHERE id = ?')
        .get(row.id) as SqliteRow | undefined;
      if (!existing) {
        insertRow(db, table, row, 'plain');
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
        insertRow(db, table, rest, 'plain');
        stats.rowsInserted++;
      }
    }
    progress.tick();
  }
}
