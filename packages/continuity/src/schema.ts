/**
 * The database schema as an ordered list of migrations (`PRAGMA user_version` = the last applied).
 * A migration is never edited once released: changes are new entries at the end (decision 0901).
 */
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

const V1 = `
CREATE TABLE records (
    seq           INTEGER PRIMARY KEY AUTOINCREMENT,
    id            TEXT NOT NULL UNIQUE,
    kind          TEXT NOT NULL,
    title         TEXT NOT NULL,
    summary       TEXT NOT NULL,
    details       TEXT,
    scope_project TEXT,
    scope_user    TEXT,
    scope_repo    TEXT,
    scope_profile TEXT,
    tags          TEXT NOT NULL DEFAULT '[]',
    entities      TEXT NOT NULL DEFAULT '[]',
    confidence    REAL NOT NULL,
    importance    REAL NOT NULL,
    trust_level   TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'active',
    status_reason TEXT,
    superseded_by TEXT,
    expires_at    TEXT,
    observed_at   TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    content_key   TEXT NOT NULL,
    skill_links   TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX records_status      ON records(status);
CREATE INDEX records_content_key ON records(content_key);

CREATE TABLE record_sources (
    record_id  TEXT NOT NULL REFERENCES records(id) ON DELETE CASCADE ON UPDATE CASCADE,
    ordinal    INTEGER NOT NULL,
    type       TEXT NOT NULL,
    ref        TEXT NOT NULL,
    segment_id INTEGER,
    excerpt    TEXT,
    session_id TEXT,
    PRIMARY KEY (record_id, ordinal)
);
CREATE INDEX record_sources_segment  ON record_sources(segment_id);
CREATE INDEX record_sources_type_ref ON record_sources(type, ref);

-- rowid = records.seq; written by the store in the same transaction as the record.
CREATE VIRTUAL TABLE records_fts USING fts5(
    title, summary, details, tags, entities, sources,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE record_vectors (
    seq    INTEGER PRIMARY KEY,
    model  TEXT NOT NULL,
    dim    INTEGER NOT NULL,
    vector BLOB NOT NULL
);

CREATE TABLE edges (
    src        TEXT NOT NULL,
    dst        TEXT NOT NULL,
    relation   TEXT NOT NULL,
    weight     REAL NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (src, dst, relation)
);
CREATE INDEX edges_dst ON edges(dst);

CREATE TABLE source_documents (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    path        TEXT NOT NULL,
    sha256      TEXT NOT NULL,
    title       TEXT,
    bytes       INTEGER NOT NULL,
    observed_at TEXT,
    ingested_at TEXT NOT NULL,
    UNIQUE (path, sha256)
);

CREATE TABLE source_segments (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id INTEGER NOT NULL REFERENCES source_documents(id) ON DELETE CASCADE,
    ordinal     INTEGER NOT NULL,
    heading     TEXT,
    speaker     TEXT,
    text        TEXT NOT NULL,
    start_line  INTEGER,
    end_line    INTEGER,
    UNIQUE (document_id, ordinal)
);

CREATE TABLE retrieval_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         TEXT NOT NULL,
    session_id TEXT,
    origin     TEXT NOT NULL,
    query      TEXT NOT NULL,
    query_gate TEXT,
    injected   TEXT NOT NULL,
    decisions  TEXT NOT NULL,
    chars      INTEGER NOT NULL
);

CREATE TABLE provider_state (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'records, sources, FTS, vectors, edges, documents, events, state',
    up: (db) => db.exec(V1),
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
