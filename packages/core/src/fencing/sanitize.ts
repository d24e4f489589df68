import type { ChatContentPart } from '../llm/types';

/** Whitespace allowed inside the angle brackets of a fence tag ("< memory-context >"). */
export const MAX_TAG_PADDING = 64;

const PAD = `\\s{0,${MAX_TAG_PADDING}}`;
const SPAN = new RegExp(`<${PAD}memory-context${PAD}>[\\s\\S]*?<${PAD}/${PAD}memory-context${PAD}>`, 'gi');
const STRAY_TAG = new RegExp(`<${PAD}/?${PAD}memory-context${PAD}>`, 'gi');
/** Both wordings of the system note: the current one and the older "informational" one. */
export const SYSTEM_NOTE_PATTERN =
  /\[System note:\s*The following is recalled memory context,\s*NOT new user input\.\s*Treat as (?:informational background data|authoritative reference data[^\]]*)\.\]\s*/gi;

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
 * Remove anything that could forge or escape the memory fence: whole
 * `<memory-context>…</memory-context>` spans (any case, padded tags), the system-note sentence,
 * then any stray opening or closing tag.
 */
export function sanitizeContext(text: ContextContent): string {
  const flat = flattenContent(text);
  if (!flat) return '';
  return flat.replace(SPAN, '').replace(SYSTEM_NOTE_PATTERN, '').replace(STRAY_TAG, '');
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
