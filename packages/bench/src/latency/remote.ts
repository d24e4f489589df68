import type { MemoryProvider } from '@hermes-memory/core';
import { loadPackage } from '../packages';
import { initContext, tempHome } from '../providers';
import { type Summary, summarize } from '../stats';
import { loadMemoryManagerClass, type MemoryManagerLike } from './manager-shape';
import { QUERIES } from './queries';

/** A remote provider against the fake its package ships (`./testing`), driven through MemoryManager. */
export interface RemoteProviderEntry {
  name: string;
  /** Start the fake and say how to build a provider against it. */
  start(): Promise<RemoteBackend>;
}

export interface RemoteBackend {
  create(): MemoryProvider;
  /** Fail every request from now on (`{type: 'status', status: 503}`, `{type: 'timeout'}`, …). */
  failAll(fault: Record<string, unknown>): void;
  clearFaults(): void;
  close(): Promise<void>;
}

type FakeLike = {
  url: string;
  fail(f: Record<string, unknown>): void;
  clearFaults(): void;
  close(): Promise<void>;
};

/** Supermemory in both prefetch modes (decision 0931): turn-start recall, or the reference's per-query call. */
function supermemoryEntry(name: string, prefetchMode: 'background' | 'per-query'): RemoteProviderEntry {
  return {
    name,
    async start() {
      const supermemory = await loadPackage('@hermes-memory/supermemory');
      const testing = await loadPackage('@hermes-memory/supermemory/testing');
      const fake = await (testing['startFakeSupermemory'] as (o: object) => Promise<FakeLike>)({
        apiKey: 'bench-key',
      });
      const create = supermemory['createSupermemoryProvider'] as (s: object, c: object) => MemoryProvider;
      // Its own empty home, so no supermemory.json of the machine's user is read.
      const home = tempHome('hm-bench-supermemory-');
      return {
        create: () =>
          create(
            { apiKey: 'bench-key', baseURL: fake.url, prefetchMode },
            { hermesHome: home.home, env: {} },
          ),
        failAll: (fault) => fake.fail({ ...fault, count: 1_000_000 }),
        clearFaults: () => fake.clearFaults(),
        close: async () => {
          await fake.close();
          home.cleanup();
        },
      };
    },
  };
}

export const REMOTE_PROVIDERS: readonly RemoteProviderEntry[] = [
  {
    name: 'mem0',
    async start() {
      process.env.MEM0_TELEMETRY ??= 'false';
      const mem0 = await loadPackage('@hermes-memory/mem0');
      const testing = await loadPackage('@hermes-memory/mem0/testing');
      const fake = await (testing['startFakeMem0Platform'] as (o: object) => Promise<FakeLike>)({
        apiKey: 'bench-key',
      });
      const create = mem0['createMem0Provider'] as (s: object) => MemoryProvider;
      return {
        create: () => create({ apiKey: 'bench-key', platformURL: fake.url }),
        failAll: (fault) => fake.fail({ ...fault, count: 1_000_000 }),
        clearFaults: () => fake.clearFaults(),
        close: () => fake.close(),
      };
    },
  },
  {
    name: 'honcho',
    async start() {
      const honcho = await loadPackage('@hermes-memory/honcho');
      const testing = await loadPackage('@hermes-memory/honcho/testing');
      const fake = await (testing['startFakeHoncho'] as (o: object) => Promise<FakeLike>)({
        apiKey: 'bench-key',
      });
      const create = honcho['createHonchoProvider'] as (s: object, c: object) => MemoryProvider;
      // Its own empty home, so no honcho.json of the machine's user is read.
      const home = tempHome('hm-bench-honcho-');
      return {
        create: () =>
          create(
            {
              userHome: home.home,
              config: { apiKey: 'bench-key', baseUrl: fake.url, peerName: 'bench-user', timeout: 5 },
            },
            { hermesHome: home.home, env: {} },
          ),
        failAll: (fault) => fake.fail({ ...fault, count: 1_000_000 }),
        clearFaults: () => fake.clearFaults(),
        close: async () => {
          await fake.close();
          home.cleanup();
        },
      };
    },
  },
  supermemoryEntry('supermemory', 'background'),
];

/**
 * Run only when named (`remote-run.ts supermemory-per-query`): the reference's per-query prefetch,
 * kept for decision 0931's comparison. Not in the latency suite — with a hung service every turn
 * waits its full 3 s.
 */
export const COMPARISON_PROVIDERS: readonly RemoteProviderEntry[] = [
  supermemoryEntry('supermemory-per-query', 'per-query'),
];

export interface RemoteRow {
  step: string;
  setup: string;
  summary: Summary;
  /** Our budget, ms (p99 for the warm path and sync, max for the first turn). */
  budgetMs: number;
}

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

/**
 * Turn overhead of a remote provider through `MemoryManager`: the first turn (turn-start search +
 * prefetch, fresh manager), then steady turns — `onTurnStart`, `prefetchAll` (timed: must be served
 * from what is ready), `syncAll` (timed: must return at once), then the background work settles
 * before the next turn. The same with every backend request failing (503) or hanging.
 */
export async function remoteTurnOverhead(
  entry: RemoteProviderEntry,
  runs: number,
  log: (m: string) => void,
): Promise<RemoteRow[]> {
  const rows: RemoteRow[] = [];
  const backend = await entry.start();
  try {
    for (const mode of ['healthy', 'every request 503', 'every request hangs'] as const) {
      const setup = `${entry.name} vs its fake, ${mode}`;
      log(`latency: remote ${setup}`);
      if (mode === 'every request 503') backend.failAll({ type: 'status', status: 503, retryAfter: 1 });
      if (mode === 'every request hangs') backend.failAll({ type: 'timeout' });
      const firstTurn: number[] = [];
      for (let i = 0; i < (mode === 'every request hangs' ? 3 : 20); i++) {
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
        const warm: number[] = [];
        const sync: number[] = [];
        const turns = mode === 'healthy' ? runs : Math.min(runs, 200);
        for (let i = 0; i < turns; i++) {
          const q = QUERIES[i % QUERIES.length]!;
          await manager.onTurnStart(i + 2, q);
          let t0 = now();
          await manager.prefetchAll(q);
          warm.push(now() - t0);
          t0 = now();
          manager.syncAll(`user turn ${i}: ${q}`, `assistant turn ${i}: noted.`);
          sync.push(now() - t0);
          if (mode !== 'every request hangs') await manager.flushPending(10_000);
        }
        rows.push({
          step: 'prefetchAll, turns after the first',
          setup,
          summary: summarize(warm),
          budgetMs: 1,
        });
        rows.push({ step: 'syncAll (returns at once)', setup, summary: summarize(sync), budgetMs: 0.1 });
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
