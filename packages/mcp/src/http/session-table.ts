export interface Closable {
  close(): Promise<void>;
}

export interface SessionTableOptions {
  /** A session unused this long is closed. */
  idleMs: number;
  /** At most this many sessions; a new one closes the least recently used idle one. */
  maxSessions: number;
  now: () => number;
}

interface Entry<T> {
  value: T;
  lastUsed: number;
  /** Requests of this session being handled now: such a session is never evicted. */
  inFlight: number;
}

/**
 * Open MCP sessions with an idle timeout and a cap, least recently used first (Map order: a used
 * session moves to the back). Each session holds a Server and a transport (~48 KB), so without
 * expiry a client that never says goodbye, or one that opens sessions in a loop, grows the server
 * without bound.
 */
export class SessionTable<T extends Closable> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly options: SessionTableOptions) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The session, marked as used by a request that does work (a POST); call `done(id)` when it
   * has been answered. Undefined when unknown or idle past the timeout (closed now, even if no
   * sweep has run yet).
   */
  begin(id: string): T | undefined {
    const entry = this.live(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    this.entries.set(id, entry);
    entry.lastUsed = this.options.now();
    entry.inFlight++;
    return entry.value;
  }

  /** The session for a request that does no work (the GET event stream, DELETE): not marked as used. */
  peek(id: string): T | undefined {
    return this.live(id)?.value;
  }

  private live(id: string): Entry<T> | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.inFlight === 0 && this.options.now() - entry.lastUsed > this.options.idleMs) {
      this.close(id, entry);
      return undefined;
    }
    return entry;
  }

  done(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.inFlight = Math.max(0, entry.inFlight - 1);
    entry.lastUsed = this.options.now();
  }

  add(id: string, value: T): void {
    this.entries.set(id, { value, lastUsed: this.options.now(), inFlight: 0 });
  }

  /** Forget a session that closed itself (DELETE, or its transport ended). */
  forget(id: string): void {
    this.entries.delete(id);
  }

  /**
   * Make room for one more session: close idle sessions past the timeout, then, at the cap, the
   * least recently used one without a request in flight. False when every session is busy.
   */
  makeRoom(): boolean {
    this.sweep();
    if (this.entries.size < this.options.maxSessions) return true;
    for (const [id, entry] of this.entries) {
      if (entry.inFlight > 0) continue;
      this.close(id, entry);
      return true;
    }
    return false;
  }

  /** Close every session idle for longer than the timeout; returns how many. */
  sweep(): number {
    const cutoff = this.options.now() - this.options.idleMs;
    let closed = 0;
    for (const [id, entry] of [...this.entries]) {
      if (entry.inFlight === 0 && entry.lastUsed < cutoff) {
        this.close(id, entry);
        closed++;
      }
    }
    return closed;
  }

  async closeAll(): Promise<void> {
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(all.map((e) => e.value.close()));
  }

  private close(id: string, entry: Entry<T>): void {
    this.entries.delete(id);
    entry.value.close().catch(() => undefined);
  }
}
