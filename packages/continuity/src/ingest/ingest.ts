/**
 * Review-first corpus ingestion, step one: source files → document inventory → segments →
 * candidate records. Documents and segments are stored (secrets masked) so imported records can be
 * hydrated later; candidates are only returned, for review. Never automatic, never background.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { redactSecrets } from '@hermes-memory/core';
import { DocumentStore } from '../documents';
import type { ContinuityStore } from '../store';
import { type CandidateRecord, candidateFromSegment } from './candidates';
import { type DocumentFormat, detectFormat, segmentText } from './segment';

/** Text formats ingestion reads. */
export const TEXT_EXTENSIONS = ['.md', '.markdown', '.mdx', '.txt', '.text', '.rst', '.org', '.log'];
/** Files never read: credentials and keys, whatever their extension. */
const SECRET_FILES = /(^\.env(\..*)?$|^id_[a-z0-9]+$|\.(pem|key|p12|pfx|keystore)$|^\.netrc$|credentials)/i;
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'dist', 'build', '.venv', '__pycache__']);
/** Larger files are skipped (logs and dumps are not memory). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;

export interface TextDocument {
  /** Where it came from (a path, or any stable name). */
  path: string;
  text: string;
  title?: string | null;
  /** When its content was written (a file's mtime, a session date). */
  observedAt?: string | null;
  format?: DocumentFormat;
}

export interface IngestReport {
  documents: number;
  /** Documents already ingested with the same content (their candidates are proposed again). */
  unchanged: number;
  segments: number;
  skipped: Array<{ path: string; reason: string }>;
}

/** Store one document and its segments; propose a candidate per segment. */
export function ingestText(
  store: ContinuityStore,
  doc: TextDocument,
): { candidates: CandidateRecord[]; existed: boolean; segments: number } {
  const text = redactSecrets(doc.text);
  const sha256 = createHash('sha256').update(text).digest('hex');
  const format = doc.format ?? detectFormat(text, doc.path);
  const segments = segmentText(text, format);
  const stored = new DocumentStore(store).add(
    {
      path: doc.path,
      sha256,
      title: doc.title ?? null,
      bytes: Buffer.byteLength(text),
      observedAt: doc.observedAt ?? null,
    },
    segments,
  );
  return {
    candidates: stored.segments.map((s) => candidateFromSegment(stored.document, s)),
    existed: stored.existed,
    segments: stored.segments.length,
  };
}

function* walk(target: string, skipped: IngestReport['skipped']): Generator<string> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(target);
  } catch {
    skipped.push({ path: target, reason: 'not found' });
    return;
  }
  const base = path.basename(target);
  if (stat.isDirectory()) {
    if (SKIPPED_DIRS.has(base) || (base.startsWith('.') && base !== '.' && base !== '..')) return;
    for (const entry of fs.readdirSync(target).sort()) yield* walk(path.join(target, entry), skipped);
    return;
  }
  if (!stat.isFile()) return;
  if (SECRET_FILES.test(base)) skipped.push({ path: target, reason: 'looks like a credentials file' });
  else if (!TEXT_EXTENSIONS.includes(path.extname(base).toLowerCase()))
    skipped.push({ path: target, reason: 'not a text format' });
  else if (stat.size > MAX_FILE_BYTES)
    skipped.push({ path: target, reason: `larger than ${MAX_FILE_BYTES} bytes` });
  else yield target;
}

/** Ingest files and folders (recursively; hidden folders, credentials and binaries are skipped). */
export function ingestPaths(
  store: ContinuityStore,
  paths: readonly string[],
): { candidates: CandidateRecord[]; report: IngestReport } {
  const report: IngestReport = { documents: 0, unchanged: 0, segments: 0, skipped: [] };
  const candidates: CandidateRecord[] = [];
  for (const p of paths) {
    for (const file of walk(path.resolve(p), report.skipped)) {
      const bytes = fs.readFileSync(file);
      if (bytes.includes(0)) {
        report.skipped.push({ path: file, reason: 'binary content' });
        continue;
      }
      const result = ingestText(store, {
        path: file,
        text: bytes.toString('utf8'),
        title: path.basename(file),
        observedAt: fs.statSync(file).mtime.toISOString(),
      });
      report.documents++;
      if (result.existed) report.unchanged++;
      report.segments += result.segments;
      candidates.push(...result.candidates);
    }
  }
  return { candidates, report };
}
