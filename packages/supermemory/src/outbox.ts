/**
 * Where Supermemory's undelivered turns wait on disk (decision 0115):
 * `${HERMES_HOME}/supermemory/outbox`, one journal per process. A turn is journaled as it is
 * captured and crossed off once the conversation ingest that holds it (session end, switch or
 * shutdown) went through; a later start ingests what is left per session. Ingests are upserts by
 * conversation id, so a replay does not duplicate.
 */
import path from 'node:path';
import { type Logger, Outbox } from '@hermes-memory/core';
import type { ConversationMessage } from './client';

/**
 * A captured turn, journaled until a conversation ingest that holds it went through. With
 * `document` (user and assistant empty): what the session's conversation document holds — the
 * newest ingest of it the service took — journaled when the session goes on after that ingest, so
 * the next start merges the turns left on disk onto it instead of replacing the document with
 * them (decision 0933); crossed off once a newer ingest of the session went through.
 */
export interface StoredWrite {
  sessionId: string;
  user: string;
  assistant: string;
  document?: ConversationMessage[];
  /** With `document`: it is the host's whole transcript (0932). */
  complete?: boolean;
  /**
   * The container it was written for (`{identity}` gives each agent identity its own): replayed
   * there, not into the container of whoever starts next. Absent in earlier journals: the one in use.
   */
  containerTag?: string;
}

/** Whether `write` is a session's document (a merge base), not a turn. */
export function isDocument(write: StoredWrite): boolean {
  return Array.isArray(write.document);
}

export function supermemoryOutboxDir(hermesHome: string): string {
  return path.join(hermesHome, 'supermemory', 'outbox');
}

export function openSupermemoryOutbox(hermesHome: string, logger: Logger): Outbox<StoredWrite> {
  return Outbox.open<StoredWrite>({
    dir: supermemoryOutboxDir(hermesHome),
    root: hermesHome,
    name: 'Supermemory',
    logger,
  });
}

/** Turns on disk waiting for Supermemory (every process's; a session's document is not one); 0 when unreadable. */
export function supermemoryWritesOnDisk(hermesHome: string): number {
  return Outbox.countOnDisk<StoredWrite>(supermemoryOutboxDir(hermesHome), (write) => !isDocument(write));
}
