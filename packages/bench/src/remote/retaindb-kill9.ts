import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChildWorker } from '@hermes-memory/testkit';
import { PACKAGE_DIR } from '../child';
import { loadModule } from '../packages';

const WRITER = path.join(PACKAGE_DIR, 'src/remote/retaindb-turn-writer.ts');

/** One kill -9 run: what the writer acknowledged and what the fake service ended with. */
export interface KillRow {
  setup: string;
  kills: number;
  acknowledged: number;
  /** Acknowledged turns the service does not have (must be 0). */
  lost: number;
  /** Turns the service stored more than once (0 with idempotency keys). */
  duplicated: number;
  /** Resent rows the service recognised by their Idempotency-Key and stored once. */
  resendsRemoved: number;
  /** Turns committed by a child killed before it printed their ack (stored once, never acknowledged). */
  inFlightCommitted: number;
  /** Rows left in `retaindb_queue.db` after a clean start drained (must be 0). */
  pendingAfter: number;
  seconds: number;
}

/** mulberry32: seeded, so the kill points are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A child writes 1–4 turns and is killed with SIGKILL at a seeded point (after 0…all of its acks,
 * half the time a few ms later, mid-drain), `kills` times on the same home; the fake stores each
 * ingest and answers 15 ms later, so kills land in the window "the service has it, the row is not
 * deleted yet". A last clean start drains what the kills left. The same protocol as the package's
 * own proof (`packages/retaindb/src/queue/kill-9.test.ts`), with more kills.
 */
export async function retaindbKillRun(
  kills: number,
  seed: number,
  idempotencyKeys: boolean,
  log: (m: string) => void,
): Promise<KillRow> {
  const { startFakeRetaindb } = await loadModule(
    '@hermes-memory/retaindb/testing',
    () => import('@hermes-memory/retaindb/testing'),
  );
  const { QUEUE_FILE, openQueueDatabase } = await loadModule(
    '@hermes-memory/retaindb',
    () => import('@hermes-memory/retaindb'),
  );
  const started = Date.now();
  const backend = await startFakeRetaindb({ apiKey: 'bench-key', ingestReplyDelayMs: 15, idempotencyKeys });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-bench-retaindb-kill9-'));
  try {
    const random = rng(seed);
    const acknowledged: string[] = [];
    const inFlight = new Set<string>();
    let next = 0;
    for (let round = 0; round < kills; round++) {
      if (round % 25 === 0)
        log(`retaindb kill -9 (keys ${idempotencyKeys ? 'honoured' : 'ignored'}): kill ${round}/${kills}`);
      const label = `r${round}`;
      const batch = 1 + Math.floor(random() * 4);
      const killAfterAcks = Math.floor(random() * (batch + 1));
      const extraDelayMs = random() < 0.5 ? 0 : Math.floor(random() * 30);
      const child = startChildWorker(WRITER, {
        args: [home, backend.url, label, String(next), String(next + batch)],
        execArgv: ['--import', 'tsx'],
        cwd: PACKAGE_DIR,
      });
      await child.waitForLines(killAfterAcks, (line) => line.startsWith('ack '));
      if (extraDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, extraDelayMs));
      const exit = await child.kill('SIGKILL');
      if ((exit.signal ?? exit.code) !== 'SIGKILL')
        throw new Error(`writer exited on its own (${exit.signal ?? exit.code}): ${exit.stderr.slice(-400)}`);
      const acks = child.lines.filter((l) => l.startsWith('ack ')).map((l) => l.slice(4));
      acknowledged.push(...acks);
      if (acks.length < batch) inFlight.add(`${label}t${next + acks.length}`);
      next += acks.length;
    }
    const last = startChildWorker(WRITER, {
      args: [home, backend.url, 'final', String(next), String(next)],
      execArgv: ['--import', 'tsx'],
      cwd: PACKAGE_DIR,
    });
    await last.waitForLines(1, (line) => line === 'drained');
    await last.kill('SIGKILL');

    const state = backend.dump();
    const stored = new Map<string, number>();
    for (const ingest of state.ingests) {
      const marker = /marker (\S+)\./.exec(ingest.messages[0]?.content ?? '')?.[1] ?? '?';
      stored.set(marker, (stored.get(marker) ?? 0) + 1);
    }
    const db = openQueueDatabase(path.join(home, QUEUE_FILE), { readonly: true });
    const pendingAfter = (db.prepare('SELECT COUNT(*) AS n FROM pending').get() as { n: number }).n;
    db.close();
    return {
      setup: idempotencyKeys
        ? 'fake honours Idempotency-Key'
        : 'fake ignores Idempotency-Key (at least once)',
      kills,
      acknowledged: acknowledged.length,
      lost: acknowledged.filter((m) => !stored.has(m)).length,
      duplicated: [...stored.values()].filter((n) => n > 1).length,
      resendsRemoved: state.duplicatesSuppressed,
      inFlightCommitted: [...inFlight].filter((m) => stored.has(m)).length,
      pendingAfter,
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await backend.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}
