/**
 * The store in `hermes-memory export` / `import` (decision 0601): one record per live entry,
 * `{"entry": {id, kind, text, createdAt, target?, sessionId?}}`, oldest first. Import keeps ids, so
 * export → import into an empty home → export gives identical lines, and a second import adds nothing.
 */
import {
  type CliProgress,
  type PortableRecord,
  type ProviderCliContext,
  type ProviderImportResult,
  neutralizeMemoryText,
  scanWrite,
} from '@hermes-memory/core';
import { type StoredEntry, isStoredEntry } from '../template-store';
import { openStore } from './store-file';

export async function* exportTemplateRecords(ctx: ProviderCliContext): AsyncGenerator<PortableRecord> {
  const { store } = await openStore(ctx);
  for (const entry of store.all()) yield { entry: { ...entry } };
}

export function validateTemplateRecord(record: PortableRecord): string | undefined {
  return isStoredEntry(record.entry) ? undefined : 'expected {"entry": {id, kind, text, createdAt}}';
}

/**
 * Append the entries the store lacks, in one durable append. Imported text is a write like any
 * other: what the write scanner blocks is refused and reported, never stored. An agent running on
 * the same home sees the imported entries at its next start (the file is append-only, so nothing
 * it wrote meanwhile is lost).
 */
export async function importTemplateRecords(
  ctx: ProviderCliContext,
  records: readonly PortableRecord[],
  progress: CliProgress,
): Promise<ProviderImportResult> {
  const { store } = await openStore(ctx, { repair: true });
  const accepted: StoredEntry[] = [];
  const refused: ProviderImportResult['refused'] = [];
  for (const record of records) {
    const entry = record.entry as unknown as StoredEntry;
    const scan = scanWrite(entry.text);
    if (scan.ok) accepted.push({ ...entry, text: neutralizeMemoryText(entry.text) });
    else refused.push({ error: `entry ${entry.id}: ${scan.message}`, record });
    progress.tick();
  }
  const added = await store.importEntries(accepted);
  progress.done();
  return { inserted: added.length, skipped: accepted.length - added.length, refused };
}
