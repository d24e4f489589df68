/**
 * Bulk imports encode HRR vectors on a worker thread as well as the main thread. Whoever encodes a
 * chunk, the stored rows must be byte-identical to a one-thread import, and a worker that never
 * answers must not lose or tear anything.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BulkEncoder, PARALLEL_MIN_VECTORS, blobBytesFor } from './bulk-encoder';
import { encodeFact, phasesToBytes } from './hrr';
import { FactStore } from './store';
import { tempDir } from './test-helpers';

const people = ['Ann Lee', 'Bo', 'Cy Moreau', 'Di'];
const places = ['Lisbon', 'the Night Market', 'Kyoto', 'the chess club', 'Oslo', 'the garden'];
function corpus(n: number): Array<{ content: string; entities: string[] }> {
  return Array.from({ length: n }, (_, i) => ({
    content: `${people[i % 4]}: we met at ${places[i % 6]} on day ${i}, "Project ${i % 37}" again`,
    entities: i % 3 === 0 ? [people[i % 4]!, places[i % 6]!] : [],
  }));
}

function serialBlobs(items: Array<{ content: string; entities: string[] }>, dim: number): Buffer[] {
  return items.map((v) => phasesToBytes(encodeFact(v.content, v.entities, dim), 'float32'));
}

function collect(encoder: BulkEncoder, items: Array<{ content: string; entities: string[] }>): Buffer[] {
  const out: Buffer[] = new Array(items.length);
  let expected = 0;
  encoder.encode(items, (index, blob) => {
    // Blobs arrive in input order, each exactly once.
    expect(index).toBe(expected++);
    out[index] = blob;
  });
  expect(expected).toBe(items.length);
  return out;
}

// Worker threads: 9 s on a 2-core machine at load 25 (vitest's default is 5 s).
describe('BulkEncoder', { timeout: 30_000 }, () => {
  it('a worker that encodes every chunk produces the serial bytes, in order', () => {
    const items = corpus(1200);
    const encoder = new BulkEncoder({ dim: 256, format: 'float32', mainEncodes: false });
    const blobs = collect(encoder, items);
    expect(encoder.lastStats.mainChunks).toBe(0);
    expect(encoder.lastStats.workerChunks).toBe(Math.ceil(items.length / 256));
    expect(blobs.map((b) => b.toString('base64'))).toEqual(
      serialBlobs(items, 256).map((b) => b.toString('base64')),
    );
    expect(blobs[0]!.length).toBe(blobBytesFor(256, 'float32'));
  });

  it('spans several rounds (shared buffers reused) and legacy float64 blobs', () => {
    const items = corpus(8192 * 2 + 300);
    const encoder = new BulkEncoder({ dim: 8, format: 'float64' });
    const blobs = collect(encoder, items);
    expect(encoder.lastStats.mainChunks + encoder.lastStats.workerChunks).toBe(Math.ceil(items.length / 256));
    const serial = items.map((v) => phasesToBytes(encodeFact(v.content, v.entities, 8), 'float64'));
    expect(Buffer.concat(blobs).equals(Buffer.concat(serial))).toBe(true);
  });

  it('takes over when the worker never answers', () => {
    const dir = tempDir();
    const idle = path.join(dir, 'idle-worker.mjs');
    fs.writeFileSync(
      idle,
      "import { parentPort } from 'node:worker_threads';\nparentPort.on('message', () => {});\n",
    );
    const items = corpus(600);
    const encoder = new BulkEncoder({
      dim: 64,
      format: 'float32',
      mainEncodes: false,
      stallMs: 50,
      workerScript: idle,
    });
    const blobs = collect(encoder, items);
    expect(encoder.lastStats.mainChunks).toBe(Math.ceil(items.length / 256));
    expect(Buffer.concat(blobs).equals(Buffer.concat(serialBlobs(items, 64)))).toBe(true);
  });

  it('stops the worker and rethrows when the consumer throws', () => {
    const encoder = new BulkEncoder({ dim: 64, format: 'float32' });
    let seen = 0;
    expect(() =>
      encoder.encode(corpus(3000), (index) => {
        seen++;
        if (index === 1000) throw new Error('insert failed');
      }),
    ).toThrow('insert failed');
    expect(seen).toBe(1001);
    expect((encoder as unknown as { worker: unknown }).worker).toBeNull();
  });

  it('works without a worker script', () => {
    const items = corpus(300);
    const encoder = new BulkEncoder({ dim: 32, format: 'float32', workerScript: null });
    expect(Buffer.concat(collect(encoder, items)).equals(Buffer.concat(serialBlobs(items, 32)))).toBe(true);
    expect(encoder.lastStats.workerChunks).toBe(0);
  });
});

describe('FactStore.addMany with parallel ingest', { timeout: 30_000 }, () => {
  function dump(dbPath: string) {
    const db = new Database(dbPath, { readonly: true });
    try {
      return {
        facts: db
          .prepare(
            'SELECT fact_id, content, category, tags, hex(hrr_vector) AS v FROM facts ORDER BY fact_id',
          )
          .all(),
        entities: db.prepare('SELECT entity_id, name FROM entities ORDER BY entity_id').all(),
        links: db.prepare('SELECT fact_id, entity_id FROM fact_entities ORDER BY fact_id, entity_id').all(),
      };
    } finally {
      db.close();
    }
  }

  it('writes the same rows, ids and entity links as a one-thread import', () => {
    const n = PARALLEL_MIN_VECTORS + 500;
    const batch = corpus(n).map((v, i) => ({
      content: v.content,
      category: i % 5 === 0 ? 'places' : 'general',
    }));
    // Repeats within the batch and contents already stored resolve to the first id.
    batch.splice(700, 0, { ...batch[3]! }, { content: 'already stored', category: 'general' });
    const ids: number[][] = [];
    const paths = [false, true].map((parallel) => {
      const dbPath = path.join(tempDir(), 'memory_store.db');
      const store = new FactStore({ dbPath, hrrDim: 128, parallelIngest: parallel });
      store.add('already stored');
      ids.push(store.addMany(batch));
      store.close();
      return dbPath;
    });
    expect(ids[1]).toEqual(ids[0]);
    expect(ids[0]![700]).toBe(ids[0]![3]);
    expect(ids[0]![701]).toBe(1);
    expect(new Set(ids[0]).size).toBe(n + 1);
    const [serial, parallel] = paths.map(dump);
    expect(parallel!.facts).toHaveLength(n + 1);
    expect(parallel).toEqual(serial);
  });

  it('a failing insert rolls the whole import back, nothing torn', () => {
    const dbPath = path.join(tempDir(), 'memory_store.db');
    const store = new FactStore({ dbPath, hrrDim: 64 });
    store.add('kept from before');
    // A constraint in the database itself, as another tool or a future schema might add.
    store.db.exec(
      "CREATE TRIGGER refuse_boom BEFORE INSERT ON facts WHEN NEW.content = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END",
    );
    const batch = corpus(PARALLEL_MIN_VECTORS + 1000).map((v) => ({ content: v.content }));
    batch[2500] = { content: 'boom' };
    expect(() => store.addMany(batch)).toThrow('boom refused');
    expect(store.list({ limit: 10 }).map((f) => f.content)).toEqual(['kept from before']);
    store.db.exec('DROP TRIGGER refuse_boom');
    expect(store.addMany(batch.slice(0, 10))).toHaveLength(10);
    store.close();
  });
});
