/**
 * Where Hindsight's undelivered turns wait on disk (decision 0115): `${HERMES_HOME}/hindsight/outbox`,
 * one journal per process, one entry per turn. The provider opens it; status and doctor count it
 * without taking anything.
 */
import path from 'node:path';
import { type Logger, Outbox } from '@hermes-memory/core';

/** One turn as journaled: the session (and its parent, for lineage tags) and the turn's JSON. */
export interface StoredTurn {
  sessionId: string;
  parentSessionId: string;
  turn: string;
  /**
   * The bank the turn was for (a `bank_id_template` with `{session}` gives each initialize its
   * own). Absent in journals of earlier versions: then the bank in use when it is replayed.
   */
  bankId?: string;
}

export function hindsightOutboxDir(hermesHome: string): string {
  return path.join(hermesHome, 'hindsight', 'outbox');
}

export function openHindsightOutbox(hermesHome: string, logger: Logger): Outbox<StoredTurn> {
  return Outbox.open<StoredTurn>({
    dir: hindsightOutboxDir(hermesHome),
    root: hermesHome,
    name: 'Hindsight',
    logger,
  });
}

/** Turns on disk waiting for Hindsight (every process's); 0 when unreadable. */
export function hindsightTurnsOnDisk(hermesHome: string): number {
  return Outbox.countOnDisk(hindsightOutboxDir(hermesHome));
}
