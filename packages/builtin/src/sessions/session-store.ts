import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChatMessage, Logger } from '@hermes-memory/core';
import { NotReadyError, ensureDir, retryWhileBusy, silentLogger } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import {
  QUERY_STOPWORDS,
  hasCjk,
  hasFtsSyntax,
  likeTerms,
  relaxedFtsQuery,
  sanitizeFtsQuery,
} from './fts-query';
import {
  FTS_SQL,
  MIGRATION_COLUMNS,
  SCHEMA_SQL,
  SCHEMA_VERSION,
  STEMMED_FTS_SQL,
  STEMMED_FTS_TABLE,
  TITLE_INDEX_SQL,
} from './schema';
import {
  type AnchoredView,
  type CreateSessionOptions,
  FRESH_RESET_END_REASONS,
  type ListSessionsOptions,
  type MessageInput,
  type MessageRow,
  type MessageWindow,
  type RichSession,
  type SearchHit,
  type SearchMatch,
  type SearchOptions,
  type SearchResult,
  type SessionRow,
} from './types';

type Db = Database.Database;
type Stmt = Database.Statement;

export interface SessionStoreOptions {
  /** Profile root; the database is `<hermesHome>/state.db`. */
  hermesHome?: string;
  /** Explicit database path (wins over hermesHome). */
  dbPath?: string;
  logger?: Logger;
  /** SQLite busy timeout before the application-level retry takes over (default 1000 ms). */
  busyTimeoutMs?: number;
  /**
   * Open an existing database without ever writing to it (subagent / cron contexts, other
   * profiles). Throws when the file does not exist; every write method throws.
   */
  readonly?: boolean;
  /**
   * Keep this package's Porter-stemmed second index (`hm_messages_fts`) for the relaxed pass of
   * natural-language searches (default true; decision 0301). The reference's `messages_fts` is
   * untouched either way.
   */
  stemmedIndex?: boolean;
}

const WRITE_MAX_RETRIES = 15;
/** Opening waits as long as a write would: 15 × (1 s busy timeout + 20–150 ms). */
const OPEN_RETRY = { timeoutMs: 16_000 };
const CHECKPOINT_EVERY = 50;
export const MAX_TITLE_LENGTH = 100;

/** `YYYYMMDD_HHMMSS_<6 hex>`, the reference's session id format (local time). */
export function newSessionId(date: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}_${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
  return `${stamp}_${randomBytes(3).toString('hex')}`;
}

function toJson(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (Array.isArray(value) && value.length === 0) return null;
  return JSON.stringify(value);
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return text ?? null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Flatten OpenAI content (string or parts) to text for storage and search. */
export function contentToText(content: ChatMessage['content'] | undefined): string | null {
  if (content === null || content === undefined) return null;
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of content) {
    if (part && typeof part === 'object' && part.type === 'text' && typeof part.text === 'string')
      texts.push(part.text);
  }
  return texts.join('\n');
}

/** Convert an OpenAI-shaped chat message to a storable message. */
export function chatMessageToInput(message: ChatMessage): MessageInput {
  const input: MessageInput = { role: message.role, content: contentToText(message.content) };
  if (message.tool_calls && message.tool_calls.length > 0) input.toolCalls = message.tool_calls;
  if (message.tool_call_id) input.toolCallId = message.tool_call_id;
  if (message.role === 'tool' && message.name) input.toolName = message.name;
  return input;
}

function escapeLike(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/%/g, '\\%').replace(/_/g, '\\_');
}

/**
 * The session store `state.db`: sessions with parent lineage, every message (tool calls
 * included) and an FTS5 index kept in sync by triggers. SQLite in WAL mode with foreign keys, a
 * short busy timeout and BEGIN IMMEDIATE retries with jitter, like the reference. All statements
 * on the per-turn path are prepared once.
 */
/**
 * Relevance-ordered pages up to this many rows (offset included) are read in steps
 * (`rankedFtsQuery`): each page row's snippet costs a lookup of its own there, so larger scans
 * (session_search reads 300 hits) keep the single joined query.
 */
const RANKED_PAGE_MAX = 25;

interface WriteStatements {
  insertSession: Stmt;
  endSession: Stmt;
  reopenSession: Stmt;
  insertMessage: Stmt;
  bumpCounts: Stmt;
}

