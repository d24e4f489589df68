/**
 * Where ByteRover's uncurated writes wait on disk (core's outbox, decision 0115):
 * `${HERMES_HOME}/byterover-outbox`, one journal per process — beside brv's project directory, not
 * in it, so brv never reads it as project content. A turn, mirrored memory write or pre-compression
 * flush is journaled when it is accepted and crossed off once `brv curate` succeeded; what a
 * failure, a skip, a shutdown or a kill -9 left is curated by the next start (failures and skips
 * sooner, by this run, once brv answers again). At least once: a
 * curate killed after brv stored it is curated again (brv's curation merges what it knows).
 */
import path from 'node:path';
import { type Logger, Outbox } from '@hermes-memory/core';

/** One accepted write: what `brv curate` is given, and what it was (for the log lines). */
export interface StoredCurate {
  label: string;
  content: string;
}

export function byteroverOutboxDir(hermesHome: string): string {
  return path.join(hermesHome, 'byterover-outbox');
}

export function openByteroverOutbox(hermesHome: string, logger: Logger): Outbox<StoredCurate> {
  return Outbox.open<StoredCurate>({
    dir: byteroverOutboxDir(hermesHome),
    root: hermesHome,
    name: 'ByteRover',
    logger,
  });
}

/** Writes on disk waiting for brv (every process's); 0 when unreadable. */
export function byteroverWritesOnDisk(hermesHome: string): number {
  return Outbox.countOnDisk(byteroverOutboxDir(hermesHome));
}
