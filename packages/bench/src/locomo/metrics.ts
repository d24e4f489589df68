/**
 * Retrieval metrics of benchmarks.md §5.1 step 7. All functions take the ranked, deduplicated list a
 * retriever returned and the (non-empty) gold set; `k` cuts the ranking.
 */

export const K_VALUES = [1, 3, 5, 10, 20, 50] as const;
export type KValue = (typeof K_VALUES)[number];
/** MRR counts the first gold hit within this many results. */
export const MRR_DEPTH = 50;

function hits(ranked: readonly string[], gold: ReadonlySet<string>, k: number): number {
  let n = 0;
  const seen = new Set<string>();
  for (const id of ranked.slice(0, k)) {
    if (gold.has(id) && !seen.has(id)) {
      seen.add(id);
      n++;
    }
  }
  return n;
}

/** 1 when at least one gold id is in the top k. */
export function recallAny(ranked: readonly string[], gold: readonly string[], k: number): number {
  return hits(ranked, new Set(gold), k) > 0 ? 1 : 0;
}

/** 1 when every gold id is in the top k (the strict multi-hop metric). */
export function recallAll(ranked: readonly string[], gold: readonly string[], k: number): number {
  const g = new Set(gold);
  return g.size > 0 && hits(ranked, g, k) === g.size ? 1 : 0;
}

/** Fraction of gold ids in the top k (LoCoMo's `recall_acc`). */
export function fracRecall(ranked: readonly string[], gold: readonly string[], k: number): number {
  const g = new Set(gold);
  return g.size === 0 ? 0 : hits(ranked, g, k) / g.size;
}

/** 1 / rank of the first gold hit within `depth`, else 0. */
export function reciprocalRank(
  ranked: readonly string[],
  gold: readonly string[],
  depth = MRR_DEPTH,
): number {
  const g = new Set(gold);
  const limit = Math.min(depth, ranked.length);
  for (let i = 0; i < limit; i++) if (g.has(ranked[i]!)) return 1 / (i + 1);
  return 0;
}

/** Map dialog ids `D<s>:<t>` to session ids `S<s>`, keeping first-seen order (session-level metric). */
export function toSessions(ids: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    const m = /^D(\d+):/.exec(id);
    const s = m ? `S${m[1]}` : id;
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  }
  return out;
}

/** Token budgets of returned text (⌈chars / 4⌉ per item), benchmarks.md §5.1 step 4. */
export const TOKEN_BUDGETS = [500, 1000, 2000, 4000] as const;
export type TokenBudget = (typeof TOKEN_BUDGETS)[number];

/** The ranked ids whose returned text fits in `budget` tokens (walks the ranking, stops at the first overflow). */
export function withinTokenBudget(
  ranked: readonly string[],
  textOf: (id: string) => string,
  budget: number,
): string[] {
  const out: string[] = [];
  let used = 0;
  for (const id of ranked) {
    const cost = Math.ceil(textOf(id).length / 4);
    if (used + cost > budget) break;
    used += cost;
    out.push(id);
  }
  return out;
}

/** Everything computed for one scored question. */
export interface QuestionScore {
  category: number;
  recallAny: Record<KValue, number>;
  recallAll: Record<KValue, number>;
  fracRecall: Record<KValue, number>;
  mrr: number;
  sessionRecallAny: Record<KValue, number>;
  sessionRecallAll: Record<KValue, number>;
  /** recall_any / recall_all of the items that fit in each token budget (absent without turn texts). */
  budgetAny?: Record<TokenBudget, number>;
  budgetAll?: Record<TokenBudget, number>;
}

function perBudget(fn: (b: number) => number): Record<TokenBudget, number> {
  const out = {} as Record<TokenBudget, number>;
  for (const b of TOKEN_BUDGETS) out[b] = fn(b);
  return out;
}

function perK(fn: (k: number) => number): Record<KValue, number> {
  const out = {} as Record<KValue, number>;
  for (const k of K_VALUES) out[k] = fn(k);
  return out;
}

