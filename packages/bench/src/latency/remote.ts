import type { MemoryProvider } from '@hermes-memory/core';
import type { FakeFault } from '@hermes-memory/testkit/http';
import { initContext, tempHome } from '../providers';
import { type Summary, summarize } from '../stats';
import { loadMemoryManagerClass, type MemoryManagerLike } from './manager-shape';
import { QUERIES } from './queries';

/**
 * A remote provider against the fake its package ships (`./testing`), driven through MemoryManager.
 * Each provider's entry lives in `providers/<id>.ts` and is listed in `providers/index.ts`.
 */
export interface RemoteProviderEntry {
  name: string;
  /** What the rows say it ran against. Default "its fake". */
  against?: string;
  /** Start the fake and say how to build a provider against it. */
  start(): Promise<RemoteBackend>;
}

export interface RemoteBackend {
  create(): MemoryProvider;
  /** Fail every request from now on (`{type: 'status', status: 503}`, `{type: 'timeout'}`, …). */
  failAll(fault: FakeFault): void;
  clearFaults(): void;
  close(): Promise<void>;
}

export interface RemoteRow {
  step: string;
  setup: string;
  summary: Summary;
  /** Our budget, ms (p99 for the warm path and sync, max for the first turn). */
  budgetMs: number;
}

export interface RemoteRunOptions {
  /** Warm turns timed per healthy manager (fault modes: at most `faultTurns`). */
  runs: number;
  /** Fresh managers whose first turn is timed (healthy and 503; hung: at most 3). Default 20. */
  firstTurns?: number;
  /** Warm turns under a fault. Default 1000, so p99 is the 10th-worst call, not the 2nd. */
  faultTurns?: number;
  /**
   * The model call between turns, ms: every turn waits at least this long (the background work
   * runs meanwhile; a healthy backend's work also settles). Default `DEFAULT_MODEL_CALL_MS`.
   */
  modelCallMs?: number;
  /** Which of `REMOTE_MODES` to run. Default all. */
  modes?: readonly RemoteMode[];
}

/**
 * Why 20 ms and not a real model call's seconds: what an idle gap costs the next turn is the cold
 * path (caches, branch predictors, a descheduled vCPU), not work for the backend, and that cost
 * stops growing within ~10 ms. Measured with the no-op provider (2-core AMD EPYC, load ≈ 1,
 * 300 turns per gap, syncAll p50): 2 ms gap 9 µs, 10 ms 12 µs, 25–200 ms 11–13 µs; no gap 4.6 µs,
 * healthy or hung alike. So 20 ms gives every mode the state a host's turn starts from, and 1000
 * fault turns take 20 s (the 200 turns × 200 ms this replaced took 40 s).
 */
export const DEFAULT_MODEL_CALL_MS = 20;

export const REMOTE_MODES = ['healthy', 'every request 503', 'every request hangs'] as const;
export type RemoteMode = (typeof REMOTE_MODES)[number];

type TurnManager = MemoryManagerLike & { onTurnStart(turn: number, message: string): Promise<void> };

async function openManager(
  backend: RemoteBackend,
): Promise<{ manager: TurnManager; cleanup: () => Promise<void> }> {
  const Manager = await loadMemoryManagerClass();
  const home = tempHome('hm-bench-remote-');
  const manager = new Manager({}) as TurnManager;
  manager.addProvider(backend.create());
  await manager.initializeAll('bench-session', initContext(home.home));
  return {
    manager,
    cleanup: async () => {
      await manager.shutdownAll();
      home.cleanup();
    },
  };
}

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** One turn as a host runs it: turn start, recall, then the finished turn handed to sync. */
async function turn(
  manager: TurnManager,
  n: number,
  settle: boolean,
  modelCallMs: number,
  timed?: { warm: number[]; sync: number[] },
) {
  const q = QUERIES[(n - 1) % QUERIES.length]!;
  await manager.onTurnStart(n, q);
  let t0 = now();
  await manager.prefetchAll(q);
  timed?.warm.push(now() - t0);
  t0 = now();
  manager.syncAll(`user turn ${n}: ${q}`, `assistant turn ${n}: noted.`);
  timed?.sync.push(now() - t0);
  // The model call: the background work runs meanwhile. A healthy backend's work settles before
  // the next turn; a failing one's may never (a durable queue keeps its rows), so it gets only the
  // model call's time, and every mode starts its next turn after the same idle gap.
  await Promise.all([
    manager.flushPending(settle ? 10_000 : modelCallMs),
    new Promise((resolve) => setTimeout(resolve, modelCallMs)),
  ]);
  // A host yields to the event loop between turns, so work a provider deferred until then runs
  // here (with a hung backend nothing else would let it run).
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Turn overhead of a remote provider through `MemoryManager`: the first turn (turn-start search +
 * prefetch, fresh manager), then steady turns — `onTurnStart`, `prefetchAll` (timed: must be served
 * from what is ready), `syncAll` (timed: must return at once), then the model call (at least
 * `modelCallMs` idle, during which a healthy backend's work settles) before the next turn. The steady turns run on a manager whose turn 1 has already run (untimed,
 * it may wait within its budget), so a provider's first-call wait never shows as a warm sample.
 * The same with every backend request failing (503) or hanging.
 */
export async function remoteTurnOverhead(
  entry: RemoteProviderEntry,
  options: RemoteRunOptions,
  log: (m: string) => void,
): Promise<RemoteRow[]> {
  const firstTurns = options.firstTurns ?? 20;
  const faultTurns = options.faultTurns ?? 1000;
  const modelCallMs = options.modelCallMs ?? DEFAULT_MODEL_CALL_MS;
  const rows: RemoteRow[] = [];
  const backend = await entry.start();
  try {
    for (const mode of options.modes ?? REMOTE_MODES) {
      const setup = `${entry.name} vs ${entry.against ?? 'its fake'}, ${mode}`;
      log(`latency: remote ${setup}`);
      if (mode === 'every request 503') backend.failAll({ type: 'status', status: 503, retryAfter: 1 });
      if (mode === 'every request hangs') backend.failAll({ type: 'timeout' });
      // Only a healthy backend settles; with a failing or hung one, waiting would time the drain.
      const settle = mode === 'healthy';
      const firstTurn: number[] = [];
      for (let i = 0; i < (mode === 'every request hangs' ? Math.min(firstTurns, 3) : firstTurns); i++) {
        const { manager, cleanup } = await openManager(backend);
        try {
          const q = QUERIES[i % QUERIES.length]!;
          const t0 = now();
          await manager.onTurnStart(1, q);
          await manager.prefetchAll(q);
          firstTurn.push(now() - t0);
        } finally {
          await cleanup();
        }
      }
      rows.push({
        step: 'first turn: onTurnStart + prefetchAll',
        setup,
        summary: summarize(firstTurn),
        budgetMs: 3000,
      });
      const { manager, cleanup } = await openManager(backend);
      try {
        await turn(manager, 1, settle, modelCallMs);
        const timed = { warm: [] as number[], sync: [] as number[] };
        const turns = mode === 'healthy' ? options.runs : Math.min(options.runs, faultTurns);
        for (let i = 0; i < turns; i++) await turn(manager, i + 2, settle, modelCallMs, timed);
        rows.push({
          step: 'prefetchAll, turns after the first',
          setup,
          summary: summarize(timed.warm),
          budgetMs: 1,
        });
        rows.push({
          step: 'syncAll (returns at once)',
          setup,
          summary: summarize(timed.sync),
          budgetMs: 0.1,
        });
      } finally {
        backend.clearFaults();
        await cleanup();
      }
    }
  } finally {
    await backend.close();
  }
  return rows;
}
