/**
 * Segmentation: a document's text → passages. Transcripts ("Name: text" lines) become one segment
 * per turn with its speaker; Markdown and plain text become paragraphs under their heading,
 * long paragraphs split at sentence boundaries.
 */
import type { SegmentInput } from '../documents';

/** Longest segment kept whole. */
export const MAX_SEGMENT_CHARS = 1_000;

const SPEAKER_LINE = /^([\p{Lu}][\p{L}\p{N} .'’-]{0,39}):\s+(\S.*)$/u;
const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

export type DocumentFormat = 'transcript' | 'markdown' | 'text';

/** A transcript when most non-empty lines start with a speaker label. */
export function detectFormat(text: string, fileName = ''): DocumentFormat {
  const lines = text.split(/\r?\n/).filter((l) => l.trim());
  if (lines.length >= 2 && lines.filter((l) => SPEAKER_LINE.test(l.trim())).length / lines.length >= 0.6)
    return 'transcript';
  if (/\.(md|markdown|mdx)$/i.test(fileName) || lines.some((l) => HEADING.test(l))) return 'markdown';
  return 'text';
}

/** Split a long passage at sentence ends into pieces of at most `max` characters. */
export function splitLong(text: string, max = MAX_SEGMENT_CHARS): string[] {
  if (text.length <= max) return [text];
  const sentences = text.split(/(?<=[.!?])\s+/);
  const out: string[] = [];
  let current = '';
  for (const s of sentences) {
    if (current && current.length + 1 + s.length > max) {
      out.push(current);
      current = '';
    }
    if (s.length > max) {
      for (let i = 0; i < s.length; i += max) out.push(s.slice(i, i + max));
      continue;
    }
    current = current ? `${current} ${s}` : s;
  }
  if (current) out.push(current);
  return out;
}

function transcriptSegments(lines: readonly string[]): SegmentInput[] {
  const out: SegmentInput[] = [];
  let current: { speaker: string; text: string; start: number; end: number } | null = null;
  const flush = () => {
    if (!current) return;
    for (const piece of splitLong(current.text.trim()))
      out.push({
        ordinal: out.length,
        heading: null,
        speaker: current.speaker,
        text: piece,
        startLine: current.start,
        endLine: current.end,
      });
    current = null;
  };
  lines.forEach((raw, i) => {
    const line = raw.trim();
    const m = SPEAKER_LINE.exec(line);
    if (m) {
      flush();
      current = { speaker: m[1]!.trim(), text: m[2]!, start: i + 1, end: i + 1 };
    } else if (line && current) {
      current.text += `\n${line}`;
      current.end = i + 1;
    } else if (line) {
      flush();
      out.push({
        ordinal: out.length,
        heading: null,
        speaker: null,
        text: line,
        startLine: i + 1,
        endLine: i + 1,
      });
    }
  });
  flush();
  return out;
}

function proseSegments(lines: readonly string[]): SegmentInput[] {
  const out: SegmentInput[] = [];
  const headings: string[] = [];
  let para: string[] = [];
  let start = 0;
  let inFence = false;
  const flush = (end: number) => {
    const text = para.join('\n').trim();
    para = [];
    if (!text) return;
    for (const piece of splitLong(text))
      out.push({
        ordinal: out.length,
        heading: headings.filter(Boolean).join(' › ') || null,
        speaker: null,
        text: piece,
        startLine: start,
        endLine: end,
      });
  };
  lines.forEach((raw, i) => {
    if (/^\s*(```|~~~)/.test(raw)) inFence = !inFence;
    const h = inFence ? null : HEADING.exec(raw.trim());
    if (h) {
      flush(i);
      const level = h[1]!.length;
      headings.length = Math.min(headings.length, level - 1);
      headings[level - 1] = h[2]!;
      return;
    }
    if (!inFence && raw.trim() === '') {
      flush(i);
      return;
    }
    if (para.length === 0) start = i + 1;
    para.push(raw);
  });
  flush(lines.length);
  return out;
}

export function segmentText(text: string, format: DocumentFormat): SegmentInput[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  return format === 'transcript' ? transcriptSegments(lines) : proseSegments(lines);
}
