/**
 * The shared on-disk stores the robustness runs hammer, behind one small interface so writer
 * processes, the verifier and the SIGKILL loop treat them alike. Loaded at run time from the
 * packages under test (no mocks: the real file locking, fsync and SQLite WAL paths).
 */
import path from 'node:path';
import { loadPackage } from '../packages';
import { loadSessionStoreClass } from '../retrievers/builtin-shape';

export interface SharedStore {
  /** Commit one item; resolves only once it is durable (the ack point). */
  write(item: string): Promise<void>;
  /** Every item currently stored (for verification). */
  readAll(): Promise<string[]>;
  close(): Promise<void>;
}

export const STORE_KINDS = ['builtin-memory-file', 'builtin-session-db', 'holographic-facts'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

interface MemoryStoreLike {
  load(): unknown;
  add(target: 'memory' | 'user', content: string): Promise<{ success: boolean; error?: unknown }>;
  entries(target: 'memory' | 'user'): readonly string[];
}

export async function openSharedStore(kind: StoreKind, dir: string): Promise<SharedStore> {
  if (kind === 'builtin-memory-file') {
    const mod = await loadPackage('@hermes-memory/builtin');
    const Ctor = mod['MemoryStore'] as (new (o: Record<string, unknown>) => MemoryStoreLike) | undefined;
    if (typeof Ctor !== 'function') throw new Error('@hermes-memory/builtin does not export MemoryStore yet');
    const store = new Ctor({
      memoryDir: path.join(dir, 'memories'),
      memoryCharLimit: 50_000_000,
      lockTimeoutMs: 60_000,
    });
    store.load();
    return {
      async write(item) {
        const res = await store.add('memory', item);
        if (!res.success) throw new Error(`memory add failed: ${JSON.stringify(res.error ?? res)}`);
      },
      async readAll() {
        const fresh = new Ctor({ memoryDir: path.join(dir, 'memories'), memoryCharLimit: 50_000_000 });
        fresh.load();
        return [...fresh.entries('memory')];
      },
      async close() {},
    };
  }
  if (kind === 'holographic-facts') {
    const mod = await loadPackage('@hermes-memory/holographic');
    type FactStoreLike = {
      add(content: string): number;
      list(o: { minTrust?: number; limit?: number }): Array<{ content: string }>;
      close(): void;
    };
    const Ctor = mod['FactStore'] as (new (o: { dbPath: string }) => FactStoreLike) | undefined;
    if (typeof Ctor !== 'function')
      throw new Error('@hermes-memory/holographic does not export FactStore yet');
    const dbPath = path.join(dir, 'memory_store.db');
    const store = new Ctor({ dbPath });
    return {
      async write(item) {
        store.add(item);
      },
      async readAll() {
        const fresh = new Ctor({ dbPath });
        try {
          return fresh.list({ minTrust: 0, limit: 10_000_000 }).map((f) => f.content);
        } finally {
          fresh.close();
        }
      },
      async close() {
        store.close();
      },
    };
  }
  const SessionStore = await loadSessionStoreClass();
  const store = new SessionStore({ dbPath: path.join(dir, 'state.db') });
  store.createSession('shared', { source: 'cli' });
  return {
    async write(item) {
      store.appendMessage('shared', { role: 'user', content: item });
    },
    async readAll() {
      const fresh = new SessionStore({ dbPath: path.join(dir, 'state.db') }) as unknown as {
        getMessages(id: string): Array<{ content: string | null }>;
        close(): void;
      };
      try {
        return fresh.getMessages('shared').map((m) => m.content ?? '');
      } finally {
        fresh.close();
      }
    },
    async close() {
      store.close();
    },
  };
}

/** Deterministic, self-checking item text: a torn write cannot match its own checksum. */
export function itemText(writer: number, index: number): string {
  const body = `w${writer}-i${index}-` + 'abcdefghijklmnopqrstuvwxyz'.repeat(6);
  return `${body}-sum${checksum(body)}`;
}

function checksum(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

export interface Verification {
  expected: number;
  found: number;
  lost: number;
  torn: number;
  duplicated: number;
  unexpected: number;
}

/** Compare what is stored with what was acknowledged. */
export function verify(stored: readonly string[], acked: ReadonlySet<string>): Verification {
  const counts = new Map<string, number>();
  let torn = 0;
  let unexpected = 0;
  for (const s of stored) {
    const m = /^(w\d+-i\d+-[a-z]+)-sum(\d+)$/.exec(s);
    if (!m || checksum(m[1]!) !== Number(m[2])) {
      torn++;
      continue;
    }
    counts.set(s, (counts.get(s) ?? 0) + 1);
  }
  let duplicated = 0;
  for (const [s, n] of counts) {
    if (n > 1) duplicated += n - 1;
    if (!acked.has(s)) unexpected++; // written but not acked before a kill: allowed, reported
  }
  let lost = 0;
  for (const a of acked) if (!counts.has(a)) lost++;
  return { expected: acked.size, found: counts.size, lost, torn, duplicated, unexpected };
}
