import { neutralizeMemoryText, scanWrite, stripRecallBlocks } from '@hermes-memory/core';

/** One memory as the tools and the prefetch block see it. */
export interface Mem0Hit {
  id: string;
  memory: string;
  score: number | null;
}

const SENTENCE_END = /[。！？.!?]/g;

/**
 * Cap a message at `maxChars` the way the reference does: cut after the last sentence end inside
 * the window when that end lies past a third of it (so a long first sentence is not thrown away),
 * otherwise cut hard at the limit.
 */
export function truncateAtSentence(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const window = text.slice(0, maxChars);
  let lastEnd = -1;
  for (const match of window.matchAll(SENTENCE_END)) lastEnd = match.index ?? lastEnd;
  if (lastEnd >= 0 && lastEnd + 1 > maxChars / 3) return window.slice(0, lastEnd + 1).trimEnd();
  return window;
}

/**
 * The recall block: "## Mem0 Memory" and one "- " line per memory; "" when nothing was found.
 * Fence markup is escaped (decision 0113): Mem0 holds text other clients wrote, unscanned.
 */
export function formatRecallBlock(hits: readonly Mem0Hit[]): string {
  const lines = hits.map((hit) => neutralizeMemoryText(hit.memory.trim())).filter((memory) => memory !== '');
  if (lines.length === 0) return '';
  return ['## Mem0 Memory', ...lines.map((memory) => `- ${memory}`)].join('\n');
}

/** `{results: […]}` or a bare list becomes the list; anything else (`{}`, null, a string) is []. */
export function unwrapResults(response: unknown): unknown[] {
  if (Array.isArray(response)) return response;
  if (typeof response === 'object' && response !== null) {
    const results = (response as { results?: unknown }).results;
    if (Array.isArray(results)) return results;
  }
  return [];
}

/** Memories from a search or list response, whatever its envelope; malformed items are dropped. */
export function toHits(response: unknown): Mem0Hit[] {
  const hits: Mem0Hit[] = [];
  for (const item of unwrapResults(response)) {
    if (typeof item !== 'object' || item === null) continue;
    const record = item as Record<string, unknown>;
    const memory =
      typeof record.memory === 'string' ? record.memory : typeof record.text === 'string' ? record.text : '';
    if (memory === '') continue;
    const id = typeof record.id === 'string' || typeof record.id === 'number' ? String(record.id) : '';
    const score = typeof record.score === 'number' && Number.isFinite(record.score) ? record.score : null;
    hits.push({ id, memory, score });
  }
  return hits;
}

/**
 * What every write to Mem0 passes (tools, turns, the builtin mirror, import): stored text comes
 * back into the prompt, so core's write scanner judges it and a blocked text is refused with the
 * scanner's message; what passes is stored with fence markup escaped. Recall blocks a host left
 * in its copy of the turn are not part of it.
 */
export type GuardedText = { ok: true; text: string } | { ok: false; error: string };

export function guardWrite(text: string): GuardedText {
  const scan = scanWrite(text);
  if (!scan.ok) return { ok: false, error: scan.message };
  return { ok: true, text: neutralizeMemoryText(text) };
}

/** A turn's message as it is sent for extraction: recall blocks stripped, then guarded. */
export function guardTurnText(text: string, maxChars: number): GuardedText {
  return guardWrite(truncateAtSentence(stripRecallBlocks(text), maxChars));
}
