import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChildWorker } from '@hermes-memory/testkit';
import { PACKAGE_DIR } from '../child';
import { mulberry32 } from '../scale/corpus';
import { openSharedStore, type StoreKind, type Verification, verify } from './stores';

interface WriterHandle {
  acked: Set<string>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(): void;
  /** Resolves once `n` acks have been read (or the writer exited). */
  whenAcked(n: number): Promise<void>;
}

/** A writer process (the testkit's child worker): it prints `ack <id>` for each committed write. */
function startWriter(kind: StoreKind, dir: string, id: number, count: number): WriterHandle {
  const worker = startChildWorker(path.join(PACKAGE_DIR, 'src/robustness/writer.ts'), {
    execArgv: ['--import', 'tsx'],
    args: [kind, dir, String(id), String(count)],
    cwd: PACKAGE_DIR,
  });
  const isAck = (line: string) => line.startsWith('ack ');
  return {
    get acked() {
      return new Set(worker.lines.filter(isAck).map((line) => line.slice(4)));
    },
    done: worker.exited,
    kill: () => void worker.kill('SIGKILL'),
    whenAcked: (n) => worker.waitForLines(n, isAck),
  };
}

export interface ConcurrencyResult extends Verification {
  store: StoreKind;
  processes: number;
  writesPerProcess: number;
  seconds: number;
  writerFailures: number;
  errors: string[];
}

/** P processes write W items each into the same store at once; then count lost / torn / duplicated. */
/** A writer that died before writing anything because a package under test was mid-rebuild. */
function harnessFailure(exit: { code: number | null; stderr: string }, acked: number): boolean {
  return exit.code !== 0 && acked === 0 && /Cannot find module|ERR_MODULE_NOT_FOUND/.test(exit.stderr);
}

export async function runConcurrentWriters(
  kind: StoreKind,
  processes: number,
  writesPerProcess: number,
): Promise<ConcurrencyResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hm-bench-conc-${kind}-`));
  try {
    // Create the store once so the writers race on writes, not on schema creation.
    const init = await openSharedStore(kind, dir);
    await init.close();
    const t0 = Date.now();
    const writers = Array.from({ length: processes }, (_, i) => startWriter(kind, dir, i, writesPerProcess));
    const exits = await Promise.all(writers.map((w) => w.done));
    // A writer that could not even load its package (a sibling rebuilding dist/) is restarted once,
    // alone; it wrote nothing, so the store is unaffected. Real write errors are never retried.
    for (let i = 0; i < writers.length; i++) {
      if (harnessFailure(exits[i]!, writers[i]!.acked.size)) {
        writers[i] = startWriter(kind, dir, i, writesPerProcess);
        exits[i] = await writers[i]!.done;
      }
    }
    const seconds = (Date.now() - t0) / 1000;
    const acked = new Set<string>();
    for (const w of writers) for (const a of w.acked) acked.add(a);
    const store = await openSharedStore(kind, dir);
    const stored = await store.readAll();
    await store.close();
    const errors = exits
      .filter((e) => e.code !== 0)
      .map((e) => e.stderr.trim().split('\n').pop() ?? `exit ${e.code}`);
    return {
      store: kind,
      processes,
      writesPerProcess,
      seconds,
      writerFailures: errors.length,
      errors,
      ...verify(stored, acked),
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export interface KillCycleResult {
  store: StoreKind;
  cycles: number;
  /** Cycles after which the store opened and every acknowledged write was intact. */
  recovered: number;
  acked: number;
  lost: number;
  torn: number;
  duplicated: number;
  /** Items committed but killed before their ack was printed (allowed; reported). */
  unacknowledgedButStored: number;
  openFailures: string[];
  /** Cycles whose writer died on its own before the kill (harness problem, e.g. a package mid-rebuild). */
  writerFailures: string[];
}

/**
 * Repeatedly start a writer, SIGKILL it after a seeded number of acks (so the kill lands during a
 * write), then reopen the store and check that every acknowledged write survived intact.
 */
export async function runKillCycles(kind: StoreKind, cycles: number, seed = 11): Promise<KillCycleResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hm-bench-kill-${kind}-`));
  const rnd = mulberry32(seed);
  const allAcked = new Set<string>();
  const result: KillCycleResult = {
    store: kind,
    cycles,
    recovered: 0,
    acked: 0,
    lost: 0,
    torn: 0,
    duplicated: 0,
    unacknowledgedButStored: 0,
    openFailures: [],
    writerFailures: [],
  };
  try {
    // Create the store (and load its package into this process) before the first kill.
    const init = await openSharedStore(kind, dir);
    await init.close();
    let retries = 0;
    for (let c = 0; c < cycles; c++) {
      const writer = startWriter(kind, dir, 1000 + c, 10_000);
      await writer.whenAcked(3 + Math.floor(rnd() * 30));
      writer.kill();
      const exit = await writer.done;
      if (exit.signal !== 'SIGKILL') {
        if (harnessFailure(exit, writer.acked.size) && retries < 3) {
          retries++;
          c--; // not a kill cycle: the writer never started writing; run the cycle again
          continue;
        }
        result.writerFailures.push(exit.stderr.trim().split('\n').pop() ?? `exit ${exit.code}`);
      }
      for (const a of writer.acked) allAcked.add(a);
      try {
        const store = await openSharedStore(kind, dir);
        const v = verify(await store.readAll(), allAcked);
        await store.close();
        if (v.lost === 0 && v.torn === 0 && v.duplicated === 0) result.recovered++;
        result.lost = v.lost;
        result.torn = v.torn;
        result.duplicated = v.duplicated;
        result.unacknowledgedButStored = v.unexpected;
      } catch (err) {
        result.openFailures.push(err instanceof Error ? err.message : String(err));
      }
    }
    result.acked = allAcked.size;
    return result;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
