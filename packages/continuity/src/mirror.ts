/**
 * Write paths that turn free text into records: the builtin memory mirror (`onMemoryWrite` add,
 * replace, remove) and session-end marker extraction ("Remember:", "Lesson learned:",
 * "Decision:"). Both mask secrets instead of refusing — the text is already stored elsewhere —
 * and both run the write scanner through the store (decision 0903).
 */
import type { ChatMessage, MemoryTarget, MemoryWriteAction, MemoryWriteMetadata } from '@hermes-memory/core';
import { flattenContent } from '@hermes-memory/core';
import { type ContextRecord, type RecordKind, LIMITS, oneLine } from './records';
import { namedEntities, textSimilarity } from './retrieval/query';
import type { ContinuityStore } from './store';

/** A builtin entry shorter than this says too little to be a record on its own. */
const MIN_SIGNAL_CHARS = 12;
const MIN_SIGNAL_WORDS = 3;

/** Entries this similar to the one they replace are edited in place; less similar ones supersede it. */
export const UPDATE_SIMILARITY = 0.5;

const CUES: ReadonlyArray<[RegExp, RecordKind]> = [
  [/\b(decided|decision|we chose|going with|agreed to|settled on)\b/i, 'decision'],
  [/\b(lesson|learned|learnt|turns out|gotcha|pitfall|mistake|next time)\b/i, 'lesson_learned'],
  [/\b(currently|in progress|working on|next step|blocked on|todo|wip|sprint)\b/i, 'active_project_state'],
  [/\b(always|never|convention|style guide|must|naming|we use|prefer)\b/i, 'project_convention'],
];

const PREFERENCE =
  /\b(I|user|they|he|she)\s+(prefers?|likes?|loves?|hates?|dislikes?|wants?|uses?|always|never)\b/i;

/** A record kind for free text, from general cue words. */
export function classifyKind(text: string, target: MemoryTarget): RecordKind {
  if (target === 'user') return 'user_preference';
  for (const [re, kind] of CUES) if (re.test(text)) return kind;
  return 'environment_fact';
}

