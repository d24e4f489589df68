import {
  type LlmClient,
  type ToolSchema,
  describeError,
  integerArg,
  optionalString,
  parseToolArgs,
} from '@hermes-memory/core';
import { HIDDEN_SESSION_SOURCES, SESSION_SEARCH_TOOL_NAME, formatTimestamp } from './session-search';
import type { SessionStore } from './session-store';
import type { MessageRow } from './types';

/** The classic (baseline) design: top sessions summarised by the injected LlmClient. */
export const CLASSIC_SESSION_SEARCH_SCHEMA: ToolSchema = {
  name: SESSION_SEARCH_TOOL_NAME,
  description:
    'Search your long-term memory of past conversations and get a focused summary of each matching session. ' +
    'Use it proactively when the user says "we did this before", "last time", or "remember when". Without a query ' +
    'it lists recent sessions. FTS5 syntax: terms are ANDed; OR for broad recall, "quoted phrases", NOT to ' +
    'exclude, prefix* wildcards.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Keywords or FTS5 expression. Omit to list recent sessions.' },
      role_filter: {
        type: 'string',
        description: "Comma-separated roles to search (e.g. 'user,assistant').",
      },
      limit: { type: 'integer', description: 'Sessions to summarise (default 3, max 5).', default: 3 },
    },
    required: [],
  },
};

export const MAX_TRANSCRIPT_CHARS = 100_000;
const RAW_PREVIEW_PREFIX = '[Raw preview — summarization unavailable]';

const SUMMARY_SYSTEM_PROMPT =
  'You summarise a past conversation for an AI agent that is searching its history. Write in the past tense ' +
  'and be specific. Cover: what the user wanted; the actions taken and their outcomes; decisions and ' +
  'solutions reached; exact commands, file paths, URLs and names that matter; anything left unresolved. ' +
  'Focus on what relates to the search topic.';

/** "[USER]: ...", "[ASSISTANT]: [Called: a, b]", "[TOOL:name]: ..." blocks separated by blank lines. */
export function formatTranscript(messages: readonly MessageRow[]): string {
  const blocks: string[] = [];
  for (const m of messages) {
    const content = m.content ?? '';
    if (m.role === 'tool') {
      const body =
        content.length > 500
          ? `${content.slice(0, 250)}\n...[truncated]...\n${content.slice(-250)}`
          : content;
      blocks.push(`[TOOL:${m.tool_name ?? 'unknown'}]: ${body}`);
      continue;
    }
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      const names = m.tool_calls.map((c) => {
        const fn = (c as { function?: { name?: unknown } }).function;
        return typeof fn?.name === 'string' ? fn.name : 'tool';
      });
      blocks.push(`[ASSISTANT]: [Called: ${names.join(', ')}]${content ? `\n${content}` : ''}`);
      continue;
    }
    blocks.push(`[${m.role.toUpperCase()}]: ${content}`);
  }
  return blocks.join('\n\n');
}

function positionsOf(haystack: string, needle: string): number[] {
  const out: number[] = [];
  if (!needle) return out;
  let i = haystack.indexOf(needle);
  while (i >= 0) {
    out.push(i);
    i = haystack.indexOf(needle, i + 1);
  }
  return out;
}

/**
 * Keep at most `max` chars, choosing the window that covers the most matches: the whole phrase
 * first, else the rarest term where all terms co-occur within 200 chars, else any term.
 */
