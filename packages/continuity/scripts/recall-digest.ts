/**
 * Equivalence check for performance work: one digest (SHA-256) of everything continuity's recall
 * produces on the bench's LoCoMo protocol. Each conversation goes into a provider built from this
 * package's source through the bench's own `ingestTurns` (`packages/bench/src/retrievers/
 * continuity.ts`, which runs the built ingestion: one transcript document per session → review →
 * import), then every probe of `locomoProbeStores` (own, cross, off-topic questions) goes through
 * `prefetch`, and the own questions through `continuity_search` too. The digest covers the injected
 * block, the event log row each prefetch wrote (candidates, signals, verdicts, gates) and the tool's
 * JSON; only what differs between identical runs is normalised: record ids are drawn from a seeded
 * generator instead of the system's (ranking breaks some exact ties by edge order, and edges are
 * keyed by record id) and printed as insertion order, event ids are dropped, and the clock is
 * fixed. A change that claims not to alter any result must leave the digest identical, lexical and
 * with `--embed`.
 *   node --import tsx scripts/recall-digest.ts [--embed] [--convs=1-7] [--time] [--dump=FILE]
 */
import crypto, { createHash } from 'node:crypto';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import { createDefaultEmbedder } from '@hermes-memory/embeddings';
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { loadOffTopicQuestions } from '../../bench/src/precision/data';
import { locomoProbeStores } from '../../bench/src/precision/scenarios';
import { ingestTurns } from '../../bench/src/retrievers/continuity';
import { createContinuityProvider } from '../src/index';

const embed = process.argv.includes('--embed');
const timed = process.argv.includes('--time');
const convArg = process.argv.find((a) => a.startsWith('--convs='));
const dumpArg = process.argv.find((a) => a.startsWith('--dump='));
const dump = dumpArg ? fs.openSync(dumpArg.slice(7), 'w') : null;
const FIXED_NOW = new Date('2026-06-01T12:00:00.000Z');

/** Reproducible record ids: a fixed-seed xorshift stream behind `crypto.randomBytes`. */
function seedRandomBytes(): void {
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return state & 0xff;
  };
  (crypto as { randomBytes: (size: number) => Buffer }).randomBytes = (size: number) =>
    Buffer.from(Array.from({ length: size }, next));
  syncBuiltinESMExports();
}
seedRandomBytes();

const all = locomoProbeStores(loadLocomo(sharedPath(...LOCOMO_FILE_REL)), loadOffTopicQuestions());
const [lo, hi] = convArg ? convArg.slice(8).split('-').map(Number) : [1, all.length];
const stores = all.slice((lo ?? 1) - 1, hi ?? lo ?? all.length);

const total = createHash('sha256');
let prefetchMs = 0;
let prefetches = 0;
for (const probeStore of stores) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-recall-digest-'));
  const provider = createContinuityProvider({ embeddings: embed ? 'auto' : false, clock: () => FIXED_NOW });
  provider.initialize('digest', {
    hermesHome: dir,
    platform: 'bench',
    agentContext: 'primary',
    logger: silentLogger,
    embedder: embed ? createDefaultEmbedder() : undefined,
  });
  try {
    // The bench's own ingestion (its helper only needs the provider's open store).
    await ingestTurns(
      { provider, diaOf: new Map(), rejected: 0, dir, close() {} } as never,
      probeStore.turns,
    );
    const store = provider.recordStore!;
    const label = new Map<string, string>();
    for (const r of store.iterate()) label.set(r.id, `#${r.seq}`);
    const ids = /ctx_[0-9a-f]{12}/g;
    const stable = (text: string) => text.replace(ids, (id) => label.get(id) ?? '#?');
    const hash = createHash('sha256');
    const update = (part: string) => {
      hash.update(part);
      if (dump !== null) fs.writeSync(dump, `${part.replaceAll('\0', '\t')}\n`);
    };
    let lastEvent = 0;
    for (const probe of probeStore.probes) {
      const t0 = performance.now();
      const block = await provider.prefetch(probe.query);
      prefetchMs += performance.now() - t0;
      prefetches++;
      update(`P\0${probe.query}\0${stable(block)}\0`);
      const row = store.db
        .prepare('SELECT * FROM retrieval_events WHERE id > ? ORDER BY id')
        .all(lastEvent) as Array<Record<string, unknown> & { id: number }>;
      for (const { id, ...rest } of row) {
        lastEvent = id;
        update(`E\0${stable(JSON.stringify(rest))}\0`);
      }
      if (probe.kind === 'answerable') {
        const out = await provider.handleToolCall('continuity_search', { query: probe.query, limit: 10 });
        update(`S\0${stable(out)}\0`);
      }
    }
    const digest = hash.digest('hex');
    total.update(digest);
    console.log(
      `${probeStore.id}: ${store.count()} records, ${probeStore.probes.length} probes, ${digest.slice(0, 16)}`,
    );
  } finally {
    provider.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
console.log(`continuity${embed ? '+embeddings' : ''} recall digest: ${total.digest('hex')}`);
if (timed) console.log(`prefetch mean ${(prefetchMs / prefetches).toFixed(3)} ms over ${prefetches} calls`);
