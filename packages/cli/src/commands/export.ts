import fs from 'node:fs';
import path from 'node:path';
import {
  describeError,
  exportTableRows,
  loadHermesConfig,
  tableExists,
  writeFileAtomic,
} from '@hermes-memory/core';
import type { Command } from '../command';
import { type CommandContext, parseCommandArgs } from '../context';
import { CliError } from '../errors';
import { homePaths } from '../paths';
import { EXPORT_FORMAT, EXPORT_VERSION, type ExportRecord, STATE_TABLES, openRawDb } from '../portable';
import { providerCliContext, relevantProviderClis } from '../provider-seam';
import { openMemoryStore } from '../stores';

const USAGE = `Usage: hermes-memory export [--out <file>] [--provider <id> ...]

Write all local memory as JSON Lines: MEMORY.md and USER.md entries, every session and message of
state.db, and the records of the active provider and of every provider that keeps its data in
this home (e.g. the holographic fact store). Import it elsewhere with 'hermes-memory import
<file>'. Without --out the lines go to stdout. The file is created 0600: it holds everything the
agent remembers.

Options:
  --out, -o <file>   write to a file instead of stdout
  --provider <id>    also export this provider's records (e.g. a remote backend that is not
                     active); repeatable`;

export const exportCommand: Command = {
  name: 'export',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      { out: { type: 'string', short: 'o' }, provider: { type: 'string', multiple: true } },
      'export',
    );
    if (positionals.length > 0)
      throw new CliError(`export takes no arguments (use --out <file>).`, { exitCode: 2 });
    const records = await collectExport(ctx, { providers: values.provider ?? [] });
    const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
    if (values.out) {
      // Random temp name, created exclusively (never through a planted link), every byte checked:
      // a full disk fails here and leaves an earlier export at that path untouched.
      const out = path.resolve(ctx.io.cwd, values.out);
      try {
        writeFileAtomic(out, text, { createDirs: false });
      } catch (error) {
        throw new CliError(error instanceof Error ? error.message : String(error));
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

export function countRecords(records: readonly ExportRecord[]): {
  memoryEntries: number;
  rows: number;
  providers: Record<string, number>;
} {
  const providers: Record<string, number> = {};
  for (const r of records) if (r.type === 'record') providers[r.provider] = (providers[r.provider] ?? 0) + 1;
  return {
    memoryEntries: records.filter((r) => r.type === 'memory').length,
    rows: records.filter((r) => r.type === 'row' || r.type === 'record').length,
    providers,
  };
}

/**
 * Every export line: the header, the built-in stores, then each provider's records (active,
 * local-data and named providers, in discovery order). A provider module that fails stops the
 * export: a backup must never be silently incomplete.
 */
export async function collectExport(
  ctx: CommandContext,
  options: { providers?: readonly string[] } = {},
): Promise<ExportRecord[]> {
  const home = ctx.home;
  const records: ExportRecord[] = [{ type: EXPORT_FORMAT, version: EXPORT_VERSION }];
  if (fs.existsSync(homePaths(home).memoriesDir)) {
    const store = openMemoryStore(home, { create: false });
    for (const target of ['memory', 'user'] as const) {
      for (const content of store.entries(target)) records.push({ type: 'memory', target, content });
    }
  }
  const stateDb = homePaths(home).stateDb;
  if (fs.existsSync(stateDb)) {
    const db = openRawDb(stateDb, { readonly: true });
    try {
      for (const table of STATE_TABLES) {
        if (!tableExists(db, table)) continue;
        for (const row of exportTableRows(db, table))
          records.push({ type: 'row', store: 'state', table, row });
      }
    } finally {
      db.close();
    }
  }
  const config = loadHermesConfig(home);
  const { loaded, failed } = await relevantProviderClis(ctx, {
    active: config.memory.provider,
    named: options.providers ?? [],
  });
  if (failed[0]) throw new CliError(`Cannot export provider '${failed[0].id}': ${failed[0].error}`);
  for (const id of options.providers ?? [])
    if (!loaded.find((l) => l.id === id)?.module.exportRecords)
      throw new CliError(
        `Memory provider '${id}' has no records to export (its CLI module defines no exportRecords).`,
      );
  for (const { id, module } of loaded) {
    if (!module.exportRecords) continue;
    try {
      for await (const data of module.exportRecords(providerCliContext(ctx, { id, module }, { config })))
        records.push({ type: 'record', provider: id, data });
    } catch (error) {
      throw new CliError(`Cannot export provider '${id}': ${describeError(error)}`);
    }
  }
  return records;
}
