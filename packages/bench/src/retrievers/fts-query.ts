/**
 * Query building for the plain BM25 baseline (benchmarks.md §5.3): lower-case `[a-z0-9]+` tokens, a
 * small stopword list removed, each term double-quoted (so FTS5 operators and `"*:-` can never leak
 * into MATCH) and OR-joined (FTS5's default is AND, which collapses recall).
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but if of to in on at by for with from as is are was were be been being do does did ' +
    'have has had i you he she it we they me him her us them my your his its our their this that these ' +
    'those what which who whom whose when where why how not no so than too very can will would should ' +
    'could may might must shall about into over after before up down out off again then once there here ' +
    'all any both each few more most other some such only own same just s t'
  ).split(/\s+/),
);

export function queryTerms(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[a-z0-9]+/g)) {
    const term = m[0];
    if (STOPWORDS.has(term) || seen.has(term)) continue;
    seen.add(term);
    out.push(term);
  }
  return out;
}

/** An FTS5 MATCH expression, or null when the text has no searchable term. */
export function ftsOrQuery(text: string): string | null {
  const terms = queryTerms(text);
  return terms.length === 0 ? null : terms.map((t) => `"${t}"`).join(' OR ');
}
