/**
 * Retrieval gates: what a candidate must pass to reach the prompt (decision 0906). Tool searches
 * show ranked lists; prefetch injects only what clears every gate, and nothing when nothing does.
 */
import type { RecordKind, Scopes } from '../records';
import { type AnalyzedQuery, aboutWords } from './query';
import type { Candidate } from './rank';
import { POSITIONAL_RELATIONS } from './relations';

export const GATE_IDS = [
  'low_information_query',
  'stale',
  'in_builtin_snapshot',
  'scope_mismatch',
  'facet_mismatch',
  'memory_meta',
  'weak_vector_only',
  'weak_graph_activation',
  'weak_match',
  'unspecific_match',
  'below_relative',
  'budget',
] as const;
export type GateId = (typeof GATE_IDS)[number];

export const GATE_DESCRIPTIONS: Readonly<Record<GateId, string>> = {
  low_information_query: 'the message carries no topic ("ok", "thanks", "and?")',
  stale: 'project state not updated within its freshness window',
  in_builtin_snapshot: 'mirrors a builtin memory entry already in the system prompt',
  scope_mismatch: "scoped to another project, repo, user or profile than this conversation's",
  facet_mismatch: 'the message names someone or something this record is not about',
  memory_meta: 'matched only words about memory itself ("remember", "what did I say")',
  weak_vector_only: 'no shared words and an embedding similarity below the floor',
  weak_graph_activation: 'associated through the graph, but the activation was too weak',
  weak_match: "too few of the message's key words (IDF-weighted) or too low a score",
  unspecific_match:
    'the words it shares with the message are in too many records to single it out ("help", "time")',
  below_relative: 'its own evidence is much weaker than the best match (borrowed activation not counted)',
  budget: 'did not fit max_records / max_chars',
};

export interface GateSettings {
  /** IDF-weighted share of the query's anchors a direct hit must contain. */
  minCoverage: number;
  /** Absolute score floor for a direct hit. */
  minScore: number;
  /**
   * Largest share of the store (counted as at least 1,000 records, like the IDF) that may contain
   * every word a direct hit shares with the message; more, and those words do not single it out.
   */
  maxSharedShare: number;
  /** A hit must score at least this fraction of the best injected one. */
  relativeCutoff: number;
  /** Cosine a hit with no shared anchor needs (vector-only). */
  vectorOnlyMinCosine: number;
  /** Borrowed activation an associated record needs. */
  graphMinActivation: number;
  /** At most this many associated (graph) records per block. */
  maxAssociated: number;
  /** Kind → days without an update after which an active record is stale. */
  staleAfterDays: Partial<Record<RecordKind, number>>;
  /** Skip records that only mirror builtin entries written before this session. */
  skipBuiltinMirrors: boolean;
}

export const DEFAULT_GATES: Readonly<GateSettings> = {
  minCoverage: 0.5,
  minScore: 0.3,
  maxSharedShare: 0.01,
  relativeCutoff: 0.85,
  vectorOnlyMinCosine: 0.85,
  graphMinActivation: 0.3,
  maxAssociated: 1,
  staleAfterDays: { active_project_state: 30 },
  skipBuiltinMirrors: true,
};

export interface GateContext {
  query: AnalyzedQuery;
  settings: GateSettings;
  scopes: Scopes;
  sessionId: string | null;
  now: Date;
  /**
   * How many records contain every one of `terms`, and the store size the share is taken of.
   * Absent: the `unspecific_match` gate is not applied.
   */
  sharedBy?: (terms: readonly string[]) => { records: number; corpus: number };
}

/** Smallest store the `unspecific_match` share is taken of (the IDF's floor, decision 0905). */
const MIN_SHARE_CORPUS = 1_000;

/**
 * A direct hit whose shared words are common in the store: one frequent word ("help" in a chat
 * log), or a few that co-occur everywhere. Checked after the other gates, on the few survivors,
 * because it costs one FTS count per distinct set of shared words.
 */
