/**
 * The outbox's line format (decision 0115): one JSON object per line, `\n`-terminated.
 * - `{"v":1,"put":"<id>","at":<ms>,"data":…}` an undelivered write;
 * - `{"v":1,"ack":["<id>",…]}` writes that were delivered (or dropped by the provider's cap).
 * A line that does not parse (a torn tail after a crash mid-append, or damage) is skipped and
 * counted; it never hides the lines around it.
 */

export interface OutboxEntry<T> {
  /** Stable across restarts and adoption: `<owner>-<n>`, unique per process run. */
  id: string;
  /** When it was first appended (ms since the epoch, the provider's clock). */
  at: number;
  data: T;
}

export function putLine(entry: OutboxEntry<unknown>): string {
  return `${JSON.stringify({ v: 1, put: entry.id, at: entry.at, data: entry.data })}\n`;
}

export function ackLine(ids: readonly string[]): string {
  return `${JSON.stringify({ v: 1, ack: ids })}\n`;
}

export interface ParsedJournal<T> {
  /** Unacknowledged entries in the order first seen (later copies of an id are ignored). */
  entries: OutboxEntry<T>[];
  /** Lines that did not parse or had the wrong shape. */
  skipped: number;
  /** Every id acknowledged in these texts (an ack in one owner's journal settles a copy in another's). */
  acked: Set<string>;
}

/**
 * Fold journal texts (oldest first) into the entries still unacknowledged. An id seen twice (a
 * compaction that died before removing its input) counts once; an ack anywhere removes it.
 */
export function foldJournals<T>(texts: readonly string[]): ParsedJournal<T> {
  const live = new Map<string, OutboxEntry<T>>();
  const acked = new Set<string>();
  let skipped = 0;
  for (const text of texts) {
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const record = parse(line);
      if (!record) {
        skipped += 1;
        continue;
      }
      if ('ack' in record) {
        for (const id of record.ack) {
          acked.add(id);
          live.delete(id);
        }
      } else if (!live.has(record.put) && !acked.has(record.put)) {
        live.set(record.put, { id: record.put, at: record.at, data: record.data as T });
      }
    }
  }
  return { entries: [...live.values()], skipped, acked };
}

type JournalRecord = { put: string; at: number; data: unknown } | { ack: string[] };

function parse(line: string): JournalRecord | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  if (r.v !== 1) return null;
  if (typeof r.put === 'string' && typeof r.at === 'number' && 'data' in r)
    return { put: r.put, at: r.at, data: r.data };
  if (Array.isArray(r.ack) && r.ack.every((id) => typeof id === 'string')) return { ack: r.ack as string[] };
  return null;
}
