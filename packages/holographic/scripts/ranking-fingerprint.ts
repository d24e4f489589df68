/**
 * Development check for speed work that must not change rankings: runs every LoCoMo dev question
 * (limit 50, data read with the bench's loader) against a fresh store per conversation and prints
 * a fingerprint of all result ids and scores. Equal fingerprints before and after a change = identical rankings, to the last bit.
 *   node --import tsx scripts/ranking-fingerprint.ts ['{"feedback":0.3}'] [--embed]
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { FactStore } from '../src/store';

const weightsArg = process.argv.slice(2).find((a) => a.startsWith('{'));
const weights = weightsArg ? JSON.parse(weightsArg) : undefined;
const embedder = process.argv.includes('--embed') ? await createDefaultEmbedder() : undefined;
const hash = crypto.createHash('sha256');
for (const conv of loadLocomo(sharedPath(...LOCOMO_FILE_REL))) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-fingerprint-'));
  const store = new FactStore({ dbPath: path.join(dir, 'm.db'), weights, embedder });
  store.addMany(conv.turns.map((t) => ({ content: t.text })));
  for (const qa of conv.questions) {
    const res = await store.recall(qa.question, { limit: 50, minTrust: 0 });
    hash.update(JSON.stringify(res.map((r) => [r.fact_id, r.score])));
  }
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(hash.digest('hex').slice(0, 16));
