import * as fs from 'node:fs';
import * as path from 'node:path';
import { silentLogger } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../test/helpers/temp';
import { SessionStore, createBuiltinProvider } from './index';

/**
 * A HERMES_HOME written by hand from the reference's formats (hermes-core spec §4, §8, §12), as a
 * Python Hermes install leaves it, including a state.db created with the classic DDL at schema v4
 * (before the v5 billing and v6 reasoning columns) so the migration path is exercised.
 */
const REFERENCE_V4_DDL = `
CREATE TABLE schema_version (version INTEGER NOT NULL);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0, title TEXT,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT
);
CREATE INDEX idx_sessions_source ON sessions(source);
CREATE INDEX idx_sessions_parent ON sessions(parent_session_id);
CREATE INDEX idx_sessions_started ON sessions(started_at DESC);
CREATE INDEX idx_messages_session ON messages(session_id, timestamp);
CREATE UNIQUE INDEX idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL;
CREATE VIRTUAL TABLE messages_fts USING fts5(content, content=messages, content_rowid=id);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
INSERT INTO schema_version VALUES (4);
INSERT INTO sessions (id, source, model, started_at, ended_at, end_reason, message_count, title)
  VALUES ('20260301_101500_a1b2c3', 'cli', 'hermes-3', 1772360100.25, 1772360500.5, 'cli_close', 3, 'Nginx setup');
INSERT INTO messages (session_id, role, content, timestamp) VALUES
  ('20260301_101500_a1b2c3', 'user', 'Help me configure nginx reverse proxy for grafana', 1772360101.0),
  ('20260301_101500_a1b2c3', 'assistant', NULL, 1772360102.0),
  ('20260301_101500_a1b2c3', 'assistant', 'Done: proxy_pass to http://127.0.0.1:3000', 1772360103.0);
UPDATE messages SET tool_calls = '[{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\\"command\\": \\"nginx -t\\"}"}}]'
  WHERE role = 'assistant' AND content IS NULL;
`;

function referenceHome(): string {
  const home = tempHome();
  fs.mkdirSync(path.join(home, 'memories'));
  fs.writeFileSync(
    path.join(home, 'memories', 'MEMORY.md'),
    'Server runs Debian 12 with nginx\n§\nDeploy script lives in ~/ops/deploy.sh\nand needs sudo\n§\nPrices use the § sign in invoices',
  );
  fs.writeFileSync(path.join(home, 'memories', 'USER.md'), 'Name: Ada\n§\nPrefers concise answers');
  fs.writeFileSync(
    path.join(home, 'config.yaml'),
    'model:\n  default: hermes-3\nmemory:\n  memory_enabled: true\n  user_profile_enabled: true\n  memory_char_limit: 2200\n  user_char_limit: 1375\n  provider: ""\n',
  );
  const db = new Database(path.join(home, 'state.db'));
  db.exec(REFERENCE_V4_DDL);
  db.close();
  return home;
}

const ctx = (home: string) => ({
  hermesHome: home,
  platform: 'cli',
  agentContext: 'primary' as const,
  logger: silentLogger,
});

