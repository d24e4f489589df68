/**
 * Source documents and their segments: the text corpus-derived records point back to, so
 * `continuity_hydrate` can show the original passage for verification.
 */
import type { ContinuityStore } from './store';

export interface SourceDocument {
  id: number;
  path: string;
  sha256: string;
  title: string | null;
  bytes: number;
  observedAt: string | null;
  ingestedAt: string;
}

export interface SourceSegment {
  id: number;
  documentId: number;
  ordinal: number;
  heading: string | null;
  /** For transcripts: who said it. */
  speaker: string | null;
  text: string;
  startLine: number | null;
  endLine: number | null;
}

export type SegmentInput = Omit<SourceSegment, 'id' | 'documentId'>;

interface DocumentRow {
  id: number;
  path: string;
  sha256: string;
  title: string | null;
  bytes: number;
  observed_at: string | null;
  ingested_at: string;
}

interface SegmentRow {
  id: number;
  document_id: number;
  ordinal: number;
  heading: string | null;
  speaker: string | null;
  text: string;
  start_line: number | null;
  end_line: number | null;
}

function toDocument(r: DocumentRow): SourceDocument {
  return {
    id: r.id,
    path: r.path,
    sha256: r.sha256,
    title: r.title,
    bytes: r.bytes,
    observedAt: r.observed_at,
    ingestedAt: r.ingested_at,
  };
}

function toSegment(r: SegmentRow): SourceSegment {
  return {
    id: r.id,
    documentId: r.document_id,
    ordinal: r.ordinal,
    heading: r.heading,
    speaker: r.speaker,
    text: r.text,
    startLine: r.start_line,
    endLine: r.end_line,
  };
}

export class DocumentStore {
  constructor(private readonly store: ContinuityStore) {}

  /**
   * Store a document and its segments. The same path with the same content is stored once: the
   * existing rows are returned (`existed: true`), so re-running an ingest is idempotent.
   */
  add(
    doc: { path: string; sha256: string; title?: string | null; bytes: number; observedAt?: string | null },
    segments: readonly SegmentInput[],
  ): { document: SourceDocument; segments: SourceSegment[]; existed: boolean } {
    return this.store.transaction(() => {
      const found = this.store
        .stmt('SELECT * FROM source_documents WHERE path = ? AND sha256 = ?')
        .get(doc.path, doc.sha256) as DocumentRow | undefined;
      if (found) return { document: toDocument(found), segments: this.segmentsOf(found.id), existed: true };
      const info = this.store
        .stmt(
          'INSERT INTO source_documents (path, sha256, title, bytes, observed_at, ingested_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(
          doc.path,
          doc.sha256,
          doc.title ?? null,
          doc.bytes,
          doc.observedAt ?? null,
          this.store.now().toISOString(),
        );
      const documentId = Number(info.lastInsertRowid);
      const stmt = this.store.stmt(
        `INSERT INTO source_segments (document_id, ordinal, heading, speaker, text, start_line, end_line)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const s of segments)
        stmt.run(documentId, s.ordinal, s.heading, s.speaker, s.text, s.startLine, s.endLine);
      const document = toDocument(
        this.store.stmt('SELECT * FROM source_documents WHERE id = ?').get(documentId) as DocumentRow,
      );
      return { document, segments: this.segmentsOf(documentId), existed: false };
    });
  }

  document(id: number): SourceDocument | undefined {
    const row = this.store.stmt('SELECT * FROM source_documents WHERE id = ?').get(id) as
      | DocumentRow
      | undefined;
    return row ? toDocument(row) : undefined;
  }

  documents(): SourceDocument[] {
    return (this.store.stmt('SELECT * FROM source_documents ORDER BY id').all() as DocumentRow[]).map(
      toDocument,
    );
  }

  segment(id: number): SourceSegment | undefined {
    const row = this.store.stmt('SELECT * FROM source_segments WHERE id = ?').get(id) as
      | SegmentRow
      | undefined;
    return row ? toSegment(row) : undefined;
  }

  segmentsOf(documentId: number): SourceSegment[] {
    return (
      this.store
        .stmt('SELECT * FROM source_segments WHERE document_id = ? ORDER BY ordinal')
        .all(documentId) as SegmentRow[]
    ).map(toSegment);
  }

  /** The segment and up to `window` segments on each side, in document order. */
  around(segmentId: number, window: number): SourceSegment[] {
    const seg = this.segment(segmentId);
    if (!seg) return [];
    return (
      this.store
        .stmt(
          'SELECT * FROM source_segments WHERE document_id = ? AND ordinal BETWEEN ? AND ? ORDER BY ordinal',
        )
        .all(seg.documentId, seg.ordinal - window, seg.ordinal + window) as SegmentRow[]
    ).map(toSegment);
  }

  count(): { documents: number; segments: number } {
    const d = this.store.stmt('SELECT count(*) AS n FROM source_documents').get() as { n: number };
    const s = this.store.stmt('SELECT count(*) AS n FROM source_segments').get() as { n: number };
    return { documents: d.n, segments: s.n };
  }
}
