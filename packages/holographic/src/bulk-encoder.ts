/**
 * HRR vectors for bulk imports on two threads. Encoding is ~60 % of an import's CPU time and pure,
 * so a worker thread encodes chunks while the main thread both encodes (claiming chunks from the
 * same counter) and inserts the finished ones in order. The worker runs the same code, so every
 * blob is byte-identical to a serial encode; when the worker is missing, slow or dead, the main
 * thread encodes whatever is not done. `addMany` stays synchronous: the main thread blocks with
 * `Atomics.wait` only while the worker finishes a chunk the main thread needs next.
 */
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type VectorFormat, encodeFact, phasesToBytes } from './hrr';

/** Facts per chunk (one claim, one notify); ~50 ms of work at dim 1024. */
const CHUNK = 256;
/** Facts per round (one shared buffer, one message): two buffers of ~8 MiB at dim 1024. */
const ROUND = 2048;
/** Below this many vectors a worker is not worth starting. */
export const PARALLEL_MIN_VECTORS = 2048;
/**
 * The worker's garbage is per-fact scratch arrays: a small young generation keeps its footprint
 * small (the default semispaces add tens of MiB of RSS for no speed).
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 4 };
/** A chunk the worker claimed but has not finished after this long is encoded by the main thread. */
const STALL_MS = 10_000;

/** A round as posted to the worker. */
export interface EncodeRound {
  /** [0] = next unclaimed chunk; then one state per chunk (0 pending, 1 done). */
  control: SharedArrayBuffer;
  /** `items.length × blobBytes` bytes: blob i at i × blobBytes. */
  data: SharedArrayBuffer;
  items: Array<{ content: string; entities: string[] }>;
  dim: number;
  format: VectorFormat;
  blobBytes: number;
}

export function blobBytesFor(dim: number, format: VectorFormat): number {
  return phasesToBytes(new Float64Array(dim), format).length;
}

/** Claim and encode chunks of `round` until none is left (both threads run this). */
export function encodeChunks(round: EncodeRound, maxChunks = Number.POSITIVE_INFINITY): number {
  const control = new Int32Array(round.control);
  const data = new Uint8Array(round.data);
  const chunks = Math.ceil(round.items.length / CHUNK);
  let done = 0;
  while (done < maxChunks) {
    const c = Atomics.add(control, 0, 1);
    if (c >= chunks) break;
    encodeChunk(round, data, c);
    Atomics.store(control, 1 + c, 1);
    Atomics.notify(control, 1 + c);
    done++;
  }
  return done;
}

function encodeChunk(round: EncodeRound, data: Uint8Array, c: number): void {
  const end = Math.min(round.items.length, (c + 1) * CHUNK);
  for (let i = c * CHUNK; i < end; i++) {
    const item = round.items[i]!;
    data.set(
      phasesToBytes(encodeFact(item.content, item.entities, round.dim), round.format),
      i * round.blobBytes,
    );
  }
}

function encodeDirect(
  round: EncodeRound,
  c: number,
  offset: number,
  consume: (index: number, blob: Buffer) => void,
): void {
  const end = Math.min(round.items.length, (c + 1) * CHUNK);
  for (let i = c * CHUNK; i < end; i++) {
    const item = round.items[i]!;
    consume(offset + i, phasesToBytes(encodeFact(item.content, item.entities, round.dim), round.format));
  }
}

export interface BulkEncoderOptions {
  dim: number;
  format: VectorFormat;
  /** Tests: false leaves every chunk to the worker (the main thread only waits, then steals on stall). */
  mainEncodes?: boolean;
  /** Tests: how long to wait on a claimed chunk before the main thread takes over (default 10 s). */
  stallMs?: number;
  /** Tests: another worker script (null = none). */
  workerScript?: string | null;
}

/** Chunks encoded by each thread in the last `encode` (for logs and tests). */
export interface EncodeStats {
  workerChunks: number;
  mainChunks: number;
}

/**
 * One per store: a worker started for each bulk import (unref'd, so it never keeps the process
 * alive) and stopped when the import's vectors are done. A worker that failed once is not retried.
 */
export class BulkEncoder {
  private worker: Worker | null = null;
  private broken = false;
  lastStats: EncodeStats = { workerChunks: 0, mainChunks: 0 };

  constructor(private readonly options: BulkEncoderOptions) {}

  /** True when a worker can help: more than one CPU and a worker script next to this module. */
  static available(): boolean {
    return (os.availableParallelism?.() ?? os.cpus().length) > 1 && workerScript() !== null;
  }

