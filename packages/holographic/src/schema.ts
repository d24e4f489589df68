/**
 * The reference schema, verbatim (so a database written by the Python plugin opens unchanged and a
 * database we write opens in Python), plus side tables of the default pipeline. Side tables are
 * kept in sync by pure-SQL triggers that only queue ids, so Python writers never need our code.
 */
export const REFERENCE_SCHEMA = `
CREATE TABLE IF NOT EXISTS facts (
    fact_id         INTEGER PRIMARY KEY AUTOINCREMENT,
    content         TEXT NOT NULL UNIQUE,
    category        TEXT DEFAULT 'general',
    tags            TEXT DEFAULT '',
    trust_score     REAL DEFAULT 0.5,
    retrieval_count INTEGER DEFAULT 0,
    helpful_count   INTEGER DEFAULT 0,
    created_at      TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at      TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    hrr_vector      BLOB
);

CREATE TABLE IF NOT EXISTS entities (
    entity_id   INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL,
    entity_type TEXT DEFAULT 'unknown',
    aliases     TEXT DEFAULT '',
    created_at  TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE IF NOT EXISTS fact_entities (
    fact_id   INTEGER REFERENCES facts(fact_id),
    entity_id INTEGER REFERENCES entities(entity_id),
    PRIMARY KEY (fact_id, entity_id)
);

CREATE INDEX IF NOT EXISTS idx_facts_trust    ON facts(trust_score DESC);
CREATE INDEX IF NOT EXISTS idx_facts_category ON facts(category);
CREATE INDEX IF NOT EXISTS idx_entities_name  ON entities(name);

CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts
    USING fts5(content, tags, content=facts, content_rowid=fact_id);

CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
    INSERT INTO facts_fts(rowid, content, tags)
        VALUES (new.fact_id, new.content, new.tags);
END;

CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags)
        VALUES ('delete', old.fact_id, old.content, old.tags);
END;

CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags)
        VALUES ('delete', old.fact_id, old.content, old.tags);
    INSERT INTO facts_fts(rowid, content, tags)
        VALUES (new.fact_id, new.content, new.tags);
END;

CREATE TABLE IF NOT EXISTS memory_banks (
    bank_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_name  TEXT NOT NULL UNIQUE,
    vector     BLOB NOT NULL,
    dim        INTEGER NOT NULL,
    fact_count INTEGER DEFAULT 0,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
`;

/** Bumped when the side index's text preparation changes: a bump re-indexes every fact on open. */
export const SIDE_INDEX_VERSION = '1';

export const SIDE_SCHEMA = `
CREATE TABLE IF NOT EXISTS hm_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE VIRTUAL TABLE IF NOT EXISTS hm_facts_fts
    USING fts5(body, tags, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS hm_facts_vocab USING fts5vocab(hm_facts_fts, 'row');

CREATE TABLE IF NOT EXISTS hm_dirty (fact_id INTEGER PRIMARY KEY);

CREATE TRIGGER IF NOT EXISTS hm_facts_dirty_ai AFTER INSERT ON facts BEGIN
    INSERT OR IGNORE INTO hm_dirty(fact_id) VALUES (new.fact_id);
END;
CREATE TRIGGER IF NOT EXISTS hm_facts_dirty_au AFTER UPDATE OF content, tags ON facts BEGIN
    INSERT OR IGNORE INTO hm_dirty(fact_id) VALUES (old.fact_id);
    INSERT OR IGNORE INTO hm_dirty(fact_id) VALUES (new.fact_id);
END;
CREATE TRIGGER IF NOT EXISTS hm_facts_dirty_ad AFTER DELETE ON facts BEGIN
    INSERT OR IGNORE INTO hm_dirty(fact_id) VALUES (old.fact_id);
END;

-- Entity lookups: the bridge reads fact_entities by entity_id (its primary key starts with fact_id).
CREATE INDEX IF NOT EXISTS hm_fact_entities_entity ON fact_entities(entity_id);

-- Any change to entities bumps a version, so the in-memory entity mirror reloads (entity-cache.ts).
INSERT OR IGNORE INTO hm_meta(key, value) VALUES ('entities_version', '0');
CREATE TRIGGER IF NOT EXISTS hm_entities_ai AFTER INSERT ON entities BEGIN
    UPDATE hm_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'entities_version';
END;
CREATE TRIGGER IF NOT EXISTS hm_entities_au AFTER UPDATE ON entities BEGIN
    UPDATE hm_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'entities_version';
END;
CREATE TRIGGER IF NOT EXISTS hm_entities_ad AFTER DELETE ON entities BEGIN
    UPDATE hm_meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'entities_version';
END;

CREATE TABLE IF NOT EXISTS hm_embeddings (
    fact_id INTEGER PRIMARY KEY,
    model   TEXT NOT NULL,
    dim     INTEGER NOT NULL,
    vector  BLOB NOT NULL
);
`;
