/**
 * Optional record vectors (core `Embedder`; the bundled Model2Vec by default). Vectors live in
 * `record_vectors` and in memory as one contiguous matrix scanned per query. Records are embedded
 * lazily and in batches: writes only mark them pending; the next retrieval (or `warm()`, run from
 * `queuePrefetch`) embeds every pending record and the query in one embedder call.
 */
import type { Embedder, Logger } from '@hermes-memory/core';
import type { ContinuityStore } from '../store';

export interface VectorHit {
  seq: number;
  cosine: number;
}

/** The text a record is embedded from: what it is about, not its provenance. */
export function embeddingText(r: { title: string; summary: string; entities: readonly string[] }): string {
  return [r.title, r.summary, r.entities.join(', ')].filter(Boolean).join('\n');
}

export class VectorIndex {
  private seqs: number[] = [];
  private rowOf = new Map<number, number>();
  private matrix = new Float32Array(0);
  private readonly dims: number;
  private loadedVersion: number | null = null;
  private readonly pending = new Set<number>();
  private readonly unsubscribe: () => void;
  private queryCache = new Map<string, Float32Array>();

  constructor(
    private readonly store: ContinuityStore,
    readonly embedder: Embedder,
    private readonly logger: Logger,
  ) {
    this.dims = embedder.dimensions;
    // Writes through our store: re-embed just those rows. Other processes' writes move
    // `data_version`, which triggers a full reload in `sync`.
    this.unsubscribe = store.onRecordChange((seq) => {
      this.tombstone(seq);
      this.pending.add(seq);
    });
  }

  close(): void {
    this.unsubscribe();
  }

  private tombstone(seq: number): void {
    const row = this.rowOf.get(seq);
    if (row === undefined) return;
    this.rowOf.delete(seq);
    this.seqs[row] = -1;
  }

  /** Reload from disk when another connection wrote since the last load. */
  private sync(): void {
    const version = this.store.externalVersion();
    if (this.loadedVersion === version) return;
    const db = this.store.db;
    const rows = db
      .prepare('SELECT seq, dim, vector FROM record_vectors WHERE model = ? ORDER BY seq')
      .all(this.embedder.id) as Array<{ seq: number; dim: number; vector: Buffer }>;
    const usable = rows.filter((r) => r.dim === this.dims && r.vector.byteLength === this.dims * 4);
    this.matrix = new Float32Array(Math.max(usable.length, 16) * this.dims);
    this.seqs = [];
    this.rowOf = new Map();
    for (const r of usable)
      this.append(r.seq, new Float32Array(r.vector.buffer, r.vector.byteOffset, this.dims));
    const missing = db
      .prepare(
        `SELECT r.seq FROM records r LEFT JOIN record_vectors v ON v.seq = r.seq AND v.model = ?
         WHERE v.seq IS NULL OR v.dim != ?`,
      )
      .all(this.embedder.id, this.dims) as Array<{ seq: number }>;
    this.pending.clear();
    for (const m of missing) this.pending.add(m.seq);
    this.loadedVersion = version;
  }

  private append(seq: number, vector: Float32Array): void {
    const row = this.seqs.length;
    if ((row + 1) * this.dims > this.matrix.length) {
      const grown = new Float32Array(Math.max(16, row * 2) * this.dims);
      grown.set(this.matrix);
      this.matrix = grown;
    }
    this.matrix.set(vector, row * this.dims);
    this.seqs.push(seq);
    this.rowOf.set(seq, row);
  }

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Embed every pending record (and `queries`, cached for the next `search`). */
  async warm(queries: readonly string[] = [], signal?: AbortSignal): Promise<void> {
    this.sync();
    const seqs = [...this.pending];
    const rows = seqs.length ? this.store.bySeq(seqs) : [];
    const texts = rows.map(embeddingText);
    const fresh = queries.filter((q) => q && !this.queryCache.has(q));
    if (texts.length === 0 && fresh.length === 0) return;
    const vectors = await this.embedder.embed([...texts, ...fresh], { signal });
    if (this.store.closed) return;
    const db = this.store.db;
    const vectorFor = new Map(rows.map((r, i) => [r.seq, vectors[i]!]));
    if (rows.length > 0) {
      const upsert = this.store.stmt(
        `INSERT INTO record_vectors (seq, model, dim, vector) VALUES (?, ?, ?, ?)
         ON CONFLICT(seq) DO UPDATE SET model = excluded.model, dim = excluded.dim, vector = excluded.vector`,
      );
      // Not through store.transaction: vectors are derived data, and no record listener must fire.
      db.transaction(() => {
        for (const r of rows) {
          const v = vectorFor.get(r.seq)!;
          upsert.run(r.seq, this.embedder.id, this.dims, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
        }
      }).immediate();
    }
    for (const seq of seqs) {
      this.pending.delete(seq);
      const v = vectorFor.get(seq);
      if (!v) continue;
      this.tombstone(seq);
      this.append(seq, v);
    }
    fresh.forEach((q, i) => {
      this.cacheQuery(q, vectors[texts.length + i]!);
    });
  }

  private cacheQuery(q: string, v: Float32Array): void {
    if (this.queryCache.size >= 64) this.queryCache = new Map([...this.queryCache].slice(32));
    this.queryCache.set(q, v);
  }

  /** The `k` nearest records by cosine (unit vectors: a dot product). Embeds what is pending first. */
  async search(query: string, k: number, signal?: AbortSignal): Promise<VectorHit[]> {
    try {
      await this.warm([query], signal);
    } catch (error) {
      this.logger.debug('continuity: embedding failed; lexical retrieval only', { error: String(error) });
      return [];
    }
    const q = this.queryCache.get(query);
    if (!q || k <= 0) return [];
    const dims = this.dims;
    const m = this.matrix;
    const hits: VectorHit[] = [];
    let floor = -Infinity;
    for (let row = 0; row < this.seqs.length; row++) {
      const seq = this.seqs[row]!;
      if (seq < 0) continue;
      let dot = 0;
      const base = row * dims;
      for (let d = 0; d < dims; d++) dot += m[base + d]! * q[d]!;
      if (hits.length < k) {
        hits.push({ seq, cosine: dot });
        if (hits.length === k) {
          hits.sort((a, b) => b.cosine - a.cosine);
          floor = hits[k - 1]!.cosine;
        }
      } else if (dot > floor) {
        // Where a stable re-sort would put it: after every hit at least as close.
        hits.pop();
        let lo = 0;
        let hi = hits.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (hits[mid]!.cosine >= dot) lo = mid + 1;
          else hi = mid;
        }
        hits.splice(lo, 0, { seq, cosine: dot });
        floor = hits[k - 1]!.cosine;
      }
    }
    return hits.sort((a, b) => b.cosine - a.cosine);
  }

  /** Cosine of the query and specific records (candidates found lexically). */
  cosines(query: string, seqs: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    const q = this.queryCache.get(query);
    if (!q) return out;
    for (const seq of seqs) {
      const row = this.rowOf.get(seq);
      if (row === undefined) continue;
      let dot = 0;
      const base = row * this.dims;
      for (let d = 0; d < this.dims; d++) dot += this.matrix[base + d]! * q[d]!;
      out.set(seq, dot);
    }
    return out;
  }
}
