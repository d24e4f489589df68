import fs from 'node:fs';
import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import { CliError } from '../errors';
import { factsDbPath } from '../facts-store';
import { homePaths } from '../paths';
import {
  EXPORT_FORMAT,
  EXPORT_TABLES,
  EXPORT_VERSION,
  type ExportRecord,
  type Row,
  type StoreName,
  encodeRow,
  openRawDb,
  tableExists,
} from '../portable';
import { openMemoryStore } from '../stores';

const USAGE = `Usage: hermes-memory export [--out <file>]

Write all local memory as JSON Lines: MEMORY.md and USER.md entries, every session and message of
state.db, and the holographic fact store (facts, entities, links). Import it elsewhere with
'hermes-memory import <file>'. Without --out the lines go to stdout. The file is created 0600:
it holds everything the agent remembers.`;

export const exportCommand: Command = {
  name: 'export',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(argv, { out: { type: 'string', short: 'o' } }, 'export');
    if (positionals.length > 0)
      throw new CliError(`export takes no arguments (use --out <file>).`, { exitCode: 2 });
    const records = collectExport(ctx.home);
    const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    if (values.out) {
      const tmp = `${values.out}.tmp-${process.pid}`;
      try {
        fs.writeFileSync(tmp, text, { mode: 0o600 });
        fs.renameSync(tmp, values.out);
      } catch (error) {
        fs.rmSync(tmp, { force: true });
        const code = (error as NodeJS.ErrnoException).code;
        throw new CliError(`Cannot write ${values.out}${code ? ` (${code})` : ''}.`);
      }
      const counts = countRecords(records);
      if (ctx.json) ctx.printJson({ out: values.out, ...counts });
      else ctx.err(`exported ${counts.memoryEntries} memory entries, ${counts.rows} rows to ${values.out}`);
    } else {
      ctx.io.stdout(text);
    }
    return 0;
  },
};

export function countRecords(records: readonly ExportRecord[]): { memoryEntries: number; rows: number } {
  return {
    memoryEntries: records.filter((r) => r.type === 'memory').length,
    rows: records.filter((r) => r.type === 'row').length,
  };
}

export function collectExport(home: string): ExportRecord[] {
  const records: ExportRecord[] = [{ type: EXPORT_FORMAT, version: EXPORT_VERSION }];
  if (fs.existsSync(homePaths(home).memoriesDir)) {
    const store = openMemoryStore(home);
    for (const target of ['memory', 'user'] as const) {
      for (const content of store.entries(target)) records.push({ type: 'memory', target, content });
    }
  }
  const dbs: Array<[StoreName, string]> = [
    ['state', homePaths(home).stateDb],
    ['facts', factsDbPath(home)],
  ];
  for (const [store, file] of dbs) {
    if (!fs.existsSync(file)) continue;
    const db = openRawDb(file, { readonly: true });
    try {
      for (const table of EXPORT_TABLES[store]) {
        if (!tableExists(db, table)) continue;
        const rows = db.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all() as Row[];
        for (const row of rows) records.push({ type: 'row', store, table, row: encodeRow(row) });
      }
    } finally {
      db.close();
    }
  }
  return records;
}
