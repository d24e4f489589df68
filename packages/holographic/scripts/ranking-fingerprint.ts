/**
 * Development check for speed work that must not change rankings: runs every LoCoMo dev question
 * (limit 50) against a fresh store per conversation and prints a fingerprint of all result ids and
 * scores. Equal fingerprints before and after a change = identical rankings, to the last bit.
 *   node --import tsx scripts/ranking-fingerprint.ts ['{"feedback":0.3}'] [--embed]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { FactStore } from '../src/store';

interface Turn {
  speaker: string;
  text: string;
}
const here = path.dirname(fileURLToPath(import.meta.url));
const dataPath = path.resolve(here, '../../../../shared/bench/locomo-dev.json');
const data = JSON.parse(fs.readFileSync(dataPath, 'utf8')) as Array<{
  conversation: Record<string, unknown>;
  qa: Array<{ question: string }>;
}>;
const weightsArg = process.argv.slice(2).find((a) => a.startsWith('{'));
const weights = weightsArg ? JSON.parse(weightsArg) : undefined;
const embedder = process.argv.includes('--embed') ? await createDefaultEmbedder() : undefined;
const hash = crypto.createHash('sha256');
for (const conv of data) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-fingerprint-'));
  const store = new FactStore({ dbPath: path.join(dir, 'm.db'), weights, embedder });
  const c = conv.conversation;
  const items: Array<{ content: string }> = [];
  for (let s = 1; c[`session_${s}`]; s++)
    for (const t of c[`session_${s}`] as Turn[]) items.push({ content: `${t.speaker}: ${t.text}` });
  store.addMany(items);
  for (const qa of conv.qa) {
    const res = await store.recall(qa.question, { limit: 50, minTrust: 0 });
    hash.update(JSON.stringify(res.map((r) => [r.fact_id, r.score])));
  }
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(hash.digest('hex').slice(0, 16));
