import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import { loadModule } from '../packages';
import { tempHome } from '../providers';
import { type Summary, summarize } from '../stats';

export interface RetaindbQueueResult {
  /** `DurableQueue.enqueue` alone: one committed row (WAL, synchronous=FULL), no writer running. */
  enqueue: Summary;
  /** `syncTurn` through the provider (scan, neutralise, enqueue) while its writer drains to the fake. */
  syncTurn: Summary;
  /** Rows queued before the provider started, then drained to the fake by its writer. */
  drain: { rows: number; seconds: number; rowsPerSecond: number; stored: number };
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

const turn = (i: number) => [
  { role: 'user' as const, content: `Turn ${i}: we moved the staging deploy to Thursdays.`, timestamp: '' },
  { role: 'assistant' as const, content: `Noted, staging deploys on Thursdays (turn ${i}).`, timestamp: '' },
];

/**
 * RetainDB's durable queue against its fake: commit latency of one turn (the promise `syncTurn`
 * makes: on disk before it returns), the same through the provider while its writer sends, and
 * how fast a backlog drains (one ingest request per row, as the writer sends them).
 */
export async function measureRetaindbQueue(runs: number, drainRows: number): Promise<RetaindbQueueResult> {
  const { DurableQueue, QUEUE_FILE, createRetaindbProvider } = await loadModule(
    '@hermes-memory/retaindb',
    () => import('@hermes-memory/retaindb'),
  );
  const { startFakeRetaindb } = await loadModule(
    '@hermes-memory/retaindb/testing',
    () => import('@hermes-memory/retaindb/testing'),
  );
  const fake = await startFakeRetaindb({ apiKey: 'bench-key' });
  const home = tempHome('hm-bench-retaindb-queue-');
  try {
    // 1. Enqueue alone, into the file the provider will drain.
    const file = path.join(home.home, QUEUE_FILE);
    const queue = new DurableQueue(file, { logger: silentLogger });
    for (let i = 0; i < 20; i++) queue.enqueue('bench-user', 'warm-up', turn(i)); // warm-up
    const enqueue: number[] = [];
    for (let i = 0; i < drainRows; i++) {
      const t0 = now();
      queue.enqueue('bench-user', 'bench-session', turn(i));
      if (i < runs) enqueue.push(now() - t0);
    }
    await queue.shutdown({ timeoutMs: 0 });
    const rows = drainRows + 20;

    // 2. The backlog drained by the provider's writer, from initialize until the queue is empty.
    const provider = createRetaindbProvider(
      { apiKey: 'bench-key', baseURL: fake.url, project: 'bench' },
      { env: {} },
    );
    const t0 = now();
    await provider.initialize('bench-session', {
      hermesHome: home.home,
      platform: 'cli',
      agentContext: 'primary',
      logger: silentLogger,
      env: {},
    });
    if (!(await provider.flush(600_000))) throw new Error('the RetainDB queue did not drain in 10 minutes');
    const seconds = (now() - t0) / 1000;
    const stored = fake.dump().ingests.length;

    // 3. syncTurn while the writer sends each turn to the fake.
    const syncTurn: number[] = [];
    for (let i = 0; i < runs; i++) {
      const [user, assistant] = turn(i);
      const t1 = now();
      provider.syncTurn(user!.content, assistant!.content);
      syncTurn.push(now() - t1);
      if (i % 50 === 49) await provider.flush(60_000);
    }
    await provider.shutdown({ timeoutMs: 60_000 });
    return {
      enqueue: summarize(enqueue),
      syncTurn: summarize(syncTurn),
      drain: { rows, seconds, rowsPerSecond: rows / seconds, stored },
    };
  } finally {
    await fake.close();
    home.cleanup();
  }
}

/** The file system the queue's temp home is on (for the report): from /proc/mounts where present. */
export function tempFileSystem(dir: string): string {
  try {
    const mounts = fs
      .readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((l) => l.split(' '))
      .filter((f) => f.length > 2 && dir.startsWith(f[1]!))
      .sort((a, b) => b[1]!.length - a[1]!.length);
    return mounts[0]?.[2] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
