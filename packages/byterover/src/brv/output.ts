import { type CommandResult, parseNdjson } from '@hermes-memory/core';

/** One line of `brv … --format json`: `{command, data: {event?, …}, success, timestamp}`. */
export interface BrvEvent {
  command: string;
  data: Record<string, unknown>;
  success: boolean;
  timestamp?: string;
}

/** Why a command did not succeed. */
export type BrvFailureKind =
  /** brv is not installed (or vanished). */
  | 'not-found'
  /** Killed at its timeout (the whole process group). */
  | 'timeout'
  /** The caller's signal aborted it (the manager's budget). */
  | 'aborted'
  /** brv said so: a line with `"success": false` (it still exits 0). */
  | 'reported'
  /** A non-zero exit without such a line (bad flags, a crash). */
  | 'exit'
  /** Exit 0 but no JSON line at all. */
  | 'malformed'
  /** A streaming command (query, curate) ended before its `completed` event. */
  | 'incomplete'
  /** The process could not be started for another reason. */
  | 'failed';

export type BrvOutcome =
  | {
      ok: true;
      events: BrvEvent[];
      /** The `data` of the last event (`completed` for query and curate). */
      data: Record<string, unknown>;
      durationMs: number;
    }
  | { ok: false; kind: BrvFailureKind; error: string; events: BrvEvent[]; durationMs: number };

/** Commands that stream `thinking` … `completed`; the others print one line. */
const STREAMING = new Set(['query', 'curate']);
/** The longest error text kept from brv's output. */
const MAX_ERROR_CHARS = 1000;

/**
 * Read a finished brv run. The exit code does not decide success: brv exits 0 after printing
 * `{"success": false, "data": {"error": …}}`, so a failure line wins over a clean exit, and a
 * streaming command must have reached its `completed` event.
 */
export function interpretBrvOutput(command: string, result: CommandResult, timeoutMs: number): BrvOutcome {
  const durationMs = result.durationMs;
  const parsed = parseNdjson(result.stdout);
  const events = parsed.records.filter(isBrvEvent);
  const fail = (kind: BrvFailureKind, error: string): BrvOutcome => ({
    ok: false,
    kind,
    error: clip(error),
    events,
    durationMs,
  });
  if (result.timedOut) return fail('timeout', `brv timed out after ${seconds(timeoutMs)}s`);
  if (result.aborted) return fail('aborted', 'brv was stopped: the call ran out of time');
  if (result.errorCode && result.exitCode === null)
    return fail('failed', result.error ?? `brv could not be started (${result.errorCode})`);

  const failure = events.find((e) => !e.success);
  if (failure) return fail('reported', eventError(failure) ?? `brv ${command} failed`);
  if (result.exitCode !== 0) {
    const how =
      result.exitCode === null
        ? `was killed (${result.exitSignal ?? 'signal'})`
        : `exited ${result.exitCode}`;
    return fail('exit', result.stderr.trim() || result.stdout.trim() || `brv ${how}`);
  }
  const last = events.at(-1);
  if (!last) {
    const sample = parsed.firstInvalid ?? result.stderr.trim();
    return fail(
      'malformed',
      sample ? `brv answered without JSON output: ${sample}` : 'brv answered with no output',
    );
  }
  if (STREAMING.has(command) && !events.some(isCompleted))
    return fail('incomplete', `brv ${command} ended before it completed`);
  const final = events.findLast(isCompleted) ?? last;
  return { ok: true, events, data: final.data, durationMs };
}

function isBrvEvent(value: unknown): value is BrvEvent {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.success === 'boolean' && typeof v.data === 'object' && v.data !== null;
}

function isCompleted(event: BrvEvent): boolean {
  return (
    event.data.event === 'completed' || (event.data.event === undefined && event.data.status === 'completed')
  );
}

function eventError(event: BrvEvent): string | undefined {
  for (const key of ['error', 'message'] as const) {
    const value = event.data[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { message?: unknown }).message === 'string'
    )
      return (value as { message: string }).message;
  }
  return undefined;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(2).replace(/0+$/, '');
}

