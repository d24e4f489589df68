import type { LocomoTurn } from '../locomo/types';

/**
 * Default attribution of injected text: each line that contains a stored item's text is one
 * record, carrying every item with the longest text it contains (identical texts are one memory).
 * Lines that contain no stored text (headers, fences) are not records, but their characters count.
 */
export function lineAttribution(turns: readonly LocomoTurn[]): (injected: string) => string[][] {
  const byText = new Map<string, string[]>();
  for (const t of turns) {
    const text = t.text.trim();
    if (!text) continue;
    const ids = byText.get(text);
    if (ids) ids.push(t.diaId);
    else byText.set(text, [t.diaId]);
  }
  // Longest first, so a line holding "Thanks!" inside a longer stored turn is that turn.
  const texts = [...byText.keys()].sort((a, b) => b.length - a.length);
  return (injected) => {
    const records: string[][] = [];
    for (const line of injected.split('\n')) {
      if (!line.trim()) continue;
      const hit = texts.find((text) => line.includes(text));
      if (hit) records.push(byText.get(hit)!);
    }
    return records;
  };
}