export function scoreQuestion(
  category: number,
  ranked: readonly string[],
  gold: readonly string[],
  textOf?: (id: string) => string,
): QuestionScore {
  const rs = toSessions(ranked);
  const gs = toSessions(gold);
  let budgetFields: Pick<QuestionScore, 'budgetAny' | 'budgetAll'> = {};
  if (textOf) {
    const fits = new Map(TOKEN_BUDGETS.map((b) => [b, withinTokenBudget(ranked, textOf, b)]));
    budgetFields = {
      budgetAny: perBudget((b) => recallAny(fits.get(b as TokenBudget)!, gold, Number.MAX_SAFE_INTEGER)),
      budgetAll: perBudget((b) => recallAll(fits.get(b as TokenBudget)!, gold, Number.MAX_SAFE_INTEGER)),
    };
  }
  return {
    ...budgetFields,
    category,
    recallAny: perK((k) => recallAny(ranked, gold, k)),
    recallAll: perK((k) => recallAll(ranked, gold, k)),
    fracRecall: perK((k) => fracRecall(ranked, gold, k)),
    mrr: reciprocalRank(ranked, gold),
    sessionRecallAny: perK((k) => recallAny(rs, gs, k)),
    sessionRecallAll: perK((k) => recallAll(rs, gs, k)),
  };
}

/** Mean metrics over a group of questions. */
export interface GroupMetrics {
  n: number;
  mrr: number;
  recallAny: Record<KValue, number>;
  recallAll: Record<KValue, number>;
  fracRecall: Record<KValue, number>;
  sessionRecallAny: Record<KValue, number>;
  sessionRecallAll: Record<KValue, number>;
  /** Means over the questions that carry budget scores (NaN when none do). */
  budgetAny: Record<TokenBudget, number>;
  budgetAll: Record<TokenBudget, number>;
}

export function aggregate(scores: readonly QuestionScore[]): GroupMetrics {
  const n = scores.length;
  const mean = (pick: (s: QuestionScore) => number) =>
    n === 0 ? Number.NaN : scores.reduce((acc, s) => acc + pick(s), 0) / n;
  return {
    n,
    mrr: mean((s) => s.mrr),
    recallAny: perK((k) => mean((s) => s.recallAny[k as KValue])),
    recallAll: perK((k) => mean((s) => s.recallAll[k as KValue])),
    fracRecall: perK((k) => mean((s) => s.fracRecall[k as KValue])),
    sessionRecallAny: perK((k) => mean((s) => s.sessionRecallAny[k as KValue])),
    sessionRecallAll: perK((k) => mean((s) => s.sessionRecallAll[k as KValue])),
    budgetAny: perBudget((b) => meanOf(scores, (s) => s.budgetAny?.[b as TokenBudget])),
    budgetAll: perBudget((b) => meanOf(scores, (s) => s.budgetAll?.[b as TokenBudget])),
  };
}

function meanOf(scores: readonly QuestionScore[], pick: (s: QuestionScore) => number | undefined): number {
  let sum = 0;
  let n = 0;
  for (const s of scores) {
    const v = pick(s);
    if (v === undefined) continue;
    sum += v;
    n++;
  }
  return n === 0 ? Number.NaN : sum / n;
}

/** Report groups: the headline pool of categories 1–4, each category, and adversarial cat 5 on its own. */
export const GROUPS = ['cat1-4', 'cat1', 'cat2', 'cat3', 'cat4', 'cat5'] as const;
export type GroupName = (typeof GROUPS)[number];

export function groupByCategory(scores: readonly QuestionScore[]): Record<GroupName, GroupMetrics> {
  const inCats = (cats: number[]) => scores.filter((s) => cats.includes(s.category));
  return {
    'cat1-4': aggregate(inCats([1, 2, 3, 4])),
    cat1: aggregate(inCats([1])),
    cat2: aggregate(inCats([2])),
    cat3: aggregate(inCats([3])),
    cat4: aggregate(inCats([4])),
    cat5: aggregate(inCats([5])),
  };
}
