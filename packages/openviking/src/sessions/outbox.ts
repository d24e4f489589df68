/**
 * Where OpenViking's undelivered turns wait on disk (core's outbox, decision 0115):
 * `${HERMES_HOME}/openviking/outbox`, one journal per process. A turn is journaled when it is
 * taken and crossed off once it reached its session on the server; what an outage (held turns,
 * decision 0982), a failed post, a shutdown or a kill -9 left is posted by the next start to its
 * own session, in order, and that session is then committed.
 */
import path from 'node:path';
import { type Logger, Outbox } from '@hermes-memory/core';
import type { VikingMessage } from '../client';

/** A taken turn: its session and its messages (and the plain two-message fallback). */
export interface StoredTurn {
  sessionId: string;
  messages: VikingMessage[];
  plain: VikingMessage[];
}

export function openvikingOutboxDir(hermesHome: string): string {
  return path.join(hermesHome, 'openviking', 'outbox');
}

export function openOpenvikingOutbox(hermesHome: string, logger: Logger): Outbox<StoredTurn> {
  return Outbox.open<StoredTurn>({
    dir: openvikingOutboxDir(hermesHome),
    root: hermesHome,
    name: 'OpenViking',
    logger,
  });
}

/** Turns on disk waiting for the server (every process's); 0 when unreadable. */
export function openvikingTurnsOnDisk(hermesHome: string): number {
  return Outbox.countOnDisk(openvikingOutboxDir(hermesHome));
}