/** A short title: the first clause, cut at a word boundary. */
export function titleFrom(text: string, max = 80): string {
  const t = oneLine(text);
  const clause = t.split(/(?<=[.!?;])\s|\s[—–-]\s/)[0] ?? t;
  if (clause.length <= max) return clause.replace(/[.;]$/, '');
  const cut = clause.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function isHighSignal(text: string): boolean {
  return text.length >= MIN_SIGNAL_CHARS && text.split(/\s+/).filter(Boolean).length >= MIN_SIGNAL_WORDS;
}

export type MirrorOutcome =
  | { action: 'added' | 'updated' | 'superseded' | 'retracted'; recordId: string }
  | { action: 'skipped'; reason: string };

/** The active record mirroring a builtin entry, found by its exact text (never by search). */
function findMirrored(
  store: ContinuityStore,
  target: MemoryTarget,
  previous: string,
  oldText: string,
): ContextRecord | undefined {
  const candidates = store.findBySource('memory_write', target).filter((r) => r.status === 'active');
  const excerptOf = (r: ContextRecord) =>
    r.sources.filter((s) => s.type === 'memory_write').map((s) => s.excerpt ?? '');
  if (previous) {
    const exact = candidates.find(
      (r) => excerptOf(r).some((e) => e.trim() === previous) || r.summary === oneLine(previous),
    );
    if (exact) return exact;
  }
  if (oldText) {
    const containing = candidates.filter(
      (r) => r.summary.includes(oldText) || excerptOf(r).some((e) => e.includes(oldText)),
    );
    if (containing.length === 1) return containing[0];
  }
  return undefined;
}

function mirrorInput(text: string, target: MemoryTarget, metadata: MemoryWriteMetadata | undefined) {
  const summary = oneLine(text).slice(0, LIMITS.summary);
  return {
    kind: classifyKind(text, target),
    title: titleFrom(text),
    summary,
    entities: namedEntities(text)
      .slice(0, LIMITS.entities)
      .map((e) => e.replace(/^./, (c) => c.toUpperCase())),
    confidence: 0.8,
    importance: target === 'user' ? 0.7 : 0.6,
    trustLevel: 'high' as const,
    sources: [
      {
        type: 'memory_write' as const,
        ref: target,
        excerpt: text.slice(0, LIMITS.excerpt),
        ...(metadata?.sessionId ? { sessionId: metadata.sessionId } : {}),
      },
    ],
  };
}

/**
 * Mirror one committed builtin write. Add creates a record; replace edits the mirrored record in
 * place when the text is a small edit and otherwise supersedes it with a new one; remove retracts it.
 */
export function mirrorMemoryWrite(
  store: ContinuityStore,
  action: MemoryWriteAction,
  target: MemoryTarget,
  content: string,
  metadata?: MemoryWriteMetadata,
): MirrorOutcome {
  const text = typeof content === 'string' ? content.trim() : '';
  const previous = (metadata?.previousContent ?? '').trim();
  const oldText = (metadata?.oldText ?? '').trim();
  if (action === 'remove') {
    const old = findMirrored(store, target, previous || text, oldText);
    if (!old) return { action: 'skipped', reason: 'no mirrored record for the removed entry' };
    store.transition(old.id, 'retract', { reason: 'removed from builtin memory' });
    return { action: 'retracted', recordId: old.id };
  }
  if (!isHighSignal(text)) return { action: 'skipped', reason: 'too short to stand on its own' };
  const input = mirrorInput(text, target, metadata);
  if (action === 'add') {
    const { record } = store.add(input, { secrets: 'redact' });
    return { action: 'added', recordId: record.id };
  }
  const old = findMirrored(store, target, previous, oldText);
  if (!old) {
    const { record } = store.add(input, { secrets: 'redact' });
    return { action: 'added', recordId: record.id };
  }
  const oldExcerpt = old.sources.find((s) => s.type === 'memory_write')?.excerpt ?? old.summary;
  if (textSimilarity(oldExcerpt, text) >= UPDATE_SIMILARITY) {
    store.update(
      old.id,
      {
        kind: input.kind,
        title: input.title,
        summary: input.summary,
        entities: input.entities,
        addSources: input.sources,
      },
      { secrets: 'redact' },
    );
    return { action: 'updated', recordId: old.id };
  }
  const { record } = store.add(input, { secrets: 'redact' });
  if (record.id !== old.id)
    store.transition(old.id, 'supersede', { supersededBy: record.id, reason: 'replaced in builtin memory' });
  return { action: 'superseded', recordId: record.id };
}

// ── session-end markers ──────────────────────────────────────────────────────────────────────

const MARKERS: ReadonlyArray<[RegExp, RecordKind | null]> = [
  [/^(?:[-*>]\s*)?(?:please\s+)?remember(?:\s+that)?\s*:\s*(.+)$/i, null],
  [/^(?:[-*>]\s*)?lessons?\s+learn(?:ed|t)\s*:\s*(.+)$/i, 'lesson_learned'],
  [/^(?:[-*>]\s*)?decision\s*:\s*(.+)$/i, 'decision'],
];

export interface Marker {
  kind: RecordKind;
  text: string;
  role: 'user' | 'assistant';
}

/** "Remember: …", "Lesson learned: …" and "Decision: …" lines of user and assistant messages. */
export function extractMarkers(messages: readonly ChatMessage[]): Marker[] {
  const out: Marker[] = [];
  const seen = new Set<string>();
  for (const m of messages ?? []) {
    if (m?.role !== 'user' && m?.role !== 'assistant') continue;
    const body = flattenContent(m.content);
    for (const rawLine of body.split(/\r?\n/)) {
      const line = rawLine.trim();
      for (const [re, kind] of MARKERS) {
        const match = re.exec(line);
        if (!match) continue;
        const text = oneLine(match[1]!).slice(0, LIMITS.summary);
        if (!isHighSignal(text) || seen.has(text.toLowerCase())) break;
        seen.add(text.toLowerCase());
        const resolved =
          kind ??
          (m.role === 'user' && PREFERENCE.test(text) ? 'user_preference' : classifyKind(text, 'memory'));
        out.push({ kind: resolved, text, role: m.role });
        break;
      }
    }
  }
  return out;
}