export class SessionStore {
  readonly dbPath: string;
  private readonly db: Db;
  private readonly logger: Logger;
  private writes = 0;
  private closed = false;
  readonly readonly: boolean;
  /** FTS5 table for the relaxed pass: the stemmed index when present, else the reference's. */
  private relaxedTable = 'messages_fts';
  /** Statements of the ranked search, by SQL text (one per table and filter shape). */
  private readonly searchStmts = new Map<string, Database.Statement>();
  /** Read statements, prepared at open. */
  private readonly stmts: { getSession: Stmt; getMessages: Stmt };
  /**
   * Write statements, prepared on the first write: a read-only store opens any schema the reference
   * has shipped, and an older one (before v6) lacks columns these name (`messages.reasoning`, …).
   */
  private writeStmts: WriteStatements | undefined;
  /** Statement for a session's live messages (compacted rows left out where the schema has them). */
  private readonly activeOnly: Stmt;
  /** The `sessions` flags that hide a session from listings, where the schema has them. */
  private readonly hiddenSessionFlags: readonly string[];
  /** False only for a schema before v3 opened read-only: no session has a title there. */
  private readonly titled: boolean;

  constructor(options: SessionStoreOptions = {}) {
    if (options.dbPath) this.dbPath = path.resolve(options.dbPath);
    else if (options.hermesHome) this.dbPath = path.resolve(options.hermesHome, 'state.db');
    else throw new TypeError('SessionStore needs hermesHome or dbPath.');
    this.logger = options.logger ?? silentLogger;
    this.readonly = options.readonly === true;
    if (this.readonly) {
      this.db = new Database(this.dbPath, {
        readonly: true,
        fileMustExist: true,
        timeout: options.busyTimeoutMs ?? 1000,
      });
    } else {
      ensureDir(path.dirname(this.dbPath));
      if (!fs.existsSync(this.dbPath)) fs.closeSync(fs.openSync(this.dbPath, 'a', 0o600));
      try {
        fs.chmodSync(this.dbPath, 0o600);
      } catch {}
      this.db = new Database(this.dbPath, { timeout: options.busyTimeoutMs ?? 1000 });
      // Switching to WAL and creating or migrating the schema (a Python home's first open back-fills
      // the stemmed index) take the write lock: wait out an agent's writes like every write does.
      // Each step is idempotent, so a busy one simply runs again.
      retryWhileBusy(() => {
        this.db.pragma('journal_mode = WAL');
        this.db.pragma('foreign_keys = ON');
        this.initSchema(options.stemmedIndex !== false);
      }, OPEN_RETRY);
    }
    if (this.tableExists(STEMMED_FTS_TABLE)) this.relaxedTable = STEMMED_FTS_TABLE;
    this.stmts = {
      getSession: this.db.prepare('SELECT * FROM sessions WHERE id = ?'),
      getMessages: this.db.prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY timestamp, id'),
    };
    // A newer state.db (the Python agent's schema v30) compacts in place: replaced rows stay, with
    // active = 0, searchable but out of the conversation; sessions can be archived or hidden.
    const messageColumns = this.columns('messages');
    const sessionColumns = this.columns('sessions');
    this.activeOnly = messageColumns.has('active')
      ? this.db.prepare(
          'SELECT * FROM messages WHERE session_id = ? AND COALESCE(active, 1) != 0 ORDER BY timestamp, id',
        )
      : this.stmts.getMessages;
    this.hiddenSessionFlags = ['archived', 'hidden'].filter((c) => sessionColumns.has(c));
    this.titled = sessionColumns.has('title');
  }

  private get writeStatements(): WriteStatements {
    this.writeStmts ??= {
      insertSession: this.db.prepare(
        `INSERT OR IGNORE INTO sessions (id, source, user_id, model, model_config, system_prompt, parent_session_id, started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      endSession: this.db.prepare('UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ?'),
      reopenSession: this.db.prepare('UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?'),
      insertMessage: this.db.prepare(
        `INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, token_count,
           finish_reason, reasoning, reasoning_details, codex_reasoning_items)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      bumpCounts: this.db.prepare(
        'UPDATE sessions SET message_count = message_count + ?, tool_call_count = tool_call_count + ? WHERE id = ?',
      ),
    };
    return this.writeStmts;
  }

  private columns(table: string): Set<string> {
    const rows = this.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
    return new Set(rows.map((r) => r.name));
  }

  private tableExists(name: string): boolean {
    return this.db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined;
  }

