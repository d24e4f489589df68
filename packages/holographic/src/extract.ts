/**
 * `onSessionEnd` auto-extraction (reference `_auto_extract_facts`): preference and decision patterns
 * in user messages, compaction summaries skipped, merged-into-tail messages reduced to their user part.
 */
import type { ChatMessage } from '@hermes-memory/core';

const MERGED_PRIOR_CONTEXT_HEADER = '[PRIOR CONTEXT — for reference only; not a new message]';
const MERGED_SUMMARY_DELIMITER = '[END OF PRIOR CONTEXT — COMPACTION SUMMARY BELOW]';
const SUMMARY_END_MARKER =
  '--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---';
const SUMMARY_HEADS = [
  '[CONTEXT COMPACTION',
  '[CONTEXT SUMMARY]:',
  '[Prior context followed by a compression summary]',
];

const PREF_PATTERNS = [
  /\bI\s+(?:prefer|like|love|use|want|need)\s+(.+)/i,
  /\bmy\s+(?:favorite|preferred|default)\s+\w+\s+is\s+(.+)/i,
  /\bI\s+(?:always|never|usually)\s+(.+)/i,
];
const DECISION_PATTERNS = [
  /\bwe\s+(?:decided|agreed|chose)\s+(?:to\s+)?(.+)/i,
  /\bthe\s+project\s+(?:uses|needs|requires)\s+(.+)/i,
];

export interface ExtractedFact {
  content: string;
  category: 'user_pref' | 'project';
}

function textOf(message: ChatMessage): string | null {
  const content = (message as { content?: unknown }).content;
  return typeof content === 'string' ? content : null;
}

export function isCompactionSummary(content: string): boolean {
  const head = content.trimStart();
  return SUMMARY_HEADS.some((h) => head.startsWith(h)) || content.trimEnd().endsWith(SUMMARY_END_MARKER);
}

/** The genuine user text before a merged summary, or null when the message has no merged summary. */
function preDelimiterSegment(content: string): string | null {
  const at = content.indexOf(MERGED_SUMMARY_DELIMITER);
  if (at < 0) return null;
  let pre = content.slice(0, at);
  if (pre.startsWith(MERGED_PRIOR_CONTEXT_HEADER)) pre = pre.slice(MERGED_PRIOR_CONTEXT_HEADER.length);
  pre = pre.trim();
  return pre || '';
}

/** At most one fact per pattern group per message; the first 400 characters are stored. */
export function extractFacts(messages: readonly ChatMessage[]): ExtractedFact[] {
  const out: ExtractedFact[] = [];
  for (const message of messages) {
    if ((message as { role?: unknown }).role !== 'user') continue;
    const raw = textOf(message);
    if (raw === null) continue;
    const pre = preDelimiterSegment(raw);
    let content: string;
    if (pre !== null) content = pre;
    else if (isCompactionSummary(raw)) continue;
    else content = raw;
    if (content.length < 10) continue;
    const stored = content.slice(0, 400);
    if (PREF_PATTERNS.some((p) => p.test(content))) out.push({ content: stored, category: 'user_pref' });
    if (DECISION_PATTERNS.some((p) => p.test(content))) out.push({ content: stored, category: 'project' });
  }
  return out;
}
