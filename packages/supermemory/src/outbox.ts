/**
 * Where Supermemory's undelivered turns wait on disk (decision 0115):
 * `${HERMES_HOME}/supermemory/outbox`, one journal per process. A turn is journaled as it is
 * captured and crossed off once the conversation ingest that holds it (session end, switch or
 * shutdown) went through; a later start ingests what is left per session. Ingests are upserts by
 * conversation id, so a replay does not duplicate.
 */
import path from 'node:path';
import { type Logger, Outbox } from '@hermes-memory/core';

/** A captured turn, journaled until a conversation ingest that holds it went through. */
export interface StoredWrite {
  sessionId: string;
  user: string;
  assistant: string;
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

/** Writes on disk waiting for Supermemory (every process's); 0 when unreadable. */
export function supermemoryWritesOnDisk(hermesHome: string): number {
  return Outbox.countOnDisk(supermemoryOutboxDir(hermesHome));
}
