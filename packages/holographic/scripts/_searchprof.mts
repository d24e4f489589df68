// search-only profile: ingest, then time many recalls
import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { FactStore } from '../src/store';
const n = Number(process.argv[2] ?? 10000);
const people = ['Alice', 'Bruno', 'Chen', 'Dana', 'Emeka', 'Farah', 'Goran', 'Hana', 'Ivan', 'Jia'];
const verbs = ['likes', 'visited', 'fixed', 'bought', 'wrote about', 'is learning', 'recommended', 'lost'];
const things = ['the red bicycle','a jazz record','the Lisbon office','sourdough bread','a Rust compiler bug','the garden shed','an old camera','the quarterly budget','a chess opening','the staging server','a mountain cabin','Python type hints','the blue kettle','a pottery class','the night train'];
let seed = 42; const rnd = (k: number) => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed % k; };
const facts = Array.from({ length: n }, (_, i) => ({ content: `${people[rnd(10)]} ${verbs[rnd(8)]} ${things[rnd(15)]} (note ${i}, week ${rnd(52)})` }));
const queries = Array.from({ length: 200 }, () => `What did ${people[rnd(10)]} say about ${things[rnd(15)]}?`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-sp-'));
const store = new FactStore({ dbPath: path.join(dir, 'm.db') });
store.addMany(facts);
for (const q of queries.slice(0, 10)) await store.recall(q);
const t = performance.now(); const times: number[] = [];
for (let r = 0; r < 5; r++) for (const q of queries) { const t0 = performance.now(); await store.recall(q, { limit: 10 }); times.push(performance.now() - t0); }
times.sort((a, b) => a - b);
console.log('p50', times[times.length >> 1]!.toFixed(2), 'p95', times[Math.floor(times.length * 0.95)]!.toFixed(2), 'total', (performance.now() - t).toFixed(0));
store.close(); fs.rmSync(dir, { recursive: true, force: true });
