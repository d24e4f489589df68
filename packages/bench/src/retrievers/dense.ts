import type { Embedder } from '@hermes-memory/core';
import type { LocomoTurn, Retriever, RetrieverSession } from '../locomo/types';

/** Dot product of two L2-normalised vectors (= cosine). */
function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return s;
}

function normalise(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const n = Math.sqrt(s);
  if (n === 0) return v;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / n;
  return out;
}

/** Exact (brute-force) cosine retrieval over one embedding per turn: the dense-only baseline. */
export function createDenseRetriever(name: string, embedder: Embedder, batchSize = 256): Retriever {
  return {
    name,
    description: `dense only: ${embedder.id} (${embedder.dimensions} dims), one vector per turn, exact cosine`,
    async open(): Promise<RetrieverSession> {
      let ids: string[] = [];
      let vectors: Float32Array[] = [];
      return {
        async ingest(turns: LocomoTurn[]) {
          ids = turns.map((t) => t.diaId);
          vectors = [];
          for (let i = 0; i < turns.length; i += batchSize) {
            const batch = await embedder.embed(turns.slice(i, i + batchSize).map((t) => t.text));
            for (const v of batch) vectors.push(normalise(v));
          }
        },
        async search(query: string, k: number) {
          const [q] = await embedder.embed([query]);
          if (!q) return [];
          const qn = normalise(q);
          const scored = vectors.map((v, i) => ({ i, s: dot(qn, v) }));
          scored.sort((a, b) => b.s - a.s || a.i - b.i);
          return scored.slice(0, k).map((x) => ids[x.i]!);
        },
        diskBytes: () => vectors.reduce((acc, v) => acc + v.byteLength, 0),
        async close() {
          vectors = [];
        },
      };
    },
  };
}
