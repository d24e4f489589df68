/**
 * Development dump for simulating ranking rules offline (decision 0905): for each LoCoMo question of
 * the selected conversations, every record that shares a topic word with it (its matched anchors
 * and FTS5's BM25 with our length normalisation), the ranker's own top candidates, and the store's
 * records once per conversation (text, speaker, document position). JSON Lines on stdout.
 *   node --import tsx scripts/rank-dump.ts [--convs=1-4] [--embed] [--weights={json}] > /tmp/dump.jsonl
 */
import { loadLocomo } from '../../bench/src/locomo/loader';
import { LOCOMO_FILE_REL, sharedPath } from '../../bench/src/paths';
import { ingestTurns, openContinuityStore } from '../../bench/src/retrievers/continuity';
import { analyzeQuery, ftsOr } from '../src/retrieval/query';
import { lengthRenormalisation, type Ranker } from '../src/retrieval/rank';
import type { Retriever } from '../src/retrieval/retriever';

const embed = process.argv.includes('--embed');
const weightsArg = process.argv.find((a) => a.startsWith('--weights='));
const weights = weightsArg ? JSON.parse(weightsArg.slice(10)) : undefined;
const data = loadLocomo(sharedPath(...LOCOMO_FILE_REL));
const convArg = process.argv.find((a) => a.startsWith('--convs='));
const [lo, hi] = convArg ? convArg.slice(8).split('-').map(Number) : [1, 4];
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

for (const conv of data.slice((lo ?? 1) - 1, hi)) {
  const target = await openContinuityStore({ embeddings: embed });
  await ingestTurns(target, conv.turns);
  const p = target.provider;
  await p.ready();
  const retriever = (p as unknown as { retriever: Retriever }).retriever;
  const ranker = retriever.ranker as Ranker & Record<string, unknown>;
  const store = p.recordStore!;
  const rows = store
    .stmt('SELECT seq, id, title, summary, details, entities FROM records ORDER BY seq')
    .all() as Array<{
    seq: number;
    id: string;
    title: string;
    summary: string;
    details: string | null;
    entities: string;
  }>;
  const lengths = ranker.relativeLengths(rows.map((r) => r.seq));
  const edges = store.stmt("SELECT src, dst, weight FROM edges WHERE relation = 'next_segment'").all();
  out({
    type: 'store',
    conv: conv.conversationId,
    n: rows.length,
    records: rows.map((r) => ({
      seq: r.seq,
      id: r.id,
      dia: target.diaOf.get(r.id) ?? null,
      title: r.title,
      text: r.summary + (r.details ? ` ${r.details}` : ''),
      entities: JSON.parse(r.entities),
      len: lengths.get(r.seq) ?? 1,
    })),
    edges,
  });
  const known = ranker.knownEntities();
  for (const q of conv.questions) {
    if (q.gold.length === 0 || q.category === 5) continue;
    const a = analyzeQuery(q.question, known);
    const terms = a.anchors.length > 0 ? a.anchors : a.meta;
    const stats = (
      ranker as unknown as { termStats(t: readonly string[]): { total: number; df: Map<string, number> } }
    ).termStats(terms);
    const bm25: Record<number, number> = {};
    const match = ftsOr(terms);
    if (match) {
      const rs = store
        .stmt(
          `SELECT records_fts.rowid AS seq, bm25(records_fts, 1.0, 1.0, 0.5, 1.0, 1.0, 0.3) AS rank FROM records_fts
           WHERE records_fts MATCH ? ORDER BY rank`,
        )
        .all(match) as Array<{ seq: number; rank: number }>;
      for (const r of rs) bm25[r.seq] = -r.rank * lengthRenormalisation(lengths.get(r.seq) ?? 1);
    }
    const lexical = (
      ranker as unknown as {
        lexical(
          t: readonly string[],
          s: readonly number[],
          st: unknown,
        ): { matched: Map<number, string[]>; context: Map<number, Set<string>> };
      }
    ).lexical(
      terms,
      rows.map((r) => r.seq),
      stats,
    );
    const ranked = await ranker.rank(a, {
      limit: 50,
      scopes: retriever.config.scopes,
      graphDepth: 2,
      weights,
    });
    out({
      type: 'q',
      conv: conv.conversationId,
      question: q.question,
      category: q.category,
      gold: q.gold,
      anchors: a.anchors,
      coverageAnchors: a.coverageAnchors,
      entities: a.entities,
      meta: a.meta,
      df: Object.fromEntries(terms.map((t) => [t, stats.df.get(t) ?? 0])),
      total: stats.total,
      bm25,
      matched: Object.fromEntries(lexical.matched),
      context: Object.fromEntries([...lexical.context].map(([seq, ts]) => [seq, [...ts]])),
      ranked: ranked.slice(0, 50).map((c) => ({
        seq: c.record.seq,
        score: c.score,
        direct: c.direct,
        via: c.via,
        signals: c.signals,
      })),
    });
  }
  target.close();
}
