import { neutralizeMemoryText } from '@hermes-memory/core';
import type { JsonObject } from './client';

/** Items per overlay section and characters per item (the reference's limits). */
export const OVERLAY_ITEMS = 5;
export const OVERLAY_ITEM_CHARS = 320;

/** Whitespace folded, cut to 320 characters. */
export function compact(text: unknown): string {
  return String(text ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, OVERLAY_ITEM_CHARS);
}

/** The dedup key: lowercase, only a–z, 0–9 and spaces. */
function norm(text: string): string {
  return compact(text)
    .toLowerCase()
    .replace(/[^a-z0-9 ]/g, '');
}

/**
 * The `[RetainDB Context]` overlay: at most 5 profile `memories` and 5 query `results`, each
 * compacted, deduplicated across both sections and against `localEntries`; "" when both are
 * empty. Every item is neutralised: stored text never reads as fence markup in the prompt.
 */
export function buildOverlay(
  profile: unknown,
  queryResult: unknown,
  localEntries: readonly string[] = [],
): string {
  const seen = new Set(localEntries.map(norm).filter((k) => k !== ''));
  const dedupe = (items: unknown): string[] => {
    const out: string[] = [];
    for (const item of (Array.isArray(items) ? items : []).slice(0, OVERLAY_ITEMS)) {
      const content = compact(isObject(item) ? item.content : '');
      const key = norm(content);
      if (content === '' || seen.has(key)) continue;
      seen.add(key);
      out.push(neutralizeMemoryText(content));
    }
    return out;
  };
  const profileItems = dedupe(isObject(profile) ? profile.memories : undefined);
  const queryItems = dedupe(isObject(queryResult) ? queryResult.results : undefined);
  if (profileItems.length === 0 && queryItems.length === 0) return '';
  const lines = (items: string[]) => (items.length > 0 ? items.map((i) => `- ${i}`) : ['- None']);
  return [
    '[RetainDB Context]',
    'Profile:',
    ...lines(profileItems),
    'Relevant memories:',
    ...lines(queryItems),
  ].join('\n');
}

/** How hard the dialectic endpoint should think: low under 120 characters, medium under 400. */
export function reasoningLevel(query: string): 'low' | 'medium' | 'high' {
  return query.length < 120 ? 'low' : query.length < 400 ? 'medium' : 'high';
}

/** The agent self-model, only when it is built on at least one memory. */
export function selfModelBlock(model: unknown): string {
  if (!isObject(model) || !(Number(model.memory_count) > 0)) return '';
  const lines: string[] = [];
  if (typeof model.persona === 'string' && model.persona.trim() !== '')
    lines.push(`Persona: ${model.persona.trim()}`);
  const instructions = Array.isArray(model.persistent_instructions)
    ? model.persistent_instructions.filter((i): i is string => typeof i === 'string' && i.trim() !== '')
    : [];
  if (instructions.length > 0)
    lines.push(`Instructions:\n${instructions.map((i) => `- ${i.trim()}`).join('\n')}`);
  if (typeof model.working_style === 'string' && model.working_style.trim() !== '') {
    lines.push(`Working style: ${model.working_style.trim()}`);
  }
  return lines.length > 0 ? neutralizeMemoryText(`[RetainDB Agent Self-Model]\n${lines.join('\n')}`) : '';
}

/** The dialectic answer as its block, or "". */
export function synthesisBlock(answer: unknown): string {
  const text = typeof answer === 'string' ? answer.trim() : '';
  return text === '' ? '' : `[RetainDB User Synthesis]\n${neutralizeMemoryText(text)}`;
}

/** The three parts joined by blank lines, empty ones left out. */
export function joinParts(parts: readonly string[]): string {
  return parts.filter((p) => p !== '').join('\n\n');
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
