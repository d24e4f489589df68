/**
 * Hindsight's part of `hermes-memory export` / `import` (decision 0601): every document of the
 * bank with its original text, tags and metadata, as the service lists it. Import retains each
 * under its original document id (replace mode), so importing a file twice stores nothing twice.
 */
import {
  type CliProgress,
  type JsonValue,
  type PortableRecord,
  type ProviderCliContext,
  type ProviderImportResult,
  scanWrite,
} from '@hermes-memory/core';
import { eventTimestamp } from '../retain';
import { cliApi, cliSetup } from './connection';

const PAGE = 100;

export async function* exportHindsightRecords(ctx: ProviderCliContext): AsyncIterable<PortableRecord> {
  const setup = cliSetup(ctx);
  const api = cliApi(ctx, setup);
  for (let offset = 0; ; offset += PAGE) {
    const { items, total } = await api.listDocuments(setup.bankId, offset, PAGE, ctx.signal);
    for (const item of items) {
      const id = typeof item.id === 'string' ? item.id : '';
      if (id === '') continue;
      const doc = await api.getDocument(setup.bankId, id, ctx.signal);
      yield {
        id,
        bank: setup.bankId,
        content: typeof doc.original_text === 'string' ? doc.original_text : '',
        tags: Array.isArray(doc.tags) ? doc.tags.map(String) : [],
        metadata: toJson(doc.document_metadata ?? {}),
        createdAt: doc.created_at,
        updatedAt: doc.updated_at,
      };
    }
    if (items.length === 0 || offset + PAGE >= total) return;
  }
}

export function validateHindsightRecord(record: PortableRecord): string | undefined {
  if (typeof record.id !== 'string' || record.id === '') return 'a hindsight record needs a string id';
  if (typeof record.content !== 'string' || record.content.trim() === '')
    return `record ${record.id}: content is empty`;
  if (
    record.tags !== undefined &&
    (!Array.isArray(record.tags) || !record.tags.every((t) => typeof t === 'string'))
  )
    return `record ${record.id}: tags must be a list of strings`;
  const scan = scanWrite(record.content);
  if (!scan.ok) return `record ${record.id}: ${scan.message}`;
  return undefined;
}

export async function importHindsightRecords(
  ctx: ProviderCliContext,
  records: readonly PortableRecord[],
  progress?: CliProgress,
): Promise<ProviderImportResult> {
  const setup = cliSetup(ctx);
  const api = cliApi(ctx, setup);
  const result: ProviderImportResult = { inserted: 0, skipped: 0, refused: [] };
  for (const record of records) {
    progress?.tick();
    const invalid = validateHindsightRecord(record);
    if (invalid) {
      result.refused.push({ error: invalid, record });
      continue;
    }
    const metadata: Record<string, string> = {};
    if (typeof record.metadata === 'object' && record.metadata !== null && !Array.isArray(record.metadata)) {
      for (const [k, v] of Object.entries(record.metadata)) if (typeof v === 'string') metadata[k] = v;
    }
    try {
      // The same document with the same text is already there: nothing to do (a second import).
      const existing = await api.getDocument(setup.bankId, record.id as string, ctx.signal).catch(() => null);
      if (existing && existing.original_text === record.content) {
        result.skipped++;
        continue;
      }
      await api.retain(
        setup.bankId,
        [
          {
            content: record.content as string,
            timestamp:
              typeof record.createdAt === 'string' && !Number.isNaN(Date.parse(record.createdAt))
                ? record.createdAt
                : eventTimestamp(Date.now()),
            metadata,
            document_id: record.id as string,
            ...(Array.isArray(record.tags) && record.tags.length > 0
              ? { tags: record.tags as string[] }
              : {}),
          },
        ],
        { async: false },
        ctx.signal,
      );
      result.inserted++;
    } catch (error) {
      result.refused.push({ error: error instanceof Error ? error.message : String(error), record });
    }
  }
  progress?.done();
  return result;
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}
