#!/usr/bin/env python3
"""The older (mainline) holographic plugin's storage, transcribed for compatibility tests.

That plugin stored HRR vectors as raw float64 bytes and decoded them strictly (numpy's
``frombuffer``: a blob whose size is not a multiple of 8, such as a newer ``HRR1`` + float32
blob, raises), so one vector in the newer format breaks its search, probe and bank rebuilds.
This file reproduces its schema, entity rules, HRR encoding and add path with the standard
library only (math/struct instead of numpy; float64 throughout, as numpy computes).

  gen <db> [dim]   write the committed fixture (test/fixtures/older-float64-store.db)
  check <db> [dim] [query]  decode every vector and bank as that plugin does, run an FTS
                   search and a probe, add one fact; print JSON (with "error" on the first
                   blob that plugin cannot decode)
"""

import hashlib
import json
import math
import os
import re
import sqlite3
import struct
import sys

TWO_PI = 2.0 * math.pi

SCHEMA = """
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
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
END;
CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE ON facts BEGIN
    INSERT INTO facts_fts(facts_fts, rowid, content, tags) VALUES ('delete', old.fact_id, old.content, old.tags);
    INSERT INTO facts_fts(rowid, content, tags) VALUES (new.fact_id, new.content, new.tags);
END;
CREATE TABLE IF NOT EXISTS memory_banks (
    bank_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    bank_name  TEXT NOT NULL UNIQUE,
    vector     BLOB NOT NULL,
    dim        INTEGER NOT NULL,
    fact_count INTEGER DEFAULT 0,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP
);
"""

RE_CAPITALIZED = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
RE_DOUBLE_QUOTE = re.compile(r'"([^"]+)"')
RE_SINGLE_QUOTE = re.compile(r"'([^']+)'")
RE_AKA = re.compile(r"(\w+(?:\s+\w+)*)\s+(?:aka|also known as)\s+(\w+(?:\s+\w+)*)", re.IGNORECASE)


# --- HRR (phase vectors, float64) -------------------------------------------------------------

def atom(word, dim):
    vals = []
    for i in range(math.ceil(dim / 16)):
        vals.extend(struct.unpack("<16H", hashlib.sha256(f"{word}:{i}".encode()).digest()))
    return [v * (TWO_PI / 65536.0) for v in vals[:dim]]


def bind(a, b):
    return [(x + y) % TWO_PI for x, y in zip(a, b)]


def unbind(a, b):
    return [(x - y) % TWO_PI for x, y in zip(a, b)]


def bundle(*vs):
    dim = len(vs[0])
    re_ = [sum(math.cos(v[i]) for v in vs) for i in range(dim)]
    im_ = [sum(math.sin(v[i]) for v in vs) for i in range(dim)]
    return [math.atan2(im_[i], re_[i]) % TWO_PI for i in range(dim)]


def similarity(a, b):
    return sum(math.cos(x - y) for x, y in zip(a, b)) / len(a)


def encode_text(text, dim):
    toks = [t for t in (w.strip(".,!?;:\"'()[]{}") for w in text.lower().split()) if t]
    return bundle(*[atom(t, dim) for t in toks]) if toks else atom("__hrr_empty__", dim)


def encode_fact(content, entities, dim):
    parts = [bind(encode_text(content, dim), atom("__hrr_role_content__", dim))]
    role = atom("__hrr_role_entity__", dim)
    parts += [bind(atom(e.lower(), dim), role) for e in entities]
    return bundle(*parts)


def phases_to_bytes(phases):
    return struct.pack("<%dd" % len(phases), *phases)


