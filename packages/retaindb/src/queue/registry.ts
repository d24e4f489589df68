import fs from 'node:fs';
import path from 'node:path';
import { DurableQueue, type DurableQueueOptions, type QueueSender } from './durable-queue';

interface Entry {
  queue: DurableQueue;
  /** Senders of the providers sharing the queue; the newest live one sends. */
  senders: QueueSender[];
}

const entries = new Map<string, Entry>();

/** A provider's share of a process-wide queue. */
export interface QueueHandle {
  readonly queue: DurableQueue;
  /** Drop this share; the last one shuts the queue (and its writer) down. Safe twice. */
  release(options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<void>;
}

/**
 * One queue and one writer per database file in a process, shared by every provider on the same
 * Hermes home (the reference's registry): keyed by the resolved path, so a relative or linked
 * path joins the same entry; reference-counted, so releasing one provider keeps its siblings
 * working and the last release stops the writer.
 */
export function acquireQueue(
  file: string,
  sender: QueueSender,
  options: DurableQueueOptions = {},
): QueueHandle {
  const key = resolveKey(file);
  let entry = entries.get(key);
  if (!entry || entry.queue.isClosed) {
    entry = { queue: new DurableQueue(key, options), senders: [] };
    entries.set(key, entry);
  }
  const held = entry;
  held.senders.push(sender);
  held.queue.setSender(sender);
  held.queue.start();
  let released = false;
  return {
    queue: held.queue,
    async release(releaseOptions = {}) {
      if (released) return;
      released = true;
      held.senders.splice(held.senders.indexOf(sender), 1);
      if (held.senders.length > 0) {
        held.queue.setSender(held.senders[held.senders.length - 1] ?? null);
        return;
      }
      if (entries.get(key) === held) entries.delete(key);
      await held.queue.shutdown(releaseOptions);
    },
  };
}

/** Queues open in this process (diagnostics and tests). */
export function openQueueCount(): number {
  return entries.size;
}

function resolveKey(file: string): string {
  const absolute = path.resolve(file);
  try {
    return fs.realpathSync(absolute);
  } catch {
    try {
      return path.join(fs.realpathSync(path.dirname(absolute)), path.basename(absolute));
    } catch {
      return absolute;
    }
  }
}
