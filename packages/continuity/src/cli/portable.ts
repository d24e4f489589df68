/**
 * Export and import of a continuity store as plain JSON items (one per JSONL line in the portable
 * export, decision 0909): source documents, segments, records (every status, with sources) and
 * edges, in dependency order. Derived data (vectors, the FTS index) and logs are not exported.
 * Import validates everything first and writes in one transaction; export → import into an empty
 * home → export gives the same items.
 */
import fs from 'node:fs';
import type {
  BusyRetryOptions,
  CliProgress,
  PortableRecord,
  ProviderCliContext,
  ProviderImportResult,
} from '@hermes-memory/core';
import { DocumentStore, type SourceDocument, type SourceSegment } from '../documents';
import { type ContextRecord, isRecordStatus, normalizeRecordInput } from '../records';
import { checkRecordSafety } from '../safety';
import { ContinuityStore, type Edge } from '../store';
import { openStore } from './commands';
import { continuityDbPath, storeContext } from './db-path';

export type ContinuityExportItem =
  | { type: 'document'; document: SourceDocument }
  | { type: 'segment'; segment: SourceSegment }
  | { type: 'record'; record: ContextRecord }
  | { type: 'edge'; edge: Edge };

export function* exportItems(store: ContinuityStore): Generator<ContinuityExportItem> {
  const docs = new DocumentStore(store);
  for (const document of docs.documents()) {
    yield { type: 'document', document };
    for (const segment of docs.segmentsOf(document.id)) yield { type: 'segment', segment };
  }
  for (const r of store.iterate()) {
    const { seq: _seq, ...record } = r;
    yield { type: 'record', record };
  }
  for (const edge of store.db
    .prepare('SELECT src, dst, relation, weight FROM edges ORDER BY src, dst, relation')
    .all() as Edge[])
    yield { type: 'edge', edge };
}

export interface ImportItemsReport {
  documents: number;
  segments: number;
  records: number;
  edges: number;
  /** Items already present (same document content, same record id, same edge). */
  skipped: number;
}

function invalid(message: string): never {
  throw new Error(message);
}

/** Check one record item fully (the same rules as every write path; secrets are refused). */
function validRecord(raw: unknown): ContextRecord {
  const r = raw as ContextRecord;
  if (typeof r !== 'object' || r === null) invalid('record must be an object');
  try {
    checkRecordSafety(
      normalizeRecordInput({
        id: r.id,
        kind: r.kind,
        title: r.title,
        summary: r.summary,
        details: r.details,
        scopes: r.scopes,
        tags: r.tags,
        entities: r.entities,
        confidence: r.confidence,
        importance: r.importance,
        trustLevel: r.trustLevel,
        expiresAt: r.expiresAt,
        observedAt: r.observedAt,
        sources: r.sources,
        skillLinks: r.skillLinks,
      }),
      'reject',
    );
  } catch (error) {
    invalid(error instanceof Error ? error.message : String(error));
  }
  if (typeof r.id !== 'string') invalid('record.id is required');
  if (!isRecordStatus(r.status)) invalid(`record.status '${String(r.status)}' is not a lifecycle status`);
  for (const k of ['createdAt', 'updatedAt', 'observedAt'] as const)
    if (typeof r[k] !== 'string' || Number.isNaN(Date.parse(r[k])))
      invalid(`record.${k} must be an ISO time`);
  return r;
}

/** One item checked as import checks it (throws the problem), records normalised. */
export function parseItem(raw: unknown): ContinuityExportItem {
  const item = raw as ContinuityExportItem;
  if (typeof item !== 'object' || item === null) invalid('not an object');
  switch (item.type) {
    case 'document':
      if (
        typeof item.document?.path !== 'string' ||
        typeof item.document.sha256 !== 'string' ||
        !Number.isSafeInteger(item.document.id)
      )
        invalid('document needs id, path and sha256');
      return item;
    case 'segment':
      if (
        !Number.isSafeInteger(item.segment?.documentId) ||
        typeof item.segment.text !== 'string' ||
        !Number.isSafeInteger(item.segment.ordinal)
      )
        invalid('segment needs documentId, ordinal and text');
      return item;
    case 'record':
      return { type: 'record' as const, record: validRecord(item.record) };
    case 'edge':
      if (
        typeof item.edge?.src !== 'string' ||
        typeof item.edge.dst !== 'string' ||
        typeof item.edge.relation !== 'string'
      )
        invalid('edge needs src, dst and relation');
      return item;
    default:
      return invalid(`unknown item type '${String((item as { type?: unknown }).type)}'`);
  }
}

/**
 * Import items (from `exportItems`, possibly of another home). Nothing is written unless all are
 * valid; the writes wait out another writer's lock (`lock`: the busy-retry options, for tests).
 */
