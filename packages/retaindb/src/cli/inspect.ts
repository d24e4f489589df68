/** What the queue file holds, read-only: never creates, migrates or claims anything. */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { QUEUE_FILE } from '../queue/queue-db';
import { type LeaseHolder, readLease } from '../queue/writer-lease';

export interface QueueRowSummary {
  id: number;
  session_id: string;
  created_at: string;
  attempts: number;
  last_error: string | null;
  next_attempt_at: string | null;
  claimed_by: string | null;
  /** The first characters of the user message. */
  preview: string;
}

export interface QueueSnapshot {
  file: string;
  exists: boolean;
  pending: number;
  failing: number;
  oldest: string | null;
  writer: LeaseHolder | null;
  rows: QueueRowSummary[];
}

export function queueFile(home: string): string {
  return path.join(home, QUEUE_FILE);
}

export function openReadonly(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
}

export function inspectQueue(home: string, limit = 20): QueueSnapshot {
  const file = queueFile(home);
  if (!fs.existsSync(file))
    return { file, exists: false, pending: 0, failing: 0, oldest: null, writer: null, rows: [] };
  const db = openReadonly(file);
  try {
    const columns = new Set(
      (db.prepare('PRAGMA table_info(pending)').all() as Array<{ name: string }>).map((c) => c.name),
    );
    const has = (c: string, fallback: string) => (columns.has(c) ? c : `${fallback} AS ${c}`);
    const counts = db
      .prepare(
        `SELECT COUNT(*) AS pending, SUM(CASE WHEN last_error IS NOT NULL THEN 1 ELSE 0 END) AS failing,
           MIN(created_at) AS oldest FROM pending`,
      )
      .get() as { pending: number; failing: number | null; oldest: string | null };
    const rows = db
      .prepare(
        `SELECT id, session_id, created_at, ${has('attempts', '0')}, last_error, ${has('next_attempt_at', 'NULL')},
           ${has('claimed_by', 'NULL')}, messages_json FROM pending ORDER BY id ASC LIMIT ?`,
      )
      .all(limit) as Array<
      Omit<QueueRowSummary, 'preview' | 'next_attempt_at'> & {
        messages_json: string;
        next_attempt_at: number | null;
      }
    >;
    const hasLease = (
      db
        .prepare(`SELECT COUNT(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'writer_lease'`)
        .get() as {
        n: number;
      }
    ).n;
    return {
      file,
      exists: true,
      pending: counts.pending,
      failing: counts.failing ?? 0,
      oldest: counts.oldest,
      writer: hasLease ? readLease(db) : null,
      rows: rows.map(({ messages_json, next_attempt_at, ...row }) => ({
        ...row,
        next_attempt_at: next_attempt_at === null ? null : new Date(next_attempt_at * 1000).toISOString(),
        preview: preview(messages_json),
      })),
    };
  } finally {
    db.close();
  }
}

function preview(json: string): string {
  try {
    const messages = JSON.parse(json) as Array<{ content?: unknown }>;
    const text = String(messages[0]?.content ?? '')
      .replace(/\s+/g, ' ')
      .trim();
    return text.length > 60 ? `${text.slice(0, 59)}…` : text;
  } catch {
    return '(unreadable)';
  }
}
