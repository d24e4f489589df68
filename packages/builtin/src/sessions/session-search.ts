import {
  type ToolSchema,
  describeError,
  integerArg,
  optionalString,
  parseToolArgs,
} from '@hermes-memory/core';
import type { SessionStore } from './session-store';
import { FRESH_RESET_END_REASONS, type MessageRow, type SearchHit } from './types';

export const SESSION_SEARCH_TOOL_NAME = 'session_search';

/** Sources never shown (integrations, delegate subagents, kanban workers). */
export const HIDDEN_SESSION_SOURCES: readonly string[] = ['kanban', 'subagent', 'tool'];
/** Sources kept but ranked below interactive sessions. */
export const DEMOTED_SESSION_SOURCES: readonly string[] = ['cron'];
const DISCOVER_SCAN_LIMIT = 300;
const COMPACTION_PREFIXES = ['[CONTEXT COMPACTION', '[CONTEXT SUMMARY]:'];

/** The current reference design: no model calls; the mode follows from the arguments. */
export const SESSION_SEARCH_SCHEMA: ToolSchema = {
  name: SESSION_SEARCH_TOOL_NAME,
  description:
    'Search past sessions stored in the local session DB, or scroll inside one. FTS5-backed, no LLM calls — ' +
    'every shape returns actual messages.\n\n' +
    'Use it proactively when the user refers to earlier work ("we did this before", "last time", "where did we ' +
    'leave X").\n\nFOUR CALLING SHAPES\n' +
    '1) DISCOVERY — pass `query`: dedupes hits by session lineage; the top result carries bookends (first/last ' +
    'messages) and ±5 messages around the match, lower results only the matched message (detail="full" hydrates all).\n' +
    '2) SCROLL — pass `session_id` + `around_message_id` (+ `window`, 1–20): a slice around that message. Scroll ' +
    'forward with the last id of a window, backward with the first.\n' +
    '3) READ — pass `session_id` only: the whole session (first 20 + last 10 when large).\n' +
    '4) BROWSE — no args: recent sessions with titles and previews.\n\n' +
    'QUERIES: plain keywords or a question match messages holding every term first; when those are few, ' +
    'messages holding only some of the terms follow (stopwords ignored), marked match="any_terms".\n' +
    'FTS5 SYNTAX (run exactly as written, never loosened): use OR for broader recall (`alpha OR beta`), quotes for ' +
    'phrases (`"docker networking"`), NOT to exclude (`python NOT java`), and prefix* wildcards (`deploy*`).',
  parameters: {
    type: 'object',
    properties: {
      query: {
        type: 'string',
        description: 'Keywords, phrases or boolean expression. Omit to browse recent sessions.',
      },
      limit: { type: 'integer', description: 'Discovery: max sessions (default 3, max 10).', default: 3 },
      sort: {
        type: 'string',
        enum: ['newest', 'oldest'],
        description:
          "Discovery: 'newest' for where-did-we-leave-it questions, 'oldest' for origins. Omit for relevance.",
      },
      detail: {
        type: 'string',
        enum: ['adaptive', 'full'],
        description:
          "Discovery: 'adaptive' (default) hydrates the top result only; 'full' hydrates every result.",
        default: 'adaptive',
      },
      session_id: { type: 'string', description: 'Scroll / read: the session to open.' },
      around_message_id: { type: 'integer', description: 'Scroll: the message id to centre the window on.' },
      window: {
        type: 'integer',
        description: 'Scroll: messages each side of the anchor, clamped to [1, 20]. Default 5.',
        default: 5,
      },
      role_filter: {
        type: 'string',
        description:
          "Comma-separated roles. Discovery defaults to 'user,assistant'; add 'tool' to search tool output.",
      },
    },
    required: [],
  },
};

export interface SessionSearchContext {
  /** The live session: it and its in-context lineage are never returned. */
  currentSessionId?: string;
}

/** "November 23, 2026 at 09:41 AM" (local time); "unknown" for null; other strings pass through. */
export function formatTimestamp(ts: unknown): string {
  if (ts === null || ts === undefined) return 'unknown';
  let n: number | undefined;
  if (typeof ts === 'number') n = ts;
  else if (typeof ts === 'string' && /^[\d.-]+$/.test(ts) && ts !== '') n = Number(ts);
  else return String(ts);
  if (n === undefined || !Number.isFinite(n)) return String(ts);
  const d = new Date(n * 1000);
  if (Number.isNaN(d.getTime())) return String(ts);
  const month = d.toLocaleString('en-US', { month: 'long' });
  const p = (x: number) => String(x).padStart(2, '0');
  const h = d.getHours() % 12 === 0 ? 12 : d.getHours() % 12;
  return `${month} ${p(d.getDate())}, ${d.getFullYear()} at ${p(h)}:${p(d.getMinutes())} ${d.getHours() < 12 ? 'AM' : 'PM'}`;
}