def bytes_to_phases(data):
    # numpy.frombuffer(data, dtype=float64): the size must be a multiple of 8.
    if len(data) % 8 != 0:
        raise ValueError("buffer size must be a multiple of element size")
    return list(struct.unpack("<%dd" % (len(data) // 8), data))


# --- Store ------------------------------------------------------------------------------------

def extract_entities(text):
    seen, out = set(), []

    def add(name):
        s = name.strip()
        if s and s.lower() not in seen:
            seen.add(s.lower())
            out.append(s)

    for rx in (RE_CAPITALIZED, RE_DOUBLE_QUOTE, RE_SINGLE_QUOTE):
        for m in rx.finditer(text):
            add(m.group(1))
    for m in RE_AKA.finditer(text):
        add(m.group(1))
        add(m.group(2))
    return out


def resolve_entity(conn, name):
    row = conn.execute("SELECT entity_id FROM entities WHERE name LIKE ?", (name,)).fetchone()
    if row:
        return row[0]
    row = conn.execute(
        "SELECT entity_id FROM entities WHERE ',' || aliases || ',' LIKE '%,' || ? || ',%'", (name,)
    ).fetchone()
    if row:
        return row[0]
    return conn.execute("INSERT INTO entities (name) VALUES (?)", (name,)).lastrowid


def rebuild_bank(conn, category, dim):
    rows = conn.execute(
        "SELECT hrr_vector FROM facts WHERE category = ? AND hrr_vector IS NOT NULL", (category,)
    ).fetchall()
    name = f"cat:{category}"
    if not rows:
        conn.execute("DELETE FROM memory_banks WHERE bank_name = ?", (name,))
        return
    vectors = [bytes_to_phases(r[0]) for r in rows]
    conn.execute(
        """INSERT INTO memory_banks (bank_name, vector, dim, fact_count, updated_at)
           VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
           ON CONFLICT(bank_name) DO UPDATE SET vector = excluded.vector, dim = excluded.dim,
             fact_count = excluded.fact_count, updated_at = excluded.updated_at""",
        (name, phases_to_bytes(bundle(*vectors)), dim, len(vectors)),
    )


def add_fact(conn, content, category, dim, tags=""):
    content = content.strip()
    fact_id = conn.execute(
        "INSERT INTO facts (content, category, tags, trust_score) VALUES (?, ?, ?, 0.5)",
        (content, category, tags),
    ).lastrowid
    for name in extract_entities(content):
        conn.execute(
            "INSERT OR IGNORE INTO fact_entities (fact_id, entity_id) VALUES (?, ?)",
            (fact_id, resolve_entity(conn, name)),
        )
    names = [r[0] for r in conn.execute(
        "SELECT e.name FROM entities e JOIN fact_entities fe ON fe.entity_id = e.entity_id WHERE fe.fact_id = ?",
        (fact_id,),
    )]
    conn.execute("UPDATE facts SET hrr_vector = ? WHERE fact_id = ?",
                 (phases_to_bytes(encode_fact(content, names, dim)), fact_id))
    rebuild_bank(conn, category, dim)
    conn.commit()
    return fact_id


FACTS = [
    ("Jane Doe leads the Atlas project at Hermes Labs", "project"),
    ("The Atlas project deploys with a blue-green rollback", "project"),
    ("User prefers dark mode in every editor", "user_pref"),
    ("User's favourite text editor is Neovim", "user_pref"),
    ("The staging server runs Debian with PostgreSQL 16", "tool"),
    ("Jane Doe aka JD reviews every database migration", "general"),
    ('The "nightly-backup" job writes to the Berlin bucket', "tool"),
    ("Deployment rollback failed twice on Friday", "general"),
]


def gen(path, dim):
    if os.path.exists(path):
        os.remove(path)
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    for content, category in FACTS:
        add_fact(conn, content, category, dim)
    conn.execute("UPDATE facts SET created_at = '2025-01-15 10:00:00', updated_at = '2025-01-15 10:00:00'")
    conn.execute("UPDATE entities SET created_at = '2025-01-15 10:00:00'")
    conn.execute("UPDATE memory_banks SET updated_at = '2025-01-15 10:00:00'")
    conn.commit()
    conn.execute("VACUUM")
    conn.close()
    print(json.dumps({"wrote": path, "facts": len(FACTS), "dim": dim}))


def check(path, dim):
    conn = sqlite3.connect(path)
    out = {"facts": 0, "banks": 0}
    try:
        for fact_id, blob in conn.execute("SELECT fact_id, hrr_vector FROM facts WHERE hrr_vector IS NOT NULL"):
            v = bytes_to_phases(blob)
            if len(v) != dim:
                raise ValueError(f"fact {fact_id}: dim {len(v)} != {dim}")
            out["facts"] += 1
        for name, blob in conn.execute("SELECT bank_name, vector FROM memory_banks"):
            bytes_to_phases(blob)
            out["banks"] += 1
        # The plugin's probe: unbind the entity key from each fact and compare with the content role.
        key = bind(atom("jane doe", dim), atom("__hrr_role_entity__", dim))
        role = atom("__hrr_role_content__", dim)
        scored = []
        for fact_id, content, blob, trust in conn.execute(
            "SELECT fact_id, content, hrr_vector, trust_score FROM facts WHERE hrr_vector IS NOT NULL"
        ):
            residual = unbind(bytes_to_phases(blob), key)
            text = bind(encode_text(content, dim), role)
            scored.append(((similarity(residual, text) + 1) / 2 * trust, content))
        scored.sort(reverse=True)
        out["probe_top"] = scored[0][1] if scored else None
        out["search"] = [r[0] for r in conn.execute(
            "SELECT f.content FROM facts f JOIN facts_fts fts ON fts.rowid = f.fact_id WHERE facts_fts MATCH ? ORDER BY fts.rank",
            (sys.argv[4] if len(sys.argv) > 4 else "rollback",),
        )]
        # A new fact written by this plugin next to ours: its bank rebuild decodes every vector.
        add_fact(conn, "Older plugin wrote this after the TypeScript agent", "general", dim)
        out["added"] = True
    except ValueError as e:
        print(json.dumps({"error": str(e), **out}))
        return 0
    finally:
        conn.close()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    cmd, db = sys.argv[1], sys.argv[2]
    d = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
    sys.exit(gen(db, d) if cmd == "gen" else check(db, d))