  /**
   * Blobs for `items` in order, handed to `consume` as soon as each is ready (the caller inserts
   * while later chunks are still being encoded).
   */
  encode(
    items: Array<{ content: string; entities: string[] }>,
    consume: (index: number, blob: Buffer) => void,
  ): void {
    try {
      this.lastStats = this.run(items, consume);
    } finally {
      // Imports are rare and a thread's heap is not small: one worker per import, stopped even
      // when the consumer throws (a failed insert rolls the import back).
      this.close();
    }
  }

  private run(
    items: Array<{ content: string; entities: string[] }>,
    consume: (index: number, blob: Buffer) => void,
  ): EncodeStats {
    const { dim, format } = this.options;
    const blobBytes = blobBytesFor(dim, format);
    const worker = this.startWorker();
    const rounds: Array<EncodeRound | undefined> = [];
    // Two data buffers take turns: round r + 2 reuses round r's once all of r is consumed (every
    // chunk done, so no thread still writes there). Control words are fresh per round, so a worker's
    // last claim on an old round can never land in a new one.
    const buffers: SharedArrayBuffer[] = [];
    const post = (r: number) => {
      const slice = items.slice(r * ROUND, (r + 1) * ROUND);
      buffers[r % 2] ??= new SharedArrayBuffer(Math.min(items.length, ROUND) * blobBytes);
      const round: EncodeRound = {
        control: new SharedArrayBuffer(4 * (1 + Math.ceil(slice.length / CHUNK))),
        data: buffers[r % 2]!,
        items: slice,
        dim,
        format,
        blobBytes,
      };
      rounds[r] = round;
      if (worker && !this.broken) worker.postMessage(round);
    };
    const stats: EncodeStats = { workerChunks: 0, mainChunks: 0 };
    const roundCount = Math.ceil(items.length / ROUND);
    if (roundCount > 0) post(0);
    for (let r = 0; r < roundCount; r++) {
      // The next round is queued before this one is consumed, so the worker never idles between.
      if (r + 1 < roundCount) post(r + 1);
      const round = rounds[r]!;
      const control = new Int32Array(round.control);
      const data = new Uint8Array(round.data);
      const chunks = Math.ceil(round.items.length / CHUNK);
      for (let c = 0; c < chunks; c++) {
        let direct = false;
        while (Atomics.load(control, 1 + c) === 0) {
          if (!worker || this.broken) {
            // No (more) help: encode here, straight to the consumer. Shared memory is left alone,
            // since a stalled worker may still write the chunk it claimed.
            encodeDirect(round, c, r * ROUND, consume);
            stats.mainChunks++;
            direct = true;
            break;
          }
          if (this.options.mainEncodes !== false && encodeChunks(round, 1) === 1) {
            stats.mainChunks++;
            continue;
          }
          if (Atomics.wait(control, 1 + c, 0, this.options.stallMs ?? STALL_MS) === 'timed-out')
            this.markBroken();
        }
        if (direct) continue;
        const end = Math.min(round.items.length, (c + 1) * CHUNK);
        for (let i = c * CHUNK; i < end; i++)
          consume(r * ROUND + i, Buffer.from(data.subarray(i * blobBytes, (i + 1) * blobBytes)));
      }
      rounds[r] = undefined; // release the round's shared memory
    }
    stats.workerChunks = Math.max(0, Math.ceil(items.length / CHUNK) - stats.mainChunks);
    return stats;
  }

  /** Stop the worker (idempotent). */
  close(): void {
    const worker = this.worker;
    this.worker = null;
    if (worker) void worker.terminate();
  }

  private startWorker(): Worker | null {
    if (this.broken) return null;
    if (this.worker) return this.worker;
    const script = this.options.workerScript === undefined ? workerScript() : this.options.workerScript;
    if (!script) return null;
    try {
      // From TypeScript sources (this package's tests) the worker compiles itself through tsx.
      const worker = script.endsWith('.ts')
        ? new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, {
            eval: true,
            resourceLimits: WORKER_LIMITS,
          })
        : new Worker(script, { resourceLimits: WORKER_LIMITS });
      worker.unref();
      // A worker that fails (or exits) is never waited on again; the main thread takes over.
      worker.on('error', () => this.markBroken());
      worker.on('exit', () => {
        if (this.worker === worker) this.markBroken();
      });
      this.worker = worker;
      return worker;
    } catch {
      this.broken = true;
      return null;
    }
  }

  private markBroken(): void {
    this.broken = true;
    this.close();
  }
}

/**
 * The worker entry beside this module: `encode-worker.js` / `.cjs` in the published build, the
 * TypeScript source when running from `src` (tests, run with tsx); null when it is absent.
 */
function workerScript(): string | null {
  const here = fileURLToPath(import.meta.url);
  const ext = here.endsWith('.cjs') ? '.cjs' : here.endsWith('.ts') ? '.ts' : '.js';
  const script = here.replace(/[^/\\]+$/, `encode-worker${ext}`);
  return fs.existsSync(script) ? script : null;
}