function isCompactionSummary(content: string | null): boolean {
  if (!content) return false;
  const s = content.trimStart();
  return COMPACTION_PREFIXES.some((p) => s.startsWith(p));
}

function shapeMessage(m: MessageRow, anchorId?: number, maxLen?: number): Record<string, unknown> {
  let content = m.content;
  const out: Record<string, unknown> = { id: m.id, role: m.role };
  let truncated = false;
  if (maxLen && content && content.length > maxLen) {
    out.original_content_chars = content.length;
    content = `${content.slice(0, maxLen)}…`;
    truncated = true;
  }
  out.content = content;
  out.timestamp = m.timestamp;
  if (m.tool_name) out.tool_name = m.tool_name;
  if (m.tool_calls) out.tool_calls = m.tool_calls;
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  if (anchorId !== undefined && m.id === anchorId) out.anchor = true;
  if (truncated) out.content_truncated = true;
  return out;
}

/** A session's transcript left live context: compressed away, or ended by a fresh reset. */
function leftLiveContext(store: SessionStore, sessionId: string): boolean {
  const reason = store.getSession(sessionId)?.end_reason ?? null;
  return reason === 'compression' || (reason !== null && FRESH_RESET_END_REASONS.includes(reason));
}

function err(message: string): string {
  return JSON.stringify({ success: false, error: message });
}

/** Run one `session_search` call (current design). Always a JSON string. */
export function handleSessionSearch(
  store: SessionStore | null | undefined,
  rawArgs: unknown,
  ctx: SessionSearchContext = {},
): string {
  try {
    if (!store?.isOpen) return err('Session search is not available: the session database is not open.');
    const args = parseToolArgs(rawArgs);
    const sessionId = typeof args.session_id === 'string' ? args.session_id.trim() : '';
    const anchorRaw = args.around_message_id;
    if (sessionId && anchorRaw !== undefined && anchorRaw !== null && anchorRaw !== '') {
      const anchor = typeof anchorRaw === 'number' ? anchorRaw : Number(String(anchorRaw));
      if (!Number.isInteger(anchor)) return err('scroll requires integer around_message_id');
      return scroll(
        store,
        sessionId,
        anchor,
        integerArg(args, 'window', { fallback: 5, min: 1, max: 20 }),
        ctx,
      );
    }
    if (sessionId) return readSession(store, sessionId);
    const limit = integerArg(args, 'limit', { fallback: 3, min: 1, max: 10 });
    // A number is the model quoting a keyword ("2024"); an object or array is a clear error, not a browse.
    const query = optionalString(args, 'query')?.trim() ?? '';
    if (!query) return browse(store, limit, ctx);
    const roleFilter =
      typeof args.role_filter === 'string' && args.role_filter.trim()
        ? args.role_filter
            .split(',')
            .map((r) => r.trim())
            .filter(Boolean)
        : ['user', 'assistant'];
    const sortRaw = typeof args.sort === 'string' ? args.sort.trim().toLowerCase() : '';
    const sort = sortRaw === 'newest' || sortRaw === 'oldest' ? sortRaw : undefined;
    const detail =
      typeof args.detail === 'string' && args.detail.trim().toLowerCase() === 'full' ? 'full' : 'adaptive';
    return discover(store, query, { limit, roleFilter, sort, detail }, ctx);
  } catch (error) {
    return err(describeError(error));
  }
}

function sessionMeta(store: SessionStore, id: string): Record<string, unknown> {
  const s = store.getSession(id);
  return {
    when: formatTimestamp(s?.started_at ?? null),
    source: s?.source ?? null,
    model: s?.model ?? null,
    title: s?.title ?? null,
  };
}

function readSession(store: SessionStore, sessionId: string): string {
  const meta = store.getSession(sessionId);
  if (!meta) return err(`session_id not found: ${sessionId}`);
  const rows = store.getMessages(sessionId).map((m) => shapeMessage(m));
  const head = 20;
  const tail = 10;
  const truncated = rows.length > head + tail;
  const out: Record<string, unknown> = {
    success: true,
    mode: 'read',
    session_id: sessionId,
    session_meta: sessionMeta(store, sessionId),
    message_count: rows.length,
    truncated,
    messages: truncated ? [...rows.slice(0, head), ...rows.slice(-tail)] : rows,
  };
  if (truncated) {
    out.message = `Session has ${rows.length} messages; showing first ${head} + last ${tail}. Pass around_message_id (any id above) to scroll the middle.`;
  }
  return JSON.stringify(out);
}