  private initSchema(stemmedIndex: boolean): void {
    this.db.exec(SCHEMA_SQL);
    const row = this.db.prepare('SELECT version FROM schema_version LIMIT 1').get() as
      | { version: number }
      | undefined;
    if (!row) {
      this.db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION);
    } else if (row.version < SCHEMA_VERSION) {
      for (const [table, column, type] of MIGRATION_COLUMNS) {
        const cols = this.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>;
        if (!cols.some((c) => c.name === column))
          this.db.exec(`ALTER TABLE ${table} ADD COLUMN "${column}" ${type}`);
      }
      this.db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION);
    }
    this.db.exec(TITLE_INDEX_SQL);
    if (!this.tableExists('messages_fts')) this.db.exec(FTS_SQL);
    if (stemmedIndex && !this.tableExists(STEMMED_FTS_TABLE)) {
      // Table, triggers and the back-fill of existing messages commit together or not at all.
      this.db.transaction(() => this.db.exec(STEMMED_FTS_SQL)).immediate();
    }
  }

  /** BEGIN IMMEDIATE with jittered retries on lock contention (15 attempts, 20–150 ms). */
  private write<T>(fn: () => T): T {
    if (this.closed) throw new NotReadyError('SessionStore', 'closed');
    if (this.readonly) throw new Error('SessionStore was opened read-only.');
    const tx = this.db.transaction(fn);
    // An IMMEDIATE transaction that fails applied nothing, so a busy one can simply run again.
    const result = retryWhileBusy(() => tx.immediate(), { attempts: WRITE_MAX_RETRIES });
    this.writes++;
    if (this.writes % CHECKPOINT_EVERY === 0) this.checkpoint();
    return result;
  }

  private checkpoint(): void {
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch (error) {
      this.logger.debug('WAL checkpoint failed', { error: String(error) });
    }
  }

  // ── sessions ────────────────────────────────────────────────────────────────────────────

  /** Insert-or-ignore: creating an existing session is harmless. */
  createSession(sessionId: string, options: CreateSessionOptions = {}): string {
    this.write(() =>
      this.writeStatements.insertSession.run(
        sessionId,
        options.source ?? 'cli',
        options.userId ?? null,
        options.model ?? null,
        options.modelConfig ? JSON.stringify(options.modelConfig) : null,
        options.systemPrompt ?? null,
        options.parentSessionId ?? null,
        options.startedAt ?? Date.now() / 1000,
      ),
    );
    return sessionId;
  }

  /** Make sure a session row exists (used before appending to an unknown id). */
  ensureSession(sessionId: string, source = 'unknown', model: string | null = null): void {
    this.createSession(sessionId, { source, model });
  }

  endSession(sessionId: string, endReason: string): void {
    this.write(() => this.writeStatements.endSession.run(Date.now() / 1000, endReason, sessionId));
  }

  reopenSession(sessionId: string): void {
    this.write(() => this.writeStatements.reopenSession.run(sessionId));
  }

  updateSystemPrompt(sessionId: string, systemPrompt: string): void {
    this.write(() =>
      this.db.prepare('UPDATE sessions SET system_prompt = ? WHERE id = ?').run(systemPrompt, sessionId),
    );
  }

  getSession(sessionId: string): SessionRow | null {
    return (this.stmts.getSession.get(sessionId) as SessionRow | undefined) ?? null;
  }

  /** Exact id, or a unique prefix of one. */
  resolveSessionId(idOrPrefix: string): string | null {
    if (this.getSession(idOrPrefix)) return idOrPrefix;
    const rows = this.db
      .prepare("SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 2")
      .all(`${escapeLike(idOrPrefix)}%`) as Array<{ id: string }>;
    return rows.length === 1 ? rows[0]!.id : null;
  }

  /** The session that owns a message id, or null. */
  messageOwner(messageId: number): string | null {
    const row = this.db.prepare('SELECT session_id FROM messages WHERE id = ?').get(messageId) as
      | { session_id: string }
      | undefined;
    return row?.session_id ?? null;
  }

  /** A session and all its descendants, parents before children (cycle-safe). */
  lineageSessionIds(rootId: string): string[] {
    const out: string[] = [];
    const queue = [rootId];
    const children = this.db.prepare(
      'SELECT id FROM sessions WHERE parent_session_id = ? ORDER BY started_at',
    );
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (out.includes(id)) continue;
      out.push(id);
      for (const row of children.all(id) as Array<{ id: string }>) queue.push(row.id);
    }
    return out;
  }

  /** Walk parent links to the lineage root (cycle-safe); reports whether a compression hop was crossed. */
  resolveLineage(sessionId: string): { root: string; hasCompressionHop: boolean } {
    const seen = new Set<string>();
    let current = sessionId;
    let hasCompressionHop = false;
    while (current && !seen.has(current)) {
      seen.add(current);
      const s = this.getSession(current);
      if (!s) break;
      if (s.end_reason === 'compression') hasCompressionHop = true;
      if (!s.parent_session_id) break;
      current = s.parent_session_id;
    }
    return { root: current, hasCompressionHop };
  }

  listSessionsRich(options: ListSessionsOptions = {}): RichSession[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (!options.includeChildren) {
      // Roots, plus children that start a fresh conversation (/new, /reset, /branch): those are
      // separate conversations for the user even though they carry lineage.
      const reasons = [...FRESH_RESET_END_REASONS, 'branched'];
      where.push(
        `(s.parent_session_id IS NULL OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id AND p.end_reason IN (${reasons.map(() => '?').join(',')})))`,
      );
      params.push(...reasons);
    }
    if (options.source) {
      where.push('s.source = ?');
      params.push(options.source);
    }
    if (options.excludeSources && options.excludeSources.length > 0) {
      where.push(`s.source NOT IN (${options.excludeSources.map(() => '?').join(',')})`);
      params.push(...options.excludeSources);
    }
    if (!options.includeHidden)
      for (const flag of this.hiddenSessionFlags) where.push(`COALESCE(s.${flag}, 0) = 0`);
    const order = options.orderByLastActive ? 'last_active DESC, s.started_at DESC' : 's.started_at DESC';
    const sql = `
      SELECT s.*,
        COALESCE((SELECT SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, 63) FROM messages m
                  WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
                  ORDER BY m.timestamp, m.id LIMIT 1), '') AS _preview_raw,
        COALESCE((SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id), s.started_at) AS last_active
      FROM sessions s
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY ${order}
      LIMIT ? OFFSET ?`;
    params.push(Math.max(0, options.limit ?? 20), Math.max(0, options.offset ?? 0));
    const rows = this.db.prepare(sql).all(...params) as Array<
      SessionRow & { _preview_raw: string; last_active: number }
    >;
    return rows.map(({ _preview_raw, ...s }) => {
      const raw = (_preview_raw ?? '').trim();
      const preview = raw ? raw.slice(0, 60) + (raw.length > 60 ? '...' : '') : '';
      return { ...s, preview } as RichSession;
    });
  }

  sessionCount(source?: string): number {
    const row = source
      ? this.db.prepare('SELECT COUNT(*) AS n FROM sessions WHERE source = ?').get(source)
      : this.db.prepare('SELECT COUNT(*) AS n FROM sessions').get();
    return (row as { n: number }).n;
  }

  messageCount(sessionId?: string): number {
    const row = sessionId
      ? this.db.prepare('SELECT COUNT(*) AS n FROM messages WHERE session_id = ?').get(sessionId)
      : this.db.prepare('SELECT COUNT(*) AS n FROM messages').get();
    return (row as { n: number }).n;
  }

  // ── titles ──────────────────────────────────────────────────────────────────────────────

  /** Trim, strip control / invisible characters, collapse whitespace; "" → null; > 100 chars throws. */
  static sanitizeTitle(title: string | null | undefined): string | null {
    if (!title) return null;
    let cleaned = title.replace(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g, '');
    cleaned = cleaned.replace(/[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffc\ufff9-\ufffb]/g, '');
    cleaned = cleaned.replace(/\s+/g, ' ').trim();
    if (!cleaned) return null;
    if (cleaned.length > MAX_TITLE_LENGTH) {
      throw new RangeError(`Title too long (${cleaned.length} chars, max ${MAX_TITLE_LENGTH})`);
    }
    return cleaned;
  }

  /** Set (or clear) a title. Throws when another session already uses it. */
  setSessionTitle(sessionId: string, title: string | null): boolean {
    const clean = SessionStore.sanitizeTitle(title);
    return this.write(() => {
      if (clean) {
        const conflict = this.db
          .prepare('SELECT id FROM sessions WHERE title = ? AND id != ?')
          .get(clean, sessionId) as { id: string } | undefined;
        if (conflict) throw new Error(`Title '${clean}' is already in use by session ${conflict.id}`);
      }
      return this.db.prepare('UPDATE sessions SET title = ? WHERE id = ?').run(clean, sessionId).changes > 0;
    });
  }

  getSessionTitle(sessionId: string): string | null {
    return this.getSession(sessionId)?.title ?? null;
  }

  getSessionByTitle(title: string): SessionRow | null {
    if (!this.titled) return null;
    return (
      (this.db.prepare('SELECT * FROM sessions WHERE title = ?').get(title) as SessionRow | undefined) ?? null
    );
  }

  /** Exact title, preferring the newest numbered continuation ("title #3"). */
  resolveSessionByTitle(title: string): string | null {
    if (!this.titled) return null;
    const numbered = this.db
      .prepare("SELECT id FROM sessions WHERE title LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 1")
      .get(`${escapeLike(title)} #%`) as { id: string } | undefined;
    if (numbered) return numbered.id;
    return this.getSessionByTitle(title)?.id ?? null;
  }

  /** "my session" → "my session #2" (next free number in the lineage). */
  getNextTitleInLineage(baseTitle: string): string {
    const m = /^(.*?) #(\d+)$/.exec(baseTitle);
    const base = m ? m[1]! : baseTitle;
    if (!this.titled) return base;
    const existing = this.db
      .prepare("SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'")
      .all(base, `${escapeLike(base)} #%`) as Array<{ title: string }>;
    if (existing.length === 0) return base;
    let max = 1;
    for (const { title } of existing) {
      const n = /^.* #(\d+)$/.exec(title);
      if (n) max = Math.max(max, Number(n[1]));
    }
    return `${base} #${max + 1}`;
  }

  // ── messages ────────────────────────────────────────────────────────────────────────────

  private insert(sessionId: string, message: MessageInput, now: number): { id: number; toolCalls: number } {
    const toolCalls = message.toolCalls;
    const toolCallCount =
      toolCalls === undefined || toolCalls === null ? 0 : Array.isArray(toolCalls) ? toolCalls.length : 1;
    const info = this.writeStatements.insertMessage.run(
      sessionId,
      message.role,
      message.content ?? null,
      message.toolCallId ?? null,
      toJson(toolCalls),
      message.toolName ?? null,
      message.timestamp ?? now,
      message.tokenCount ?? null,
      message.finishReason ?? null,
      message.reasoning ?? null,
      toJson(message.reasoningDetails),
      toJson(message.codexReasoningItems),
    );
    return { id: Number(info.lastInsertRowid), toolCalls: toolCallCount };
  }

  /** Append one message; bumps message_count (and tool_call_count). Returns the row id. */
  appendMessage(sessionId: string, message: MessageInput): number {
    return this.write(() => {
      const r = this.insert(sessionId, message, Date.now() / 1000);
      this.writeStatements.bumpCounts.run(1, r.toolCalls, sessionId);
      return r.id;
    });
  }

  /** Append several messages in one transaction (one fsync per turn). Returns the row ids. */
  appendMessages(sessionId: string, messages: readonly MessageInput[]): number[] {
    if (messages.length === 0) return [];
    return this.write(() => {
      const now = Date.now() / 1000;
      const ids: number[] = [];
      let calls = 0;
      for (const m of messages) {
        const r = this.insert(sessionId, m, now);
        ids.push(r.id);
        calls += r.toolCalls;
      }
      this.writeStatements.bumpCounts.run(messages.length, calls, sessionId);
      return ids;
    });
  }

  /**
   * A session's messages in order. Rows compacted away in a newer state.db (`active = 0`) are left
   * out, as the Python agent leaves them out of a conversation; `includeCompacted` keeps them (search
   * windows: a compacted row is still a search hit).
   */
  getMessages(sessionId: string, options: { includeCompacted?: boolean } = {}): MessageRow[] {
    const stmt = options.includeCompacted ? this.stmts.getMessages : this.activeOnly;
    const rows = stmt.all(sessionId) as MessageRow[];
    for (const row of rows) if (row.tool_calls) row.tool_calls = parseJson(row.tool_calls);
    return rows;
  }

  /** OpenAI-shaped transcript (role, content, tool calls, reasoning on assistant turns). */
  getMessagesAsConversation(sessionId: string): Array<Record<string, unknown>> {
    return this.getMessages(sessionId).map((row) => {
      const msg: Record<string, unknown> = { role: row.role, content: row.content };
      if (row.tool_call_id) msg.tool_call_id = row.tool_call_id;
      if (row.tool_name) msg.tool_name = row.tool_name;
      if (row.tool_calls) msg.tool_calls = row.tool_calls;
      if (row.role === 'assistant') {
        if (row.reasoning) msg.reasoning = row.reasoning;
        if (row.reasoning_details) msg.reasoning_details = parseJson(row.reasoning_details);
        if (row.codex_reasoning_items) msg.codex_reasoning_items = parseJson(row.codex_reasoning_items);
      }
      return msg;
    });
  }

  /** ±window messages around an anchor, with the counts of messages before and after the anchor. */
  getMessagesAround(sessionId: string, messageId: number, window = 5): MessageWindow {
    const all = this.getMessages(sessionId, { includeCompacted: true });
    const idx = all.findIndex((m) => m.id === messageId);
    if (idx < 0) return { window: [], messages_before: 0, messages_after: 0 };
    const w = Math.max(0, Math.trunc(window));
    return {
      window: all.slice(Math.max(0, idx - w), idx + w + 1),
      messages_before: idx,
      messages_after: all.length - idx - 1,
    };
  }

  /** The anchored window plus the first / last `bookend` user+assistant messages outside it. */
  getAnchoredView(
    sessionId: string,
    messageId: number,
    options: { window?: number; bookend?: number } = {},
  ): AnchoredView {
    const all = this.getMessages(sessionId, { includeCompacted: true });
    const idx = all.findIndex((m) => m.id === messageId);
    if (idx < 0)
      return { window: [], messages_before: 0, messages_after: 0, bookend_start: [], bookend_end: [] };
    const w = Math.max(0, Math.trunc(options.window ?? 5));
    const b = Math.max(0, Math.trunc(options.bookend ?? 3));
    const start = Math.max(0, idx - w);
    const end = Math.min(all.length, idx + w + 1);
    const conversational = (m: MessageRow) => m.role === 'user' || m.role === 'assistant';
    return {
      window: all.slice(start, end),
      messages_before: idx,
      messages_after: all.length - idx - 1,
      bookend_start: all.slice(0, start).filter(conversational).slice(0, b),
      bookend_end: b > 0 ? all.slice(end).filter(conversational).slice(-b) : [],
    };
  }

  // ── search ──────────────────────────────────────────────────────────────────────────────

  /**
   * Full-text search over messages. Never throws on user text: the query is sanitised, CJK text
   * falls back to substring matching, and an unusable query yields [].
   */
  searchMessages(query: string, options: SearchOptions = {}): SearchHit[] {
    return this.search(query, options).hits;
  }

  /**
   * Like `searchMessages`, but says why nothing could be searched and whether the relaxed pass
   * ran. Plain queries (no FTS5 syntax) match every term first; when that finds fewer than
   * `offset + limit` messages, messages holding any non-stopword term follow, ranked by bm25
   * (`match: 'any_terms'`). Explicit FTS5 syntax runs as written (`match: 'expression'`).
   */
  search(query: string, options: SearchOptions = {}): SearchResult {
    if (typeof query !== 'string' || !query.trim()) return { hits: [] };
    const where: string[] = [];
    const params: unknown[] = [];
    if (options.sourceFilter) {
      where.push(`s.source IN (${options.sourceFilter.map(() => '?').join(',') || 'NULL'})`);
      params.push(...options.sourceFilter);
    }
    if (options.excludeSources && options.excludeSources.length > 0) {
      where.push(`s.source NOT IN (${options.excludeSources.map(() => '?').join(',')})`);
      params.push(...options.excludeSources);
    }
    if (options.roleFilter && options.roleFilter.length > 0) {
      where.push(`m.role IN (${options.roleFilter.map(() => '?').join(',')})`);
      params.push(...options.roleFilter);
    }
    const limit = Math.max(1, Math.min(options.limit ?? 20, 10_000));
    const offset = Math.max(0, options.offset ?? 0);
    const filter = { where, params };
    const explicit = hasFtsSyntax(query);
    const relax = options.relax !== false && !explicit;
    if (hasCjk(query)) return this.searchCjk(query, filter, limit, offset, options.sort, relax);
    const match = sanitizeFtsQuery(query);
    if (!match) {
      return {
        hits: [],
        error: 'The query has no searchable words once FTS5 operators and punctuation are removed.',
      };
    }
    try {
      if (!relax) {
        const label: SearchMatch = explicit ? 'expression' : 'all_terms';
        return { hits: this.ftsQuery('messages_fts', match, filter, limit, offset, options.sort, label) };
      }
      const want = offset + limit;
      const strict = this.ftsQuery('messages_fts', match, filter, want, 0, options.sort, 'all_terms');
      if (strict.length >= want) return { hits: strict.slice(offset) };
      const relaxed = relaxedFtsQuery(query);
      if (!relaxed.match) {
        if (strict.length > 0) return { hits: strict.slice(offset) };
        return {
          hits: [],
          error: `The query has only common words (${relaxed.dropped.join(', ')}); add a topic keyword, or omit the query to browse recent sessions.`,
        };
      }
      // Same expression on the same index would return the same rows: nothing to add.
      if (relaxed.match === match && this.relaxedTable === 'messages_fts')
        return { hits: strict.slice(offset) };
      // Most relevant loose matches first; a requested temporal order applies within them.
      let loose = this.ftsQuery(
        this.relaxedTable,
        relaxed.match,
        filter,
        want + strict.length,
        0,
        undefined,
        'any_terms',
      );
      if (options.sort) loose = sortByTime(loose, options.sort);
      const seen = new Set(strict.map((h) => h.id));
      const merged = [...strict, ...loose.filter((h) => !seen.has(h.id))];
      return {
        hits: merged.slice(offset, offset + limit),
        relaxed: { terms: relaxed.terms, dropped: relaxed.dropped },
      };
    } catch (error) {
      this.logger.debug('FTS5 query failed after sanitising', { error: String(error) });
      return { hits: [], error: 'The search index could not parse this query. Use plain keywords.' };
    }
  }

  private ftsQuery(
    table: string,
    match: string,
    filter: { where: string[]; params: unknown[] },
    limit: number,
    offset: number,
    sort: SearchOptions['sort'],
    label: SearchMatch,
  ): SearchHit[] {
    if (!sort && offset + limit <= RANKED_PAGE_MAX)
      return this.rankedFtsQuery(table, match, filter, limit, offset, label);
    const order =
      sort === 'newest' ? 'm.timestamp DESC, m.id DESC' : sort === 'oldest' ? 'm.timestamp, m.id' : 'rank';
    const sql = `
      SELECT m.id, m.session_id, m.role, snippet(${table}, 0, '>>>', '<<<', '...', 40) AS snippet,
             m.timestamp, m.tool_name, s.source, s.model, s.started_at AS session_started
      FROM ${table}
      JOIN messages m ON m.id = ${table}.rowid
      JOIN sessions s ON s.id = m.session_id
      WHERE ${table} MATCH ? ${filter.where.length > 0 ? `AND ${filter.where.join(' AND ')}` : ''}
      ORDER BY ${order}
      LIMIT ? OFFSET ?`;
    const rows = this.db.prepare(sql).all(match, ...filter.params, limit, offset) as Array<
      Omit<SearchHit, 'match'>
    >;
    return rows.map((r) => ({ ...r, match: label }));
  }

  /**
   * Relevance order in steps (decision 0305): FTS5 ranks the matching rowids alone (`ORDER BY rank,
   * rowid` with a LIMIT is SQLite's top-N sort, where `ORDER BY rank` beside the joins had FTS5
   * sort every match), the joins and filters run on that ranked prefix, and snippets and columns
   * are read for the page only. The prefix grows until it holds the page or every match. Same rows
   * in the same order as one joined query, read in one snapshot.
   */
  private rankedFtsQuery(
    table: string,
    match: string,
    filter: { where: string[]; params: unknown[] },
    limit: number,
    offset: number,
    label: SearchMatch,
  ): SearchHit[] {
    const want = offset + limit;
    const ranked = this.searchStatement(
      `SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rank, rowid LIMIT ?`,
    ).pluck();
    // Messages (and sessions) that exist and pass the filters, among the given ids.
    const passing = this.searchStatement(
      `SELECT m.id FROM messages m JOIN sessions s ON s.id = m.session_id
       WHERE m.id IN (SELECT value FROM json_each(?))${filter.where.length > 0 ? ` AND ${filter.where.join(' AND ')}` : ''}`,
    ).pluck();
    const columns = this.searchStatement(`
      SELECT m.id, m.session_id, m.role, snippet(${table}, 0, '>>>', '<<<', '...', 40) AS snippet,
             m.timestamp, m.tool_name, s.source, s.model, s.started_at AS session_started
      FROM ${table}
      JOIN messages m ON m.id = ${table}.rowid
      JOIN sessions s ON s.id = m.session_id
      WHERE ${table} MATCH ? AND ${table}.rowid IN (SELECT value FROM json_each(?))`);
    return this.db.transaction(() => {
      let prefix = filter.where.length > 0 ? Math.max(64, 4 * want) : want;
      let page: number[];
      for (;;) {
        const ids = ranked.all(match, prefix) as number[];
        const ok = new Set(passing.all(JSON.stringify(ids), ...filter.params) as number[]);
        const kept = ids.filter((id) => ok.has(id));
        if (kept.length >= want || ids.length < prefix) {
          page = kept.slice(offset, want);
          break;
        }
        prefix *= 4;
      }
      if (page.length === 0) return [];
      const rows = columns.all(match, JSON.stringify(page)) as Array<Omit<SearchHit, 'match'>>;
      const byId = new Map(rows.map((r) => [r.id, r]));
      return page.flatMap((id) => {
        const row = byId.get(id);
        return row ? [{ ...row, match: label }] : [];
      });
    })();
  }

  private searchStatement(sql: string): Database.Statement {
    let stmt = this.searchStmts.get(sql);
    if (!stmt) {
      if (this.searchStmts.size >= 64) this.searchStmts.clear();
      stmt = this.db.prepare(sql);
      this.searchStmts.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * CJK: unicode61 does not segment CJK text, so every term is matched as a substring (LIKE, all
   * terms required) and a snippet is cut around the first term. When relaxing, messages holding
   * some of the terms follow, those holding more terms first.
   */
  private searchCjk(
    query: string,
    filter: { where: string[]; params: unknown[] },
    limit: number,
    offset: number,
    sort: SearchOptions['sort'],
    relax: boolean,
  ): SearchResult {
    const terms = likeTerms(query);
    if (terms.length === 0) return { hits: [] };
    if (!relax) return { hits: this.searchLike(terms, 'all', filter, limit, offset, sort) };
    const want = offset + limit;
    const strict = this.searchLike(terms, 'all', filter, want, 0, sort);
    const loose = terms.filter((t) => !QUERY_STOPWORDS.has(t.toLowerCase()));
    if (strict.length >= want || loose.length < 2) return { hits: strict.slice(offset) };
    const seen = new Set(strict.map((h) => h.id));
    const extra = this.searchLike(loose, 'any', filter, want + strict.length, 0, sort).filter(
      (h) => !seen.has(h.id),
    );
    return {
      hits: [...strict, ...extra].slice(offset, offset + limit),
      relaxed: {
        terms: loose,
        dropped: terms.filter((t) => QUERY_STOPWORDS.has(t.toLowerCase())).map((t) => t.toLowerCase()),
      },
    };
  }

  private searchLike(
    terms: readonly string[],
    mode: 'all' | 'any',
    filter: { where: string[]; params: unknown[] },
    limit: number,
    offset: number,
    sort: SearchOptions['sort'],
  ): SearchHit[] {
    const like = "m.content LIKE ? ESCAPE '\\'";
    const conds = terms.map(() => like);
    const time = sort === 'oldest' ? 'm.timestamp, m.id' : 'm.timestamp DESC, m.id DESC';
    // any: rank by how many terms a message holds, then by time.
    const order = mode === 'all' ? time : `(${conds.map((c) => `(${c})`).join(' + ')}) DESC, ${time}`;
    const matchCond = mode === 'all' ? conds.join(' AND ') : `(${conds.join(' OR ')})`;
    const sql = `
      SELECT m.id, m.session_id, m.role, m.content, m.timestamp, m.tool_name, s.source, s.model,
             s.started_at AS session_started
      FROM messages m JOIN sessions s ON s.id = m.session_id
      WHERE ${[matchCond, ...filter.where].join(' AND ')}
      ORDER BY ${order}
      LIMIT ? OFFSET ?`;
    const patterns = terms.map((t) => `%${escapeLike(t)}%`);
    const orderParams = mode === 'all' ? [] : patterns;
    const rows = this.db
      .prepare(sql)
      .all(...patterns, ...filter.params, ...orderParams, limit, offset) as Array<
      Omit<SearchHit, 'match'> & { content: string }
    >;
    const label: SearchMatch = mode === 'all' ? 'all_terms' : 'any_terms';
    return rows.map(({ content, ...hit }) => {
      const first = mode === 'all' ? terms[0]! : (terms.find((t) => includesCi(content, t)) ?? terms[0]!);
      return { ...hit, snippet: likeSnippet(content ?? '', first), match: label };
    });
  }

  // ── deletion ────────────────────────────────────────────────────────────────────────────

  /** Delete a session and its messages; its children are orphaned (parent set to NULL), not deleted. */
  deleteSession(sessionId: string): boolean {
    return this.write(() => {
      if (!this.getSession(sessionId)) return false;
      this.db
        .prepare('UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?')
        .run(sessionId);
      this.db.prepare('DELETE FROM messages WHERE session_id = ?').run(sessionId);
      this.db.prepare('DELETE FROM sessions WHERE id = ?').run(sessionId);
      return true;
    });
  }

  /** Delete ENDED sessions started more than `olderThanDays` ago; returns how many. */
  pruneSessions(olderThanDays = 90, source?: string): number {
    const cutoff = Date.now() / 1000 - olderThanDays * 86_400;
    return this.write(() => {
      const rows = (
        source
          ? this.db
              .prepare('SELECT id FROM sessions WHERE started_at < ? AND ended_at IS NOT NULL AND source = ?')
              .all(cutoff, source)
          : this.db
              .prepare('SELECT id FROM sessions WHERE started_at < ? AND ended_at IS NOT NULL')
              .all(cutoff)
      ) as Array<{ id: string }>;
      const orphan = this.db.prepare(
        'UPDATE sessions SET parent_session_id = NULL WHERE parent_session_id = ?',
      );
      const delMsgs = this.db.prepare('DELETE FROM messages WHERE session_id = ?');
      const delSession = this.db.prepare('DELETE FROM sessions WHERE id = ?');
      for (const { id } of rows) orphan.run(id);
      for (const { id } of rows) {
        delMsgs.run(id);
        delSession.run(id);
      }
      return rows.length;
    });
  }

  close(): void {
    if (this.closed) return;
    if (!this.readonly) this.checkpoint();
    this.db.close();
    this.closed = true;
  }

  get isOpen(): boolean {
    return !this.closed;
  }
}

function includesCi(text: string | null, term: string): boolean {
  return (text ?? '').toLowerCase().includes(term.toLowerCase());
}

function sortByTime(hits: SearchHit[], sort: 'newest' | 'oldest'): SearchHit[] {
  const dir = sort === 'newest' ? -1 : 1;
  return [...hits].sort((a, b) => dir * (a.timestamp - b.timestamp || a.id - b.id));
}

function likeSnippet(content: string, term: string): string {
  const at = content.toLowerCase().indexOf(term.toLowerCase());
  if (at < 0) return content.slice(0, 80);
  const start = Math.max(0, at - 40);
  const end = Math.min(content.length, at + term.length + 40);
  return (
    (start > 0 ? '...' : '') +
    content.slice(start, at) +
    '>>>' +
    content.slice(at, at + term.length) +
    '<<<' +
    content.slice(at + term.length, end) +
    (end < content.length ? '...' : '')
  );
}