export function specificityGate(
  c: Candidate,
  ctx: GateContext,
  cache: Map<string, { records: number; corpus: number }>,
): { gate: GateId; reason: string } | null {
  if (!ctx.sharedBy || c.via !== 'direct' || c.matched.length === 0) return null;
  const key = [...c.matched].sort().join(' ');
  let shared = cache.get(key);
  if (!shared) {
    shared = ctx.sharedBy(c.matched);
    cache.set(key, shared);
  }
  const corpus = Math.max(shared.corpus, MIN_SHARE_CORPUS);
  if (shared.records <= ctx.settings.maxSharedShare * corpus) return null;
  const share = Number((ctx.settings.maxSharedShare * 100).toFixed(2));
  return {
    gate: 'unspecific_match',
    reason: `'${c.matched.join("', '")}' together in ${shared.records} records (> ${share} % of ${corpus})`,
  };
}

/** Gates that depend on the candidate alone (not on what else was selected). */
export function candidateGate(c: Candidate, ctx: GateContext): { gate: GateId; reason: string } | null {
  const r = c.record;
  const days = ctx.settings.staleAfterDays[r.kind];
  if (days !== undefined && days > 0) {
    const age = (ctx.now.getTime() - Date.parse(r.updatedAt)) / 86_400_000;
    if (age > days)
      return { gate: 'stale', reason: `${r.kind} last updated ${Math.floor(age)} days ago (window ${days})` };
  }
  if (
    ctx.settings.skipBuiltinMirrors &&
    r.sources.length > 0 &&
    r.sources.every((s) => s.type === 'memory_write' && s.sessionId && s.sessionId !== ctx.sessionId)
  )
    return { gate: 'in_builtin_snapshot', reason: 'written to builtin memory in an earlier session' };
  for (const [key, value] of Object.entries(r.scopes)) {
    const current = ctx.scopes[key as keyof Scopes];
    if (value && current && value.toLowerCase() !== current.toLowerCase())
      return { gate: 'scope_mismatch', reason: `${key} '${value}' ≠ '${current}'` };
  }
  if (ctx.query.entities.length > 0) {
    const about = aboutWords(r);
    if (!ctx.query.entities.some((e) => about.has(e)))
      return { gate: 'facet_mismatch', reason: `the message names ${ctx.query.entities.join(', ')}` };
  }
  if (c.matched.length === 0) {
    if (ctx.query.meta.length > 0 && c.via === 'direct')
      return { gate: 'memory_meta', reason: `only '${ctx.query.meta.join("', '")}' in common` };
    if (c.via === 'direct' && c.signals.cosine < ctx.settings.vectorOnlyMinCosine)
      return {
        gate: 'weak_vector_only',
        reason: `cosine ${c.signals.cosine.toFixed(2)} < ${ctx.settings.vectorOnlyMinCosine}`,
      };
  }
  if (c.via === 'associated') {
    // Positional edges (the next passage of a document or transcript) help tool searches find a
    // reply next to its question, but carry no meaning: only explicit associations (related_to,
    // supersedes, ...) bring a record into the prompt as associated context.
    if (c.relation && POSITIONAL_RELATIONS.has(c.relation))
      return { gate: 'weak_graph_activation', reason: `only positionally adjacent (${c.relation})` };
    if (c.signals.graph < ctx.settings.graphMinActivation)
      return {
        gate: 'weak_graph_activation',
        reason: `activation ${c.signals.graph.toFixed(2)} < ${ctx.settings.graphMinActivation}`,
      };
    return null;
  }
  if (c.matched.length > 0 && c.signals.coverage < ctx.settings.minCoverage)
    return {
      gate: 'weak_match',
      reason: `coverage ${c.signals.coverage.toFixed(2)} < ${ctx.settings.minCoverage}`,
    };
  if (c.score < ctx.settings.minScore)
    return { gate: 'weak_match', reason: `score ${c.score.toFixed(2)} < ${ctx.settings.minScore}` };
  return null;
}
