/**
 * The prefetch a store without a relevance bar amounts to: its top `k` search results, injected
 * every turn. Baselines (BM25, builtin session search, which has no prefetch of its own) are
 * measured this way, so the precision tables show what a fixed top-k fill costs.
 */
export const FILL_K = 5;

export function topKFill(
  search: (query: string, k: number) => Promise<string[]>,
  textOf: ReadonlyMap<string, string>,
  k = FILL_K,
): (query: string) => Promise<string> {
  return async (query) => {
    const lines = (await search(query, k)).map((id) => `- ${textOf.get(id) ?? ''}`);
    return lines.join('\n');
  };
}
