/** Near-duplicate helpers shared by consolidation (dream) and corpus review. */
import type { ContextRecord, RecordSource } from '../records';
import { textSimilarity } from '../retrieval/query';

/** Word-overlap similarity of two records' title and summary. */
export function similarityOf(
  a: Pick<ContextRecord, 'title' | 'summary'>,
  b: Pick<ContextRecord, 'title' | 'summary'>,
): number {
  return textSimilarity(`${a.title} ${a.summary}`, `${b.title} ${b.summary}`);
}

/** The union of several records' sources, without repeats. */
export function mergeSources(records: readonly Pick<ContextRecord, 'sources'>[]): RecordSource[] {
  const out: RecordSource[] = [];
  const seen = new Set<string>();
  for (const r of records)
    for (const s of r.sources) {
      const key = `${s.type}|${s.ref}|${s.segmentId ?? ''}|${s.excerpt ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(s);
    }
  return out;
}
