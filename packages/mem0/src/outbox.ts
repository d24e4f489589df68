/**
 * Where Mem0's undelivered writes wait on disk (core's outbox, decision 0115):
 * `${HERMES_HOME}/mem0/outbox`, one journal per process. A synced turn or mirrored memory write is
 * journaled when it is accepted and crossed off once Mem0 confirmed it; what a failure, an open
 * breaker, a skip behind a stuck write, a shutdown or a kill -9 left is sent by the next start —
 * or sooner, by this run, once Mem0 answers again (the provider's redelivery).
 * At least once: a write that timed out on our side may have landed, and is then sent again.
 */
import path from 'node:path';
import { type Clock, type Logger, Outbox } from '@hermes-memory/core';
import type { AddRequest } from './backend/types';

/** One accepted write: the add request as it would have been sent. */
export type StoredWrite = AddRequest;

export function mem0OutboxDir(hermesHome: string): string {
  return path.join(hermesHome, 'mem0', 'outbox');
}

/** `clock` stamps each entry's `at`: a write delivered late tells the Platform when it was accepted. */
export function openMem0Outbox(hermesHome: string, logger: Logger, clock?: Clock): Outbox<StoredWrite> {
  return Outbox.open<StoredWrite>({
    dir: mem0OutboxDir(hermesHome),
    root: hermesHome,
    name: 'Mem0',
    logger,
    ...(clock ? { clock } : {}),
  });
}

/** A journaled write as it is sent late: stamped with when it was accepted (Unix seconds). */
export function lateWrite(entry: { at: number; data: StoredWrite }): StoredWrite {
  return { ...entry.data, timestamp: Math.max(0, Math.floor(entry.at / 1000)) };
}

/** Writes on disk waiting for Mem0 (every process's); 0 when unreadable. */
export function mem0WritesOnDisk(hermesHome: string): number {
  return Outbox.countOnDisk(mem0OutboxDir(hermesHome));
}