function browse(store: SessionStore, limit: number, ctx: SessionSearchContext): string {
  const current = ctx.currentSessionId;
  const lineage = current ? store.resolveLineage(current) : null;
  const results: Array<Record<string, unknown>> = [];
  let offset = 0;
  const page = limit + 15;
  while (results.length < limit) {
    const sessions = store.listSessionsRich({
      limit: page,
      offset,
      excludeSources: HIDDEN_SESSION_SOURCES,
      orderByLastActive: true,
    });
    for (const s of sessions) {
      if (s.id === current) continue;
      if (lineage?.hasCompressionHop && s.id === lineage.root) continue;
      results.push({
        session_id: s.id,
        title: s.title ?? null,
        source: s.source,
        started_at: s.started_at,
        last_active: s.last_active,
        message_count: s.message_count,
        preview: s.preview,
      });
      if (results.length >= limit) break;
    }
    if (sessions.length < page) break;
    offset += sessions.length;
  }
  return JSON.stringify({
    success: true,
    mode: 'browse',
    results,
    count: results.length,
    message: `Showing ${results.length} most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll.`,
  });
}

function scroll(
  store: SessionStore,
  sessionId: string,
  anchor: number,
  window: number,
  ctx: SessionSearchContext,
): string {
  const meta = store.getSession(sessionId);
  if (!meta) return err(`session_id not found: ${sessionId}`);
  let owner = sessionId;
  let view = store.getMessagesAround(sessionId, anchor, window);
  let warning: string | undefined;
  if (view.window.length === 0) {
    // The anchor may live in a child of the named session (compression / delegation): rebind.
    const row = findMessageOwner(store, anchor);
    if (row && row !== sessionId && store.resolveLineage(row).root === store.resolveLineage(sessionId).root) {
      view = store.getMessagesAround(row, anchor, window);
      if (view.window.length > 0) {
        warning = `around_message_id ${anchor} lives in ${row} (child of ${sessionId}); rebound transparently`;
        owner = row;
      }
    }
  }
  if (view.window.length === 0) return err(`around_message_id ${anchor} not in session_id ${sessionId}`);
  if (ctx.currentSessionId) {
    const a = store.resolveLineage(owner).root;
    const c = store.resolveLineage(ctx.currentSessionId).root;
    if (a === c && !leftLiveContext(store, owner)) {
      return err(
        'scroll rejected: anchor lives in the current session lineage (already in your active context)',
      );
    }
  }
  const out: Record<string, unknown> = {
    success: true,
    mode: 'scroll',
    session_id: owner,
    around_message_id: anchor,
    session_meta: sessionMeta(store, owner),
    window,
    messages: view.window.map((m) => shapeMessage(m, anchor)),
    messages_before: view.messages_before,
    messages_after: view.messages_after,
  };
  if (warning) out.warning = warning;
  return JSON.stringify(out);
}

function findMessageOwner(store: SessionStore, messageId: number): string | null {
  return store.messageOwner(messageId);
}

