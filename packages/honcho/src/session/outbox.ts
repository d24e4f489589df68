/**
 * Where Honcho's undelivered messages wait on disk (decision 0115): `${HERMES_HOME}/honcho/outbox`,
 * one journal per process. The provider opens it; status and doctor count it without opening it.
 */
import path from 'node:path';
import { type Logger, Outbox } from '@hermes-memory/core';
import type { StoredMessage } from './writer';

export function honchoOutboxDir(hermesHome: string): string {
  return path.join(hermesHome, 'honcho', 'outbox');
}

export function openHonchoOutbox(hermesHome: string, logger: Logger): Outbox<StoredMessage> {
  return Outbox.open<StoredMessage>({
    dir: honchoOutboxDir(hermesHome),
    root: hermesHome,
    name: 'Honcho',
    logger,
  });
}

/** Messages on disk waiting for Honcho (every process's), without taking any; 0 when unreadable. */
export function honchoMessagesOnDisk(hermesHome: string): number {
  return Outbox.countOnDisk(honchoOutboxDir(hermesHome));
}
