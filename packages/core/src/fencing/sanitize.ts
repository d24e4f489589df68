import type { ChatContentPart } from '../llm/types';
import { mayHoldMarkup, neutralizeMemoryText } from './neutralize';

/** Whitespace allowed inside the angle brackets of a fence tag ("< memory-context >"). */
export const MAX_TAG_PADDING = 64;
const PAD = `\\s{0,${MAX_TAG_PADDING}}`;
/** An exact fence tag (the reference's grammar); `closing` is captured as group 1. */
const TAG = new RegExp(`<${PAD}(/?)${PAD}memory-context${PAD}>`, 'gi');

/** Both wordings of the system note: the current one and the older "informational" one. */
export const SYSTEM_NOTE_PATTERN =
  /\[System note:\s{0,64}The following is recalled memory context,\s{0,64}NOT new user input\.\s{0,64}Treat as (?:informational background data|authoritative reference data[^\]]{0,400})\.\]\s{0,64}/gi;

export type ContextContent = string | readonly ChatContentPart[] | null | undefined;

/**
 * Multimodal message content → plain text: text parts joined with newlines, images replaced by a
 * "[1 image]" / "[N images]" marker so recall never sees (or stores) binary payloads.
 */
export function flattenContent(content: ContextContent): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  let images = 0;
  for (const part of content) {
    if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
    else if (part.type === 'image_url' || part.type === 'image' || part.type === 'input_image') images++;
  }
  if (images > 0) texts.push(images === 1 ? '[1 image]' : `[${images} images]`);
  return texts.join('\n');
}

/**
 * Whole `<memory-context>…</memory-context>` spans removed (non-greedy: an opener ends at the
 * first closer after it), in one linear pass over the tags.
 */
function removeSpans(text: string): string {
  let out = '';
  let pos = 0;
  let openAt = -1;
  for (const m of text.matchAll(TAG)) {
    const at = m.index ?? 0;
    if (m[1] === '') {
      if (openAt < 0) openAt = at;
    } else if (openAt >= 0) {
      out += text.slice(pos, openAt);
      pos = at + m[0].length;
      openAt = -1;
    }
  }
  return pos === 0 ? text : out + text.slice(pos);
}

/**
 * Provider text made safe to fence, in the reference's order: whole
 * `<memory-context>…</memory-context>` spans (any case, padded tags) and the system-note sentence
 * are removed, then whatever still reads as a fence tag or a system note — stray tags, look-alikes,
 * and anything the removals joined together — is escaped (`neutralizeMemoryText`), never deleted,
 * so no fragment can re-assemble into a tag.
 */
export function sanitizeContext(text: ContextContent): string {
  const flat = flattenContent(text);
  if (!flat) return '';
  return neutralizeMemoryText(removeSpans(flat).replace(SYSTEM_NOTE_PATTERN, ''));
}

/**
 * Text bound for a store (a transcript turn, an extracted fact) with every recall block a host left
 * in it removed (the API copy of a user message carries one) and the rest neutralised, trailing
 * whitespace trimmed when something was removed. Unchanged text is returned as the same string.
 */
export function stripRecallBlocks(text: string): string {
  if (!text || !mayHoldMarkup(text)) return text;
  const clean = sanitizeContext(text);
  return clean === text ? text : clean.trimEnd();
}

const BULLET = /^[-*+]\s+\S/;

/**
 * Drop a self-contained markdown bullet that repeats an earlier bullet of the same section (two
 * providers often recall the same fact). A column-0 non-bullet line starts a new section; a bullet
 * followed by indented continuation lines is never dropped and never used to drop another.
 */
export function dedupeRepeatedBullets(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') {
      out.push(line);
      continue;
    }
    if (!BULLET.test(line)) {
      if (!/^\s/.test(line)) seen = new Set<string>();
      out.push(line);
      continue;
    }
    const next = lines[i + 1];
    const hasContinuation = next !== undefined && /^\s+\S/.test(next);
    const key = line.trimEnd();
    if (!hasContinuation) {
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(line);
  }
  return out.join('\n');
}
