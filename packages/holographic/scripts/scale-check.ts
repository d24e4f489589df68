/**
 * Local scale check (not a timed test; `packages/bench` measures officially): ingest N synthetic
 * facts with one `addMany`, then time `recall` over varied queries.
 *   node --import tsx scripts/scale-check.ts [N=10000] [--embed]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { FactStore } from '../src/store';

const n = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 10_000);
const embed = process.argv.includes('--embed');
const people = ['Alice', 'Bruno', 'Chen', 'Dana', 'Emeka', 'Farah', 'Goran', 'Hana', 'Ivan', 'Jia'];
const verbs = ['likes', 'visited', 'fixed', 'bought', 'wrote about', 'is learning', 'recommended', 'lost'];
const things = [
  'the red bicycle',
  'a jazz record',
  'the Lisbon office',
  'sourdough bread',
  'a Rust compiler bug',
  'the garden shed',
  'an old camera',
  'the quarterly budget',
  'a chess opening',
  'the staging server',
  'a mountain cabin',
  'Python type hints',
  'the blue kettle',
  'a pottery class',
  'the night train',
];
// Deterministic generator (LCG) so runs are comparable.
let seed = 42;
const rnd = (k: number) => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed % k;
};
const facts = Array.from({ length: n }, (_, i) => ({
  content: `${people[rnd(10)]} ${verbs[rnd(8)]} ${things[rnd(15)]} (note ${i}, week ${rnd(52)})`,
}));
const queries = Array.from(
  { length: 200 },
  () => `What did ${people[rnd(10)]} say about ${things[rnd(15)]}?`,
);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-scale-'));
const store = new FactStore({
  dbPath: path.join(dir, 'memory_store.db'),
  embedder: embed ? createDefaultEmbedder() : undefined,
});
const cpu0 = process.cpuUsage();
let t = performance.now();
store.addMany(facts);
const ingestMs = performance.now() - t;
const ingestCpu = process.cpuUsage(cpu0);
t = performance.now();
const embedded = await store.embedPending();
const embedMs = performance.now() - t;
for (const q of queries.slice(0, 10)) await store.recall(q); // warm caches
const times: number[] = [];
for (const q of queries) {
  const t0 = performance.now();
  await store.recall(q, { limit: 10 });
  times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(2);
const mem = process.memoryUsage();
store.close(); // flushes banks, checkpoints the WAL into the file and removes it
const dbBytes = fs.readdirSync(dir).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
console.log(
  `facts ${n}: ingest ${(ingestMs / 1000).toFixed(2)} s (${Math.round(n / (ingestMs / 1000))}/s, cpu ${((ingestCpu.user + ingestCpu.system) / 1e6).toFixed(2)} s)` +
    (embed ? `, embed ${embedded} in ${(embedMs / 1000).toFixed(2)} s` : '') +
    `; recall p50 ${pct(0.5)} ms, p95 ${pct(0.95)} ms; rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB; db ${(dbBytes / 2 ** 20).toFixed(1)} MiB`,
);
fs.rmSync(dir, { recursive: true, force: true });
