import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { SessionStore } from './session-store';

/**
 * A state.db as the newer Python agent (schema v30) leaves it: in-place compaction keeps replaced
 * rows with `active = 0`; sessions can be `archived` or `hidden`.
 */
function v30Home(): string {
  const home = tempHome();
  const s = new SessionStore({ hermesHome: home });
  s.createSession('visible', { source: 'cli' });
  s.createSession('archived', { source: 'cli' });
  s.createSession('hidden', { source: 'telegram' });
  s.appendMessages('visible', [
    { role: 'user', content: 'old question about the kiwi orchard' },
    { role: 'assistant', content: 'old answer about the kiwi orchard' },
    { role: 'user', content: 'summary of the kiwi orchard talk' },
    { role: 'user', content: 'new question about pruning' },
  ]);
  s.appendMessage('archived', { role: 'user', content: 'archived talk about the kiwi orchard' });
  s.appendMessage('hidden', { role: 'user', content: 'hidden talk about the kiwi orchard' });
  s.close();
  const db = new Database(`${home}/state.db`);
  db.exec(`
    ALTER TABLE messages ADD COLUMN active INTEGER DEFAULT 1;
    ALTER TABLE messages ADD COLUMN compacted INTEGER DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN archived INTEGER DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN hidden INTEGER DEFAULT 0;
    UPDATE messages SET active = 0, compacted = 1 WHERE content LIKE 'old %';
    UPDATE sessions SET archived = 1 WHERE id = 'archived';
    UPDATE sessions SET hidden = 1 WHERE id = 'hidden';
  `);
  db.close();
  return home;
}

describe('a v30 state.db (compacted rows, archived and hidden sessions)', () => {
  it('lists only the sessions the Python agent lists; hidden ones on request', () => {
    const s = new SessionStore({ hermesHome: v30Home() });
    expect(s.listSessionsRich().map((r) => r.id)).toEqual(['visible']);
    expect(
      s
        .listSessionsRich({ includeHidden: true })
        .map((r) => r.id)
        .sort(),
    ).toEqual(['archived', 'hidden', 'visible']);
    s.close();
  });

  it('leaves compacted rows out of the conversation, keeps them searchable and in search windows', () => {
    const s = new SessionStore({ hermesHome: v30Home() });
    expect(s.getMessages('visible').map((m) => m.content)).toEqual([
      'summary of the kiwi orchard talk',
      'new question about pruning',
    ]);
    expect(s.getMessagesAsConversation('visible')).toHaveLength(2);
    const hit = s.searchMessages('old answer kiwi').find((h) => h.session_id === 'visible');
    expect(hit).toBeDefined();
    const around = s.getMessagesAround('visible', hit!.id, 1);
    expect(around.window.map((m) => m.id)).toContain(hit!.id);
    s.close();
  });

  it('an older state.db without those columns is read as before', () => {
    const home = tempHome();
    const s = new SessionStore({ hermesHome: home });
    s.createSession('a', { source: 'cli' });
    s.appendMessage('a', { role: 'user', content: 'hello' });
    expect(s.listSessionsRich().map((r) => r.id)).toEqual(['a']);
    expect(s.getMessages('a')).toHaveLength(1);
    s.close();
  });
});