function discover(
  store: SessionStore,
  query: string,
  opts: { limit: number; roleFilter: string[]; sort?: 'newest' | 'oldest'; detail: 'full' | 'adaptive' },
  ctx: SessionSearchContext,
): string {
  const current = ctx.currentSessionId;
  const currentRoot = current ? store.resolveLineage(current).root : null;
  const results: Array<Record<string, unknown>> = [];
  const seen = new Map<string, SearchHit | null>();

  const title = titleMatch(store, query, currentRoot);
  if (title) {
    seen.set(title.root, null);
    results.push(title.entry);
  }

  const search = store.search(query, {
    roleFilter: opts.roleFilter,
    excludeSources: HIDDEN_SESSION_SOURCES,
    limit: DISCOVER_SCAN_LIMIT,
    sort: opts.sort,
  });
  if (search.error && !title) {
    return err(search.error.includes('browse') ? search.error : `${search.error} Try different keywords.`);
  }
  // Every-term hits stay above any-term hits; within each, cron rows sink below interactive ones
  // (stable: relevance order kept within each class).
  const loose = (h: SearchHit) => Number(h.match === 'any_terms');
  const demoted = (h: SearchHit) => Number(DEMOTED_SESSION_SOURCES.includes(h.source));
  const hits = [...search.hits].sort((a, b) => loose(a) - loose(b) || demoted(a) - demoted(b));
  for (const hit of hits) {
    if (seen.size >= opts.limit) break;
    const root = store.resolveLineage(hit.session_id).root;
    if (current && hit.session_id === current) continue;
    if (currentRoot && root === currentRoot && !leftLiveContext(store, hit.session_id)) continue;
    if (!seen.has(root)) seen.set(root, hit);
  }
  if (results.length === 0 && [...seen.values()].every((v) => v === null)) {
    return JSON.stringify({
      success: true,
      mode: 'discover',
      query,
      match: 'none',
      detail: opts.detail,
      results: [],
      count: 0,
      message: 'No matching sessions found.',
    });
  }
  for (const [root, hit] of seen) {
    if (!hit) continue;
    const view = store.getAnchoredView(hit.session_id, hit.id, { window: 5, bookend: 3 });
    const rootMeta = store.getSession(root);
    const full = opts.detail === 'full' || results.length === 0;
    const windowMsgs = full ? view.window : view.window.filter((m) => m.id === hit.id);
    const entry: Record<string, unknown> = {
      session_id: hit.session_id,
      when: formatTimestamp(rootMeta?.started_at ?? hit.session_started),
      source: rootMeta?.source ?? hit.source,
      model: rootMeta?.model ?? hit.model ?? 'unknown',
      title: rootMeta?.title ?? null,
      matched_role: hit.role,
      match: hit.match,
      match_message_id: hit.id,
      snippet: hit.snippet ?? '',
      bookend_start: full
        ? view.bookend_start
            .filter((m) => !isCompactionSummary(m.content))
            .map((m) => shapeMessage(m, undefined, 1200))
        : [],
      messages: windowMsgs.map((m) => shapeMessage(m, hit.id, 4000)),
      bookend_end: full
        ? view.bookend_end
            .filter((m) => !isCompactionSummary(m.content))
            .map((m) => shapeMessage(m, undefined, 1200))
        : [],
      messages_before: view.messages_before,
      messages_after: view.messages_after,
      detail: full ? 'full' : 'compact',
    };
    if (root !== hit.session_id) entry.parent_session_id = root;
    results.push(entry);
  }
  const out: Record<string, unknown> = {
    success: true,
    mode: 'discover',
    query,
    match: overallMatch(results),
    detail: opts.detail,
    results,
    count: results.length,
    sessions_searched: seen.size,
  };
  if (out.match === 'any_terms' && search.relaxed) {
    out.relaxed_terms = search.relaxed.terms;
    out.message = `Results marked match="any_terms" hold only some of: ${search.relaxed.terms.join(', ')} (ranked by relevance). Quote a phrase or add keywords to narrow.`;
  }
  return JSON.stringify(out);
}

/** The loosest way any result matched: a model reads `any_terms` as "these hits are looser". */
function overallMatch(results: ReadonlyArray<Record<string, unknown>>): string {
  const kinds = new Set(results.map((r) => r.match));
  if (kinds.has('any_terms')) return 'any_terms';
  if (kinds.has('expression')) return 'expression';
  return kinds.has('all_terms') ? 'all_terms' : kinds.has('title') ? 'title' : 'none';
}

function titleMatch(
  store: SessionStore,
  query: string,
  currentRoot: string | null,
): { root: string; entry: Record<string, unknown> } | null {
  const title = query.trim().replace(/^[`'"]+|[`'"]+$/g, '');
  if (!title) return null;
  const sessionId = store.resolveSessionByTitle(title);
  if (!sessionId) return null;
  const root = store.resolveLineage(sessionId).root;
  if (currentRoot && root === currentRoot && !leftLiveContext(store, sessionId)) return null;
  const meta = store.getSession(root) ?? store.getSession(sessionId);
  if (!meta || HIDDEN_SESSION_SOURCES.includes(meta.source)) return null;
  const messages = store.getMessages(sessionId);
  const anchor = messages[0]?.id;
  const view =
    anchor !== undefined ? store.getAnchoredView(sessionId, anchor, { window: 5, bookend: 3 }) : null;
  const entry: Record<string, unknown> = {
    session_id: sessionId,
    when: formatTimestamp(meta.started_at),
    source: meta.source,
    model: meta.model ?? 'unknown',
    title: meta.title ?? title,
    matched_role: 'session_title',
    match: 'title',
    match_message_id: anchor ?? null,
    snippet: `Session title matched: ${meta.title ?? title}`,
    bookend_start: (view?.bookend_start ?? []).map((m) => shapeMessage(m)),
    messages: (view?.window ?? []).map((m) => shapeMessage(m, anchor)),
    bookend_end: (view?.bookend_end ?? []).map((m) => shapeMessage(m)),
    messages_before: view?.messages_before ?? 0,
    messages_after: view?.messages_after ?? 0,
    detail: 'full',
  };
  if (root !== sessionId) entry.parent_session_id = root;
  return { root, entry };
}
