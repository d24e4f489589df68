/**
 * Supermemory's part of `hermes-memory export` / `import` (decision 0601): every document of the
 * primary and custom containers, as the service lists it. Import re-adds each under its original
 * id as `customId`, the service's dedupe key, so importing a file twice stores nothing twice.
 */
import type {
  CliProgress,
  JsonValue,
  PortableRecord,
  ProviderCliContext,
  ProviderImportResult,
} from '@hermes-memory/core';
import { scanWrite } from '@hermes-memory/core';
import { containerWhitelist } from '../containers';
import { hermesMetadata } from '../text';
import { cliClient, cliSetup } from './connection';

const PAGE = 100;

export async function* exportSupermemoryRecords(ctx: ProviderCliContext): AsyncIterable<PortableRecord> {
  const setup = cliSetup(ctx);
  const client = cliClient(ctx, setup);
  const containerTags = containerWhitelist(setup.containerTag, setup.config.customContainers);
  const seen = new Set<string>();
  for (let page = 1; ; page++) {
    const { documents, totalPages } = await client.listDocuments(
      { containerTags, page, limit: PAGE },
      ctx.signal,
    );
    for (const doc of documents) {
      if (seen.has(doc.id)) continue;
      seen.add(doc.id);
      yield {
        id: doc.id,
        customId: doc.customId ?? null,
        containerTags: [...doc.containerTags],
        content: doc.content ?? '',
        metadata: toJson(doc.metadata),
        createdAt: doc.createdAt,
        updatedAt: doc.updatedAt,
      };
    }
    if (page >= totalPages || documents.length === 0) return;
  }
}

export function validateSupermemoryRecord(record: PortableRecord): string | undefined {
  if (typeof record.id !== 'string' || record.id === '') return 'a supermemory record needs a string id';
  if (typeof record.content !== 'string' || record.content.trim() === '')
    return `record ${record.id}: content is empty`;
  if (!Array.isArray(record.containerTags) || !record.containerTags.every((t) => typeof t === 'string'))
    return `record ${record.id}: containerTags must be a list of strings`;
  const scan = scanWrite(record.content);
  if (!scan.ok) return `record ${record.id}: ${scan.message}`;
  return undefined;
}

export async function importSupermemoryRecords(
  ctx: ProviderCliContext,
  records: readonly PortableRecord[],
  progress?: CliProgress,
): Promise<ProviderImportResult> {
  const setup = cliSetup(ctx);
  const client = cliClient(ctx, setup);
  const result: ProviderImportResult = { inserted: 0, skipped: 0, refused: [] };
  for (const record of records) {
    progress?.tick();
    const invalid = validateSupermemoryRecord(record);
    if (invalid) {
      result.refused.push({ error: invalid, record });
      continue;
    }
    // Hermes writes each document to one container; the first tag is the one it was written to.
    const containerTag = (record.containerTags as string[])[0] ?? setup.containerTag;
    const metadata =
      typeof record.metadata === 'object' && record.metadata !== null && !Array.isArray(record.metadata)
        ? record.metadata
        : {};
    try {
      await client.addDocument(
        {
          content: record.content as string,
          containerTag,
          metadata: hermesMetadata(metadata),
          customId:
            typeof record.customId === 'string' && record.customId !== ''
              ? record.customId
              : (record.id as string),
        },
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
