import { type Clock, processAlive } from '@hermes-memory/core';
import type { QueueDatabase, WriterIdentity } from './queue-db';
import os from 'node:os';

export interface LeaseHolder {
  owner: string;
  host: string;
  pid: number;
  /** Seconds since the epoch (the clock's). */
  expiresAt: number;
  /** False when the holder is a process of this host that is gone. */
  alive: boolean;
}

/**
 * One writer per queue database across processes: a row in `writer_lease` names the writer and
 * when its lease ends. A writer takes the lease when nobody holds it, the holder's lease has run
 * out, or the holder is a process of this host that no longer exists (kill -9: the next start
 * takes over at once instead of waiting out the lease). The holder renews it as it works.
 */
export class WriterLease {
  private expiresAt = 0;

  constructor(
    private readonly db: QueueDatabase,
    private readonly me: WriterIdentity,
    private readonly leaseMs: number,
    private readonly clock: Clock,
  ) {}

  /** Hold the lease (take it or renew it when half of it is spent). True when this writer holds it. */
  ensure(): boolean {
    const now = this.clock.now() / 1000;
    if (this.expiresAt - now > this.leaseMs / 2000) return true;
    const take = this.db.transaction((): boolean => {
      const holder = this.read();
      if (holder && holder.owner !== this.me.owner && holder.expiresAt > now && holder.alive) return false;
      this.db
        .prepare(
          `INSERT INTO writer_lease (name, owner, host, pid, expires_at) VALUES ('writer', ?, ?, ?, ?)
           ON CONFLICT(name) DO UPDATE SET owner = excluded.owner, host = excluded.host, pid = excluded.pid,
             expires_at = excluded.expires_at`,
        )
        .run(this.me.owner, this.me.host, this.me.pid, now + this.leaseMs / 1000);
      return true;
    });
    const held = take.immediate();
    this.expiresAt = held ? now + this.leaseMs / 1000 : 0;
    return held;
  }

  /** Whether this writer held the lease at its last check and it has not run out since. */
  held(): boolean {
    return this.expiresAt > this.clock.now() / 1000;
  }

  /** Give the lease up (only if this writer holds it). */
  release(): void {
    this.expiresAt = 0;
    try {
      this.db.prepare(`DELETE FROM writer_lease WHERE name = 'writer' AND owner = ?`).run(this.me.owner);
    } catch {
      // Closing anyway; the lease runs out or the next start sees this process gone.
    }
  }

  read(): LeaseHolder | null {
    return readLease(this.db);
  }
}

export function readLease(db: QueueDatabase): LeaseHolder | null {
  const row = db
    .prepare(`SELECT owner, host, pid, expires_at AS expiresAt FROM writer_lease WHERE name = 'writer'`)
    .get() as Omit<LeaseHolder, 'alive'> | undefined;
  if (!row) return null;
  const alive = row.host !== os.hostname() || processAlive(row.pid);
  return { ...row, alive };
}
