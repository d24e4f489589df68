import type { StoredEntry } from './template-store';

export interface SearchHit {
  entry: StoredEntry;
  score: number;
}

const STOPWORDS = new Set(
  'a an and are as at be but by did do does for from had has have how i in is it its me my of on or our so that the their them then there these they this to was we were what when where which who why will with you your'.split(
    ' ',
  ),
);

/** Lower-cased words (letters and digits in any script), stopwords removed. */
export function keywords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
}

/**
 * Keyword scoring in the spirit of BM25, small enough to read in one go: every query word found in
 * an entry adds its inverse document frequency (rare words count more), scaled by a saturating term
 * frequency. Entries matching no query word are not returned. Ties go to the newer entry.
 */
export function searchEntries(entries: readonly StoredEntry[], query: string, limit: number): SearchHit[] {
  const terms = [...new Set(keywords(query))];
  if (terms.length === 0 || entries.length === 0) return [];
  const documents = entries.map((entry) => ({ entry, words: keywords(entry.text) }));
  const documentFrequency = new Map<string, number>();
  for (const term of terms) {
    documentFrequency.set(term, documents.filter((d) => d.words.includes(term)).length);
  }
  const hits: SearchHit[] = [];
  for (const { entry, words } of documents) {
    let score = 0;
    for (const term of terms) {
      const tf = words.filter((w) => w === term).length;
      if (tf === 0) continue;
      const df = documentFrequency.get(term) ?? 1;
      const idf = Math.log(1 + (documents.length - df + 0.5) / (df + 0.5));
      score += idf * ((tf * 2.2) / (tf + 1.2));
    }
    if (score > 0) hits.push({ entry, score });
  }
  hits.sort((a, b) => b.score - a.score || b.entry.createdAt - a.entry.createdAt);
  return hits.slice(0, limit);
}