export function truncateAroundMatches(text: string, query: string, max = MAX_TRANSCRIPT_CHARS): string {
  if (text.length <= max) return text;
  const lower = text.toLowerCase();
  const terms = query
    .toLowerCase()
    .replace(/["()*^+{}]/g, ' ')
    .split(/\s+/)
    .filter((t) => t && !['and', 'or', 'not'].includes(t));
  let positions = positionsOf(lower, terms.join(' '));
  if (positions.length === 0 && terms.length > 0) {
    const byTerm = terms.map((t) => positionsOf(lower, t));
    const rarestIdx = byTerm.reduce(
      (best, p, i) => (p.length > 0 && (best < 0 || p.length < byTerm[best]!.length) ? i : best),
      -1,
    );
    if (rarestIdx >= 0) {
      positions = byTerm[rarestIdx]!.filter((pos) =>
        byTerm.every((other) => other.some((q) => Math.abs(q - pos) <= 200)),
      );
      if (positions.length === 0) positions = byTerm.flat().sort((a, b) => a - b);
    }
  }
  let start = 0;
  if (positions.length > 0) {
    let bestCount = -1;
    for (const p of positions) {
      const s = Math.max(0, Math.min(p - Math.floor(max * 0.25), text.length - max));
      const count = positions.filter((q) => q >= s && q < s + max).length;
      if (count > bestCount) {
        bestCount = count;
        start = s;
      }
    }
  }
  const end = Math.min(text.length, start + max);
  return (
    (start > 0 ? '...[earlier conversation truncated]...\n\n' : '') +
    text.slice(start, end) +
    (end < text.length ? '\n\n...[later conversation truncated]...' : '')
  );
}

export interface ClassicSearchOptions {
  currentSessionId?: string;
  llm?: LlmClient;
  /** Parallel summaries (default 3, clamped 1–5). */
  maxConcurrency?: number;
  /** Overall budget for summarisation (default 60 s). */
  timeoutMs?: number;
  /** Backoff unit between the 3 summary attempts (default 1000 ms × attempt). */
  retryDelayMs?: number;
  signal?: AbortSignal;
}

/** Run one classic `session_search` call. Always resolves to a JSON string. */
export async function handleClassicSessionSearch(
  store: SessionStore | null | undefined,
  rawArgs: unknown,
  options: ClassicSearchOptions = {},
): Promise<string> {
  try {
    if (!store?.isOpen) {
      return JSON.stringify({
        success: false,
        error: 'Session search is not available: the session database is not open.',
      });
    }
    const args = parseToolArgs(rawArgs);
    const limit = integerArg(args, 'limit', { fallback: 3, min: 1, max: 5 });
    // A number is the model quoting a keyword ("2024"); an object or array is a clear error, not a browse.
    const query = optionalString(args, 'query')?.trim() ?? '';
    const current = options.currentSessionId;
    const lineage = current ? store.resolveLineage(current) : null;
    if (!query) {
      const recent = store
        .listSessionsRich({
          limit: limit + 5,
          excludeSources: HIDDEN_SESSION_SOURCES,
          orderByLastActive: true,
          includeChildren: true,
        })
        .filter(
          (s) =>
            s.id !== current &&
            s.id !== lineage?.root &&
            !(current && store.resolveLineage(s.id).root === lineage?.root),
        )
        .slice(0, limit)
        .map((s) => ({
          session_id: s.id,
          title: s.title,
          source: s.source,
          started_at: s.started_at,
          last_active: s.last_active,
          message_count: s.message_count,
          preview: s.preview,
        }));
      return JSON.stringify({
        success: true,
        mode: 'recent',
        results: recent,
        count: recent.length,
        message: `Showing ${recent.length} most recent sessions. Use a keyword query to search specific topics.`,
      });
    }
    const roles =
      typeof args.role_filter === 'string' && args.role_filter.trim()
        ? args.role_filter
            .split(',')
            .map((r) => r.trim())
            .filter(Boolean)
        : undefined;
    const search = store.search(query, {
      roleFilter: roles,
      excludeSources: HIDDEN_SESSION_SOURCES,
      limit: 50,
    });
    if (search.error)
      return JSON.stringify({ success: false, error: `${search.error} Try different keywords.` });
    const roots: string[] = [];
    for (const hit of search.hits) {
      const root = store.resolveLineage(hit.session_id).root;
      if (lineage && root === lineage.root) continue;
      if (!roots.includes(root)) roots.push(root);
      if (roots.length >= limit) break;
    }
    if (roots.length === 0) {
      return JSON.stringify({
        success: true,
        query,
        results: [],
        count: 0,
        message: 'No matching sessions found.',
      });
    }
    const summarise = async (root: string) => {
      const meta = store.getSession(root);
      const transcript = truncateAroundMatches(formatTranscript(lineageMessages(store, root)), query);
      const summary = await summariseWithRetry(
        options,
        query,
        meta?.source ?? 'unknown',
        formatTimestamp(meta?.started_at),
        transcript,
      );
      return {
        session_id: root,
        when: formatTimestamp(meta?.started_at ?? null),
        source: meta?.source ?? 'unknown',
        model: meta?.model ?? null,
        summary:
          summary ??
          `${RAW_PREVIEW_PREFIX}\n${transcript.slice(0, 500)}${transcript.length > 500 ? '\n…[truncated]' : ''}`,
      };
    };
    const concurrency = Math.max(1, Math.min(options.maxConcurrency ?? 3, 5));
    const work = runLimited(roots, concurrency, summarise);
    const timeoutMs = options.timeoutMs ?? 60_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const results = await Promise.race([work, timeout]).finally(() => clearTimeout(timer));
    if (results === 'timeout') {
      return JSON.stringify({
        success: false,
        error: 'Session summarization timed out. Try a more specific query or reduce the limit.',
      });
    }
    return JSON.stringify({
      success: true,
      query,
      results,
      count: results.length,
      sessions_searched: roots.length,
    });
  } catch (error) {
    return JSON.stringify({ success: false, error: describeError(error) });
  }
}

/** The root's messages followed by its descendants' (compression continuations, children). */
function lineageMessages(store: SessionStore, root: string): MessageRow[] {
  const ids = store.lineageSessionIds(root);
  return ids.flatMap((id) => store.getMessages(id));
}

async function summariseWithRetry(
  options: ClassicSearchOptions,
  query: string,
  source: string,
  when: string,
  transcript: string,
): Promise<string | null> {
  const llm = options.llm;
  if (!llm) return null;
  for (let attempt = 1; attempt <= 3; attempt++) {
    if (options.signal?.aborted) return null;
    try {
      const res = await llm.chat({
        messages: [
          { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
          {
            role: 'user',
            content: `Search topic: ${query}\nSession source: ${source}\nSession date: ${when}\n\nTranscript:\n${transcript}\n\nSummarise this session with focus on: ${query}`,
          },
        ],
        temperature: 0.1,
        maxTokens: 10_000,
        signal: options.signal,
      });
      if (res.content.trim()) return res.content.trim();
    } catch {
      // retried below
    }
    if (attempt < 3) await new Promise((r) => setTimeout(r, (options.retryDelayMs ?? 1000) * attempt));
  }
  return null;
}

async function runLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  });
  await Promise.all(workers);
  return out;
}
