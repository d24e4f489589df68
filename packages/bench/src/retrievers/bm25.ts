import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { LocomoTurn, Retriever, RetrieverSession } from '../locomo/types';
import { FILL_K, topKFill } from '../precision/fill';
import { ftsOrQuery } from './fts-query';

export interface Bm25Options {
  /** Keep the index in memory instead of a temp file (default false: on disk, so size is measurable). */
  inMemory?: boolean;
  /** FTS5 tokenizer (default `porter unicode61`, as in benchmarks.md §5.3). */
  tokenize?: string;
}

/**
 * The plain BM25 baseline: one FTS5 row per turn, OR-joined quoted query terms, ranked by `bm25()`.
 * It is the yardstick every provider's retrieval is compared to.
 */
export class Bm25Store {
  readonly db: Database.Database;
  readonly file: string | null;
  private readonly dir: string | null;
  private readonly insertStmt: Database.Statement;
  private readonly searchStmt: Database.Statement;

  constructor(options: Bm25Options = {}) {
    const tokenize = options.tokenize ?? 'porter unicode61';
    if (!/^[a-z0-9_ ]+$/i.test(tokenize))
      throw new Error(`bm25: invalid tokenizer spec ${JSON.stringify(tokenize)}`);
    if (options.inMemory) {
      this.dir = null;
      this.file = null;
      this.db = new Database(':memory:');
    } else {
      this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-bm25-'));
      this.file = path.join(this.dir, 'bm25.db');
      this.db = new Database(this.file);
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
    }
    this.db.exec(
      `CREATE VIRTUAL TABLE IF NOT EXISTS turns USING fts5(text, dia_id UNINDEXED, tokenize='${tokenize}')`,
    );
    this.insertStmt = this.db.prepare('INSERT INTO turns(text, dia_id) VALUES (?, ?)');
    this.searchStmt = this.db.prepare(
      'SELECT dia_id FROM turns WHERE turns MATCH ? ORDER BY bm25(turns) LIMIT ?',
    );
  }

  add(items: ReadonlyArray<{ id: string; text: string }>): void {
    const tx = this.db.transaction((rows: ReadonlyArray<{ id: string; text: string }>) => {
      for (const r of rows) this.insertStmt.run(r.text, r.id);
    });
    tx(items);
  }

  search(query: string, k: number): string[] {
    const match = ftsOrQuery(query);
    if (match === null || k <= 0) return [];
    return (this.searchStmt.all(match, k) as Array<{ dia_id: string }>).map((r) => r.dia_id);
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM turns').get() as { n: number }).n;
  }

  diskBytes(): number {
    if (!this.file) return 0;
    let total = 0;
    for (const suffix of ['', '-wal', '-shm']) {
      try {
        total += fs.statSync(this.file + suffix).size;
      } catch {
        // absent companion file
      }
    }
    return total;
  }

  close(): void {
    this.db.close();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

export function createBm25Retriever(options: Bm25Options = {}): Retriever {
  return {
    name: 'bm25',
    description: `plain SQLite FTS5 (tokenize 'porter unicode61'), OR-joined quoted terms, bm25() rank; prefetch = its top ${FILL_K}`,
    async open(): Promise<RetrieverSession> {
      const store = new Bm25Store(options);
      const textOf = new Map<string, string>();
      const search = async (query: string, k: number) => store.search(query, k);
      return {
        async ingest(turns: LocomoTurn[]) {
          for (const t of turns) textOf.set(t.diaId, t.text);
          store.add(turns.map((t) => ({ id: t.diaId, text: t.text })));
        },
        search,
        prefetch: topKFill(search, textOf),
        diskBytes: () => store.diskBytes(),
        async close() {
          store.close();
        },
      };
    },
  };
}