function clip(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

// ── Readers for each command's final data ──────────────────────────────────────────────────────

export interface BrvMatchedDoc {
  path: string;
  title?: string;
  score?: number;
}

export interface BrvAnswer {
  /** The synthesized answer ('' when there is none). */
  text: string;
  /**
   * The context-tree documents it was drawn from: empty when nothing in the tree matched,
   * undefined when brv did not say.
   */
  matchedDocs?: BrvMatchedDoc[];
  /** Which of brv's tiers answered (0: its cache, which reports no matched documents). */
  tier?: number;
  /** The best document score of a fresh answer; absent in cached ones. */
  topScore?: number;
}

/** `brv query`: the `completed` event's `result`, else the last `response` content. */
export function readAnswer(events: readonly BrvEvent[], data: Record<string, unknown>): BrvAnswer {
  let text = typeof data.result === 'string' ? data.result : '';
  if (text.trim() === '') {
    const response = events.findLast(
      (e) => e.data.event === 'response' && typeof e.data.content === 'string',
    );
    text = response ? String(response.data.content) : '';
  }
  const extra = {
    ...(typeof data.tier === 'number' ? { tier: data.tier } : {}),
    ...(typeof data.topScore === 'number' ? { topScore: data.topScore } : {}),
  };
  if (!Array.isArray(data.matchedDocs)) return { text: text.trim(), ...extra };
  const matchedDocs: BrvMatchedDoc[] = [];
  for (const doc of data.matchedDocs) {
    if (typeof doc !== 'object' || doc === null) continue;
    const d = doc as Record<string, unknown>;
    if (typeof d.path !== 'string') continue;
    matchedDocs.push({
      path: d.path,
      ...(typeof d.title === 'string' ? { title: d.title } : {}),
      ...(typeof d.score === 'number' ? { score: d.score } : {}),
    });
  }
  return { text: text.trim(), matchedDocs, ...extra };
}

/** The footer brv puts under every answer; not worth a place in the prompt. */
const SOURCE_FOOTER = /\n+---\nSource: ByteRover Knowledge Base\s*$/;
/** How brv words "nothing in the tree matched": its template answer, and its agent's grounding rule. */
const NOT_COVERED = [
  /^\W*Summary\W*:?\W*No matching knowledge found/i,
  /\bnot covered in the (?:knowledge base|context tree)\b/i,
];

/** The answer without brv's source footer. */
export function answerText(answer: BrvAnswer): string {
  return answer.text.replace(SOURCE_FOOTER, '').trim();
}

/**
 * Whether brv found something in the tree for this answer. A fresh answer says so (matched
 * documents, a top score above 0); a cached one (tier 0) lists no documents whatever it found,
 * so its wording decides: brv's "no matching knowledge" template or its agent's "not covered".
 */
export function answerMatched(answer: BrvAnswer): boolean {
  if (answer.matchedDocs && answer.matchedDocs.length > 0) return true;
  if (answer.topScore !== undefined && answer.topScore <= 0 && answer.matchedDocs !== undefined) return false;
  const text = answerText(answer);
  return !NOT_COVERED.some((pattern) => pattern.test(text));
}

export interface BrvSearchHit {
  path: string;
  title: string;
  score: number | null;
  excerpt: string;
}

/** `brv search`: `{results: [{path, title, score, excerpt, …}], totalFound}`. */
export function readSearch(data: Record<string, unknown>): { hits: BrvSearchHit[]; totalFound: number } {
  const results = Array.isArray(data.results) ? data.results : [];
  const hits: BrvSearchHit[] = [];
  for (const r of results) {
    if (typeof r !== 'object' || r === null) continue;
    const x = r as Record<string, unknown>;
    if (typeof x.path !== 'string') continue;
    hits.push({
      path: x.path,
      title: typeof x.title === 'string' ? x.title : x.path,
      score: typeof x.score === 'number' ? x.score : null,
      excerpt: typeof x.excerpt === 'string' ? x.excerpt : '',
    });
  }
  const totalFound = typeof data.totalFound === 'number' ? data.totalFound : hits.length;
  return { hits, totalFound };
}
