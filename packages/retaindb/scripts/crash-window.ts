/**
 * `node --import tsx scripts/crash-window.ts [--turns N] [--model-call-ms N] [--first-gap-ms N]`:
 * how long a synced turn exists only in memory — the window in which a kill -9 loses it. A fresh
 * process, a
 * `MemoryManager` with this provider against the package's fake on loopback; per turn, the time
 * from `syncAll` returning to `syncTurn` having committed the row to `retaindb_queue.db`, split
 * into the wait for the provider's queue (with the manager's strip and redaction) and `syncTurn`
 * itself (scan, then the fsynced insert). Turn 1 is the first of the process, `--first-gap-ms`
 * after `initializeAll` returned (the host's first recall and model call; default 1000); the rest
 * follow a model call of `--model-call-ms` idle (default 20). Prints one JSON line; run it several
 * times for medians.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MemoryManager, silentLogger } from '@hermes-memory/core';
import { createRetaindbProvider } from '../src/index';
import { startFakeRetaindb } from '../src/testing/index';

const { values } = parseArgs({
  options: {
    turns: { type: 'string', default: '50' },
    'model-call-ms': { type: 'string', default: '20' },
    'first-gap-ms': { type: 'string', default: '1000' },
  },
});
const turns = Number(values.turns);
const modelCallMs = Number(values['model-call-ms']);
const firstGapMs = Number(values['first-gap-ms']);
const now = () => Number(process.hrtime.bigint()) / 1e6;

const fake = await startFakeRetaindb({ apiKey: 'window-key' });
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'rdb-window-'));
const provider = createRetaindbProvider(
  { apiKey: 'window-key', baseURL: fake.url, project: 'window' },
  { env: {} },
);
// Timestamps around the provider's own syncTurn: when it returns, the row is committed.
let entered = 0;
let committed = 0;
const syncTurn = provider.syncTurn.bind(provider);
provider.syncTurn = (user, assistant, options) => {
  entered = now();
  syncTurn(user, assistant, options);
  committed = now();
};
const manager = new MemoryManager({ logger: silentLogger });
manager.addProvider(provider);
const initStart = now();
await manager.initializeAll('window-session', { hermesHome: home, env: {}, logger: silentLogger });
const initMs = now() - initStart;
await new Promise((resolve) => setTimeout(resolve, firstGapMs));

const rows: { syncAll: number; queueWait: number; syncTurn: number; window: number }[] = [];
for (let n = 1; n <= turns; n++) {
  committed = 0;
  const t0 = now();
  manager.syncAll(
    `user turn ${n}: remember that the deploy key rotates on Fridays`,
    `assistant turn ${n}: noted.`,
  );
  const returned = now();
  while (committed === 0) await new Promise((resolve) => setImmediate(resolve));
  rows.push({
    syncAll: returned - t0,
    queueWait: entered - returned,
    syncTurn: committed - entered,
    window: committed - returned,
  });
  await new Promise((resolve) => setTimeout(resolve, modelCallMs));
}
await manager.shutdownAll();
const stored = fake.state.ingests.length;
await fake.close();
fs.rmSync(home, { recursive: true, force: true });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const round = (x: number) => Math.round(x * 1000) / 1000;
const pick = (key: keyof (typeof rows)[number], from: typeof rows) => round(median(from.map((r) => r[key])));
const first = rows[0]!;
const steady = rows.slice(1);
console.log(
  JSON.stringify({
    initializeAllMs: round(initMs),
    first: Object.fromEntries(Object.entries(first).map(([k, v]) => [k, round(v)])),
    steadyMedian: {
      syncAll: pick('syncAll', steady),
      queueWait: pick('queueWait', steady),
      syncTurn: pick('syncTurn', steady),
      window: pick('window', steady),
    },
    steadyMaxWindow: round(Math.max(...steady.map((r) => r.window))),
    turns,
    firstGapMs,
    stored,
  }),
);
