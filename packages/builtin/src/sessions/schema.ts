/**
 * The reference's classic state.db schema (v6), verbatim in structure so a Python Hermes install
 * and this package read and write the same database. Newer reference databases (v7+) carry extra
 * columns and tables; every statement here is `IF NOT EXISTS` and inserts name their columns, so
 * those databases are used as they are and never downgraded.
 */
export const SCHEMA_VERSION = 6;

export const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    user_id TEXT,
    model TEXT,
    model_config TEXT,
    system_prompt TEXT,
    parent_session_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    end_reason TEXT,
    message_count INTEGER DEFAULT 0,
    tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0,
    output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0,
    cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0,
    billing_provider TEXT,
    billing_base_url TEXT,
    billing_mode TEXT,
    estimated_cost_usd REAL,
    actual_cost_usd REAL,
    cost_status TEXT,
    cost_source TEXT,
    pricing_version TEXT,
    title TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);

CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content TEXT,
    tool_call_id TEXT,
    tool_calls TEXT,
    tool_name TEXT,
    timestamp REAL NOT NULL,
    token_count INTEGER,
    finish_reason TEXT,
    reasoning TEXT,
    reasoning_details TEXT,
    codex_reasoning_items TEXT
);

CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source);
CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp);
`;

export const FTS_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
    content,
    content=messages,
    content_rowid=id
);

CREATE TRIGGER IF NOT EXISTS messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
END;

CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
`;

/** Columns added by the v2–v6 migrations, re-applied idempotently to older databases. */
export const MIGRATION_COLUMNS: ReadonlyArray<readonly [table: string, column: string, type: string]> = [
  ['messages', 'finish_reason', 'TEXT'],
  ['sessions', 'title', 'TEXT'],
  ['sessions', 'cache_read_tokens', 'INTEGER DEFAULT 0'],
  ['sessions', 'cache_write_tokens', 'INTEGER DEFAULT 0'],
  ['sessions', 'reasoning_tokens', 'INTEGER DEFAULT 0'],
  ['sessions', 'billing_provider', 'TEXT'],
  ['sessions', 'billing_base_url', 'TEXT'],
  ['sessions', 'billing_mode', 'TEXT'],
  ['sessions', 'estimated_cost_usd', 'REAL'],
  ['sessions', 'actual_cost_usd', 'REAL'],
  ['sessions', 'cost_status', 'TEXT'],
  ['sessions', 'cost_source', 'TEXT'],
  ['sessions', 'pricing_version', 'TEXT'],
  ['messages', 'reasoning', 'TEXT'],
  ['messages', 'reasoning_details', 'TEXT'],
  ['messages', 'codex_reasoning_items', 'TEXT'],
];

export const TITLE_INDEX_SQL =
  'CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL';

/**
 * This package's own second index over `messages.content`: the same external-content FTS5 shape
 * with the Porter stemmer, used only for the relaxed pass of natural-language searches (decision
 * 0301). The reference's `messages_fts` is left exactly as it is; Python Hermes never reads this
 * table, and its triggers keep it in sync whichever process writes a message.
 */
export const STEMMED_FTS_TABLE = 'hm_messages_fts';

export const STEMMED_FTS_SQL = `
CREATE VIRTUAL TABLE IF NOT EXISTS hm_messages_fts USING fts5(
    content,
    content=messages,
    content_rowid=id,
    tokenize='porter unicode61'
);

CREATE TRIGGER IF NOT EXISTS hm_messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO hm_messages_fts(rowid, content) VALUES (new.id, new.content);
END;

CREATE TRIGGER IF NOT EXISTS hm_messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO hm_messages_fts(hm_messages_fts, rowid, content) VALUES('delete', old.id, old.content);
END;

CREATE TRIGGER IF NOT EXISTS hm_messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO hm_messages_fts(hm_messages_fts, rowid, content) VALUES('delete', old.id, old.content);
    INSERT INTO hm_messages_fts(rowid, content) VALUES (new.id, new.content);
END;

INSERT INTO hm_messages_fts(hm_messages_fts) VALUES('rebuild');
`;
