/**
 * Relevance-ordered search runs in steps (rank the rowids, filter a prefix, read the page; decision
 * 0305). It must return what one joined `ORDER BY rank` query returns: same rows, snippets and
 * order, including ties (identical messages), filters that reject most of the best matches (the
 * prefix has to grow), pagination, and an index row whose message is gone.
 */
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { SessionStore } from './session-store';

const WORDS = 'garden tomato soup recipe flight paris hiking lake dog puppy concert guitar'.split(' ');

function seeded(home: string): SessionStore {
  const store = new SessionStore({ hermesHome: home });
  let x = 7;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  for (let s = 0; s < 40; s++) {
    const id = `s${s}`;
    // Most sessions are cron: a filter excluding them drops most of the best matches.
    store.createSession(id, { source: s % 5 === 0 ? 'cli' : 'cron', startedAt: 1_700_000_000 + s * 3600 });
    const messages = [];
    for (let i = 0; i < 30; i++) {
      const words = Array.from(
        { length: 3 + Math.floor(rnd() * 8) },
        () => WORDS[Math.floor(rnd() * WORDS.length)],
      );
      // Every tenth message is the same text: equal bm25, ordered by id.
      const content = i % 10 === 0 ? 'the garden tomato soup' : words.join(' ');
      messages.push({ role: i % 2 ? 'assistant' : 'user', content, timestamp: 1_700_000_000 + s * 3600 + i });
    }
    store.appendMessages(id, messages);
  }
  return store;
}

/** The single joined query relevance order used to be. */
function reference(
  db: Database.Database,
  match: string,
  where: string,
  params: unknown[],
  limit: number,
  offset: number,
) {
  return db
    .prepare(
      `SELECT m.id, m.session_id, m.role, snippet(messages_fts, 0, '>>>', '<<<', '...', 40) AS snippet,
              m.timestamp, m.tool_name, s.source, s.model, s.started_at AS session_started
       FROM messages_fts JOIN messages m ON m.id = messages_fts.rowid JOIN sessions s ON s.id = m.session_id
       WHERE messages_fts MATCH ? ${where} ORDER BY rank LIMIT ? OFFSET ?`,
    )
    .all(match, ...params, limit, offset)
    .map((r) => ({ ...(r as object), match: 'expression' }));
}

describe('ranked session search', () => {
  it('returns the rows, snippets and order of one joined ORDER BY rank query', () => {
    const home = tempHome();
    const store = seeded(home);
    const db = new Database(path.join(home, 'state.db'), { readonly: true });
    const queries = [
      'garden OR tomato',
      'soup OR dog OR concert',
      'paris OR lake',
      'guitar OR puppy OR hiking',
    ];
    let compared = 0;
    for (const q of queries) {
      for (const [limit, offset] of [
        [10, 0],
        [5, 3],
        [50, 0],
        [20, 200],
      ] as const) {
        const plain = store.searchMessages(q, { limit, offset });
        expect(plain).toEqual(reference(db, q, '', [], limit, offset));
        const filtered = store.searchMessages(q, {
          limit,
          offset,
          excludeSources: ['cron'],
          roleFilter: ['user'],
        });
        expect(filtered).toEqual(
          reference(db, q, 'AND s.source NOT IN (?) AND m.role IN (?)', ['cron', 'user'], limit, offset),
        );
        compared += plain.length + filtered.length;
      }
    }
    expect(compared).toBeGreaterThan(200);
    db.close();
    store.close();
  });

  it('skips an index row whose message is gone, as the join did', () => {
    const home = tempHome();
    const store = seeded(home);
    const top = store.searchMessages('garden OR tomato', { limit: 3 });
    // Remove a message behind the FTS index's back (no trigger): its index row stays.
    const raw = new Database(path.join(home, 'state.db'));
    raw.exec('DROP TRIGGER messages_fts_delete; DROP TRIGGER hm_messages_fts_delete');
    raw.prepare('DELETE FROM messages WHERE id = ?').run(top[0]!.id);
    const expected = reference(raw, 'garden OR tomato', '', [], 10, 0);
    raw.close();
    const after = store.searchMessages('garden OR tomato', { limit: 10 });
    expect(after.map((h) => h.id)).not.toContain(top[0]!.id);
    expect(after).toEqual(expected);
    expect(after).toHaveLength(10);
    store.close();
  });
});
