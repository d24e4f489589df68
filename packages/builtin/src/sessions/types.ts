/** A row of `sessions` (classic v6 columns; newer reference columns pass through untyped). */
export interface SessionRow {
  id: string;
  source: string;
  user_id: string | null;
  model: string | null;
  model_config: string | null;
  system_prompt: string | null;
  parent_session_id: string | null;
  started_at: number;
  ended_at: number | null;
  end_reason: string | null;
  message_count: number;
  tool_call_count: number;
  input_tokens: number;
  output_tokens: number;
  title: string | null;
  [column: string]: unknown;
}

/** A row of `messages`, with `tool_calls` decoded from JSON when possible. */
export interface MessageRow {
  id: number;
  session_id: string;
  role: string;
  content: string | null;
  tool_call_id: string | null;
  tool_calls: unknown;
  tool_name: string | null;
  timestamp: number;
  token_count: number | null;
  finish_reason: string | null;
  reasoning: string | null;
  [column: string]: unknown;
}

/** What `appendMessage` stores. Structured fields are JSON-encoded. */
export interface MessageInput {
  role: string;
  content?: string | null;
  toolName?: string | null;
  toolCalls?: unknown;
  toolCallId?: string | null;
  tokenCount?: number | null;
  finishReason?: string | null;
  reasoning?: string | null;
  reasoningDetails?: unknown;
  codexReasoningItems?: unknown;
  /** Unix seconds; defaults to now. */
  timestamp?: number;
}

export interface CreateSessionOptions {
  source?: string;
  model?: string | null;
  modelConfig?: Readonly<Record<string, unknown>> | null;
  systemPrompt?: string | null;
  userId?: string | null;
  parentSessionId?: string | null;
  /** Unix seconds; defaults to now. */
  startedAt?: number;
}

export interface RichSession extends SessionRow {
  /** First user message, 60 chars + "..." when longer. */
  preview: string;
  /** Timestamp of the last message, or started_at. */
  last_active: number;
}

export interface ListSessionsOptions {
  source?: string;
  excludeSources?: readonly string[];
  limit?: number;
  offset?: number;
  /** Include delegation / compression children (default false; reset and branch children are always listed). */
  includeChildren?: boolean;
  orderByLastActive?: boolean;
  /**
   * Include sessions the Python agent hides from its listings (`archived = 1` or `hidden = 1` in a
   * newer state.db; default false). They stay searchable and readable by id.
   */
  includeHidden?: boolean;
}

export interface SearchOptions {
  sourceFilter?: readonly string[];
  excludeSources?: readonly string[];
  roleFilter?: readonly string[];
  limit?: number;
  offset?: number;
  /** Temporal order instead of relevance. */
  sort?: 'newest' | 'oldest';
  /**
   * Natural-language queries (no explicit FTS5 syntax): when every-term matching finds fewer
   * than `offset + limit` messages, fill up with messages holding ANY of the non-stopword terms,
   * ranked by bm25 (default true). Queries with FTS5 syntax are never relaxed.
   */
  relax?: boolean;
}

/**
 * How a hit matched: `all_terms` — every term of a plain query (FTS5 AND, or substring for CJK);
 * `any_terms` — the relaxed pass (some of the non-stopword terms); `expression` — the caller's
 * explicit FTS5 expression, run as written.
 */
export type SearchMatch = 'all_terms' | 'any_terms' | 'expression';

export interface SearchResult {
  hits: SearchHit[];
  /** Why nothing could be searched (the query had no usable words). */
  error?: string;
  /** Present when the relaxed pass ran: the OR-joined terms and the stopwords dropped. */
  relaxed?: { terms: string[]; dropped: string[] };
}

export interface SearchHit {
  id: number;
  session_id: string;
  role: string;
  snippet: string;
  timestamp: number;
  tool_name: string | null;
  source: string;
  model: string | null;
  session_started: number;
  match: SearchMatch;
}

export interface MessageWindow {
  window: MessageRow[];
  /** Messages in the session before the anchor / after it. */
  messages_before: number;
  messages_after: number;
}

export interface AnchoredView extends MessageWindow {
  bookend_start: MessageRow[];
  bookend_end: MessageRow[];
}

/** End reasons after which the child starts empty (the predecessor left live context). */
export const FRESH_RESET_END_REASONS: readonly string[] = [
  'session_reset',
  'session_switch',
  'idle',
  'daily',
  'suspended',
  'resume_pending_expired',
  'new_session',
  // This port's end reason for onSessionEnd (exit, /new): the next session starts empty.
  'session_end',
];