export function importItems(
  store: ContinuityStore,
  items: readonly unknown[],
  lock: BusyRetryOptions = {},
): ImportItemsReport {
  const parsed = items.map((raw, i) => {
    try {
      return parseItem(raw);
    } catch (error) {
      throw new Error(`item ${i + 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  const db = store.db;
  return store.importTransaction(() => {
    const report: ImportItemsReport = { documents: 0, segments: 0, records: 0, edges: 0, skipped: 0 };
    const docIds = new Map<number, number>();
    const segIds = new Map<number, number>();
    const freshDocs = new Set<number>();
    for (const item of parsed) {
      if (item.type === 'document') {
        const d = item.document;
        const existing = db
          .prepare('SELECT id FROM source_documents WHERE path = ? AND sha256 = ?')
          .get(d.path, d.sha256) as { id: number } | undefined;
        if (existing) {
          docIds.set(d.id, existing.id);
          report.skipped++;
          continue;
        }
        const taken = db.prepare('SELECT 1 FROM source_documents WHERE id = ?').get(d.id);
        const info = db
          .prepare(
            'INSERT INTO source_documents (id, path, sha256, title, bytes, observed_at, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            taken ? null : d.id,
            d.path,
            d.sha256,
            d.title ?? null,
            d.bytes ?? 0,
            d.observedAt ?? null,
            d.ingestedAt ?? store.now().toISOString(),
          );
        docIds.set(d.id, Number(info.lastInsertRowid));
        freshDocs.add(d.id);
        report.documents++;
      } else if (item.type === 'segment') {
        const s = item.segment;
        const documentId = docIds.get(s.documentId);
        if (documentId === undefined)
          throw new Error(`segment ${s.id}: its document ${s.documentId} is not in the import`);
        if (!freshDocs.has(s.documentId)) {
          const existing = db
            .prepare('SELECT id FROM source_segments WHERE document_id = ? AND ordinal = ?')
            .get(documentId, s.ordinal) as { id: number } | undefined;
          if (existing) {
            segIds.set(s.id, existing.id);
            report.skipped++;
            continue;
          }
        }
        const taken = db.prepare('SELECT 1 FROM source_segments WHERE id = ?').get(s.id);
        const info = db
          .prepare(
            'INSERT INTO source_segments (id, document_id, ordinal, heading, speaker, text, start_line, end_line) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          )
          .run(
            taken ? null : s.id,
            documentId,
            s.ordinal,
            s.heading ?? null,
            s.speaker ?? null,
            s.text,
            s.startLine ?? null,
            s.endLine ?? null,
          );
        segIds.set(s.id, Number(info.lastInsertRowid));
        report.segments++;
      } else if (item.type === 'record') {
        const r = item.record;
        if (store.get(r.id)) {
          report.skipped++;
          continue;
        }
        const sources = r.sources.map((s) => {
          if (s.segmentId === undefined) return s;
          const mapped = segIds.get(s.segmentId);
          if (mapped === undefined)
            throw new Error(`record ${r.id}: its source segment ${s.segmentId} is not in the import`);
          return { ...s, segmentId: mapped };
        });
        store.insertExact({ ...r, details: r.details ?? null, skillLinks: r.skillLinks ?? [], sources });
        report.records++;
      } else {
        const e = item.edge;
        const ends = db.prepare('SELECT count(*) AS n FROM records WHERE id IN (?, ?)').get(e.src, e.dst) as {
          n: number;
        };
        if (ends.n !== 2)
          throw new Error(`edge ${e.src} → ${e.dst}: a record it links is not in the store or the import`);
        if (
          db
            .prepare('SELECT 1 FROM edges WHERE src = ? AND dst = ? AND relation = ?')
            .get(e.src, e.dst, e.relation)
        ) {
          report.skipped++;
          continue;
        }
        store.linkUnchecked(e.src, e.dst, e.relation, e.weight);
        report.edges++;
      }
    }
    return report;
  }, lock);
}

/** The store's records in `hermes-memory export`: `exportItems` of the configured store. */
export function* exportContinuityRecords(ctx: ProviderCliContext): Generator<PortableRecord> {
  const file = continuityDbPath(ctx);
  if (!fs.existsSync(file)) return;
  const store = new ContinuityStore({ dbPath: file, readonly: true });
  try {
    // Items are plain JSON already; the round trip drops the keys that hold `undefined`.
    for (const item of exportItems(store)) yield JSON.parse(JSON.stringify(item)) as PortableRecord;
  } finally {
    store.close();
  }
}

export function validateContinuityRecord(record: PortableRecord): string | undefined {
  try {
    parseItem(record);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** `importItems` into the configured store (created when missing), in one transaction. */
export async function importContinuityRecords(
  ctx: ProviderCliContext,
  records: readonly PortableRecord[],
  progress: CliProgress,
): Promise<ProviderImportResult> {
  if (records.length === 0) return { inserted: 0, skipped: 0, refused: [] };
  const store = openStore(storeContext(ctx));
  try {
    const report = importItems(store, records);
    progress.tick(records.length);
    return {
      inserted: report.documents + report.segments + report.records + report.edges,
      skipped: report.skipped,
      refused: [],
    };
  } finally {
    store.close();
  }
}