describe('compatibility with a reference HERMES_HOME', () => {
  it('reads the curated files, the config and the old state.db', async () => {
    const home = referenceHome();
    const p = createBuiltinProvider();
    p.initialize('20260302_090000_d4e5f6', ctx(home));
    const store = p.memoryStore!;
    expect(store.entries('memory')).toEqual([
      'Server runs Debian 12 with nginx',
      'Deploy script lives in ~/ops/deploy.sh\nand needs sudo',
      'Prices use the § sign in invoices',
    ]);
    expect(store.entries('user')).toEqual(['Name: Ada', 'Prefers concise answers']);
    expect(p.systemPromptBlock()).toContain('MEMORY (your personal notes) [5% — 124/2,200 chars]');

    const sessions = p.sessionStore!;
    const old = sessions.getSession('20260301_101500_a1b2c3')!;
    expect(old).toMatchObject({ source: 'cli', title: 'Nginx setup', end_reason: 'cli_close' });
    const conv = sessions.getMessagesAsConversation('20260301_101500_a1b2c3');
    expect((conv[1]!.tool_calls as Array<{ function: { name: string } }>)[0]!.function.name).toBe('terminal');
    const hit = JSON.parse(await p.handleToolCall('session_search', { query: 'grafana proxy' })) as {
      results: Array<{ session_id: string; title: string }>;
    };
    expect(hit.results[0]).toMatchObject({ session_id: '20260301_101500_a1b2c3', title: 'Nginx setup' });
    await p.shutdown();

    // Migrated to v6 in place: the reasoning and billing columns exist now.
    const db = new Database(path.join(home, 'state.db'), { readonly: true });
    expect((db.prepare('SELECT version FROM schema_version').get() as { version: number }).version).toBe(6);
    const cols = (db.prepare('PRAGMA table_info(messages)').all() as Array<{ name: string }>).map(
      (c) => c.name,
    );
    expect(cols).toEqual(expect.arrayContaining(['reasoning', 'reasoning_details', 'codex_reasoning_items']));
    db.close();
  });

  it('what we write follows the reference format rules', async () => {
    const home = referenceHome();
    const p = createBuiltinProvider();
    p.initialize('20260302_090000_d4e5f6', ctx(home));
    await p.handleToolCall('memory', {
      action: 'add',
      target: 'memory',
      content: '  Uses  pnpm\n\nmonorepo  ',
    });
    await p.handleToolCall('memory', {
      action: 'replace',
      target: 'user',
      old_text: 'concise',
      content: 'Prefers concise answers with code',
    });
    p.syncTurn('what did we set up for grafana?', 'An nginx reverse proxy.');
    await p.flush();
    await p.shutdown();

    // Curated files: entries trimmed, joined by "\n§\n", no trailing newline, no duplicates, within limits, 0600.
    for (const [name, limit] of [
      ['MEMORY.md', 2200],
      ['USER.md', 1375],
    ] as const) {
      const file = path.join(home, 'memories', name);
      const raw = fs.readFileSync(file, 'utf8');
      const entries = raw.split('\n§\n');
      expect(entries.every((e) => e === e.trim() && e.length > 0)).toBe(true);
      expect(new Set(entries).size).toBe(entries.length);
      expect(raw.length).toBeLessThanOrEqual(limit);
      expect(raw.endsWith('\n')).toBe(false);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(
      fs
        .readFileSync(path.join(home, 'memories', 'MEMORY.md'), 'utf8')
        .endsWith('\n§\nUses  pnpm\n\nmonorepo'),
    ).toBe(true);

    // state.db: the reference's own queries read our rows.
    const db = new Database(path.join(home, 'state.db'), { readonly: true });
    const s = db.prepare('SELECT * FROM sessions WHERE id = ?').get('20260302_090000_d4e5f6') as Record<
      string,
      unknown
    >;
    expect(s).toMatchObject({ source: 'cli', message_count: 2, tool_call_count: 0 });
    expect(typeof s.started_at).toBe('number');
    const rows = db
      .prepare('SELECT role, content, timestamp FROM messages WHERE session_id = ? ORDER BY timestamp, id')
      .all('20260302_090000_d4e5f6') as Array<{ role: string; timestamp: number }>;
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant']);
    expect(rows[0]!.timestamp).toBeGreaterThan(1_700_000_000);
    const fts = db
      .prepare(
        'SELECT m.session_id FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ?',
      )
      .all('grafana') as Array<{ session_id: string }>;
    expect(fts.map((r) => r.session_id).sort()).toEqual(['20260301_101500_a1b2c3', '20260302_090000_d4e5f6']);
    db.close();
  });

  it.each([
    ['v4', REFERENCE_V4_DDL],
    ['v1', referenceV1Ddl()],
  ])('a read-only SessionStore reads a %s state.db as it is, without migrating it', (_v, ddl) => {
    // Before: it prepared the insert statements at open, so a schema before v6 failed with
    // "table messages has no column named reasoning" (and v1–v2 also lack titles).
    const home = tempHome();
    const file = path.join(home, 'state.db');
    const db = new Database(file);
    db.exec(ddl);
    const titled = (db.prepare('PRAGMA table_info(sessions)').all() as Array<{ name: string }>).some(
      (c) => c.name === 'title',
    );
    expect(titled).toBe(ddl === REFERENCE_V4_DDL);
    db.close();
    const before = fs.readFileSync(file);
    const store = new SessionStore({ hermesHome: home, readonly: true });
    try {
      const id = '20260301_101500_a1b2c3';
      expect(store.listSessionsRich({ limit: 5 }).map((s) => s.id)).toEqual([id]);
      expect(store.searchMessages('grafana', { limit: 5 }).map((m) => m.session_id)).toEqual([id]);
      const conv = store.getMessagesAsConversation(id);
      expect(conv.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
      expect(store.resolveSessionByTitle('Nginx setup')).toBe(ddl === REFERENCE_V4_DDL ? id : null);
      expect(() => store.appendMessage(id, { role: 'user', content: 'x' })).toThrow(/opened read-only/);
    } finally {
      store.close();
    }
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(home)).toEqual(['state.db']);
  });
});

/** The reference's first schema (v1): before finish_reason (v2) and session titles (v3, v4's index). */
function referenceV1Ddl(): string {
  return REFERENCE_V4_DDL.replace(
    'output_tokens INTEGER DEFAULT 0, title TEXT,',
    'output_tokens INTEGER DEFAULT 0,',
  )
    .replace(', token_count INTEGER, finish_reason TEXT', ', token_count INTEGER')
    .replace(/CREATE UNIQUE INDEX idx_sessions_title_unique[^;]*;/, '')
    .replace('end_reason, message_count, title)', 'end_reason, message_count)')
    .replace(", 3, 'Nginx setup')", ', 3)')
    .replace('VALUES (4)', 'VALUES (1)');
}
