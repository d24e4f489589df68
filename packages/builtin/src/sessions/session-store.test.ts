import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { hasCjk, sanitizeFtsQuery } from './fts-query';
import { SessionStore, newSessionId } from './session-store';

function open(home = tempHome()) {
  return new SessionStore({ hermesHome: home });
}

describe('SessionStore basics (84)', () => {
  it('creates state.db 0600 in WAL mode with foreign keys and schema version 6', () => {
    const home = tempHome();
    const s = open(home);
    const db = new Database(path.join(home, 'state.db'), { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((db.prepare('SELECT version FROM schema_version').get() as { version: number }).version).toBe(6);
    db.close();
    expect(fs.statSync(path.join(home, 'state.db')).mode & 0o777).toBe(0o600);
    s.close();
  });

  it('createSession twice is harmless; endSession sets ended_at and reason; reopen clears them', () => {
    const s = open();
    s.createSession('s1', { source: 'cli', model: 'm' });
    s.createSession('s1', { source: 'telegram' });
    expect(s.getSession('s1')?.source).toBe('cli');
    s.endSession('s1', 'session_reset');
    const ended = s.getSession('s1')!;
    expect(ended.end_reason).toBe('session_reset');
    expect(typeof ended.ended_at).toBe('number');
    s.reopenSession('s1');
    expect(s.getSession('s1')?.ended_at).toBeNull();
    s.close();
  });

  it('records messages with tool calls and counters; reads them back as a conversation', () => {
    const s = open();
    s.createSession('s1');
    const call = { id: 'c1', type: 'function', function: { name: 'terminal', arguments: '{"cmd":"ls"}' } };
    const ids = s.appendMessages('s1', [
      { role: 'user', content: 'list files' },
      { role: 'assistant', content: null, toolCalls: [call] },
      { role: 'tool', content: 'a.txt', toolCallId: 'c1', toolName: 'terminal' },
      { role: 'assistant', content: 'There is a.txt', reasoning: 'short' },
    ]);
    expect(ids).toHaveLength(4);
    const row = s.getSession('s1')!;
    expect(row.message_count).toBe(4);
    expect(row.tool_call_count).toBe(1);
    const conv = s.getMessagesAsConversation('s1');
    expect(conv[1]).toEqual({ role: 'assistant', content: null, tool_calls: [call] });
    expect(conv[2]).toEqual({ role: 'tool', content: 'a.txt', tool_call_id: 'c1', tool_name: 'terminal' });
    expect(conv[3]).toMatchObject({ reasoning: 'short' });
    expect(s.appendMessage('s1', { role: 'user', content: 'again' })).toBeGreaterThan(ids[3]!);
    s.close();
  });

  it('lists sessions with preview and last_active; titles are unique and sanitised', () => {
    const s = open();
    s.createSession('a', { startedAt: 1000 });
    s.appendMessage('a', {
      role: 'user',
      content: `${'long question '.repeat(10)}\nsecond line`,
      timestamp: 1001,
    });
    s.createSession('b', { startedAt: 2000 });
    const list = s.listSessionsRich();
    expect(list.map((x) => x.id)).toEqual(['b', 'a']);
    expect(list[1]!.preview).toBe(`${'long question '.repeat(10)}`.slice(0, 60) + '...');
    expect(list[1]!.last_active).toBe(1001);
    expect(s.listSessionsRich({ orderByLastActive: true })[0]!.id).toBe('b');
    expect(s.setSessionTitle('a', '  My \u200b session\n')).toBe(true);
    expect(s.getSessionTitle('a')).toBe('My session');
    expect(() => s.setSessionTitle('b', 'My session')).toThrow(/already in use/);
    expect(s.getNextTitleInLineage('My session')).toBe('My session #2');
    expect(s.resolveSessionByTitle('My session')).toBe('a');
    expect(() => SessionStore.sanitizeTitle('x'.repeat(101))).toThrow(/too long/);
    expect(s.resolveSessionId('b')).toBe('b');
    s.close();
  });

  it('new session ids follow YYYYMMDD_HHMMSS_<6 hex>', () => {
    expect(newSessionId(new Date(2026, 0, 2, 3, 4, 5))).toMatch(/^20260102_030405_[0-9a-f]{6}$/);
  });
});

describe('deletion and pruning (86–87)', () => {
  it('deleting a parent orphans its children', () => {
    const s = open();
    s.createSession('p');
    s.createSession('c', { parentSessionId: 'p' });
    s.appendMessage('p', { role: 'user', content: 'parent text' });
    expect(s.deleteSession('p')).toBe(true);
    expect(s.getSession('p')).toBeNull();
    expect(s.getSession('c')?.parent_session_id).toBeNull();
    expect(s.searchMessages('parent')).toEqual([]);
    expect(s.deleteSession('p')).toBe(false);
    s.close();
  });

  it('prunes only ended sessions older than the cutoff', () => {
    const s = open();
    const old = Date.now() / 1000 - 100 * 86_400;
    s.createSession('old-ended', { startedAt: old });
    s.endSession('old-ended', 'cli_close');
    s.createSession('old-open', { startedAt: old });
    s.createSession('child', { parentSessionId: 'old-ended' });
    s.createSession('new-ended');
    s.endSession('new-ended', 'cli_close');
    expect(s.pruneSessions(90)).toBe(1);
    expect(s.getSession('old-ended')).toBeNull();
    expect(s.getSession('old-open')).not.toBeNull();
    expect(s.getSession('new-ended')).not.toBeNull();
    expect(s.getSession('child')?.parent_session_id).toBeNull();
    s.close();
  });
});

describe('FTS5 search and the query sanitiser (85)', () => {
  function seeded() {
    const s = open();
    s.createSession('s1', { source: 'cli' });
    s.appendMessages('s1', [
      { role: 'user', content: 'How do I configure chat-send in my-app.config.ts?' },
      { role: 'assistant', content: 'Set P2.2 in the config; docker networking uses a bridge.' },
      { role: 'user', content: 'I write C++ and Python, not Java.' },
      { role: 'user', content: '我们讨论了数据库迁移的问题' },
    ]);
    return s;
  }

  it.each([
    '"unbalanced quote',
    'hello AND',
    'OR world',
    '***',
    'C++',
    'chat-send',
    'P2.2',
    'my-app.config.ts',
    '(unbalanced',
    'a:b',
    'NOT',
    'AND OR NOT',
    'foo NOT NOT bar',
    'x*y*',
    '^start',
    '{braces}',
    'what? why! 100% @home #tag $var ~tilde `tick` [x] <y> |z| \\ /',
    '-leading -dash',
    '...',
    'NEAR(a b)',
    "it's",
  ])('never raises for %j', (q) => {
    const s = seeded();
    expect(() => s.searchMessages(q)).not.toThrow();
    expect(Array.isArray(s.searchMessages(q))).toBe(true);
    // The sanitiser, not the catch-all, must make it safe: FTS5 itself never rejects the query.
    const r = s.search(q);
    if (r.error) expect(r.error).toMatch(/no searchable words|only common words/);
    s.close();
  });

  it('keeps phrases, operators and prefixes; quotes dotted and hyphenated terms', () => {
    expect(sanitizeFtsQuery('"docker networking" OR kube*')).toBe('"docker networking" OR kube*');
    expect(sanitizeFtsQuery('chat-send P2.2')).toBe('"chat-send" "P2.2"');
    expect(sanitizeFtsQuery('hello AND')).toBe('hello');
    expect(sanitizeFtsQuery('***')).toBe('');
    expect(sanitizeFtsQuery('C++')).toBe('C');
    expect(sanitizeFtsQuery('python NOT java')).toBe('python NOT java');
  });

  it('finds hyphenated, dotted and C++ terms and returns snippets with markers', () => {
    const s = seeded();
    const hits = s.searchMessages('chat-send');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.snippet).toContain('>>>');
    expect(hits[0]).toMatchObject({ session_id: 's1', role: 'user', source: 'cli' });
    expect(s.searchMessages('P2.2')).toHaveLength(1);
    expect(s.searchMessages('C++').length).toBeGreaterThan(0);
    expect(s.searchMessages('docker', { roleFilter: ['user'] })).toEqual([]);
    expect(s.searchMessages('docker', { excludeSources: ['cli'] })).toEqual([]);
    s.close();
  });

  it('searches CJK text by substring', () => {
    const s = seeded();
    expect(hasCjk('数据库')).toBe(true);
    const hits = s.searchMessages('数据库');
    expect(hits).toHaveLength(1);
    expect(hits[0]!.snippet).toContain('>>>数据库<<<');
    expect(s.searchMessages('迁移 数据库')).toHaveLength(1);
    expect(s.searchMessages('不存在')).toEqual([]);
    s.close();
  });

  it('explains an unusable query instead of failing', () => {
    const s = seeded();
    const r = s.search('*** ???');
    expect(r.hits).toEqual([]);
    expect(r.error).toMatch(/no searchable words/);
    s.close();
  });
});

describe('windows around messages', () => {
  it('returns ±window with before/after counts and bookends', () => {
    const s = open();
    s.createSession('s');
    const ids = s.appendMessages(
      's',
      Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}` })),
    );
    const around = s.getMessagesAround('s', ids[15]!, 2);
    expect(around.window.map((m) => m.content)).toEqual(['m13', 'm14', 'm15', 'm16', 'm17']);
    expect(around.messages_before).toBe(15);
    expect(around.messages_after).toBe(14);
    const view = s.getAnchoredView('s', ids[15]!, { window: 5, bookend: 3 });
    expect(view.bookend_start.map((m) => m.content)).toEqual(['m0', 'm1', 'm2']);
    expect(view.bookend_end.map((m) => m.content)).toEqual(['m27', 'm28', 'm29']);
    expect(s.getMessagesAround('s', 999_999, 2).window).toEqual([]);
    s.close();
  });
});

describe('an impossible home (§12 red team)', () => {
  it.runIf(process.platform === 'linux')(
    'fails at once with a clear error instead of spinning in mkdir',
    () => {
      // Node's recursive mkdirSync loops forever under /proc/self; the store uses core's ensureDir.
      expect(() => new SessionStore({ hermesHome: '/proc/self/hermes' })).toThrow(
        /Could not create the folder \/proc\/self\/hermes/,
      );
    },
  );
});

describe('opening under concurrent agent writes (§12 red team)', () => {
  it('waits for a writer holding the lock past the busy timeout while it back-fills a Python home', {
    timeout: 60_000,
  }, async () => {
    const home = tempHome();
    // A Python-created state.db has no stemmed index: the first open here back-fills it (a write).
    new SessionStore({ hermesHome: home, stemmedIndex: false }).close();
    const { spawn } = await import('node:child_process');
    const holder = spawn(
      process.execPath,
      [path.resolve(__dirname, '../../test/fixtures/hold-db-lock.mjs'), path.join(home, 'state.db'), '2500'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.once('data', () => resolve());
      holder.once('exit', (code) => reject(new Error(`holder exited ${code}`)));
    });
    const store = new SessionStore({ hermesHome: home }); // 1 s busy timeout < 2.5 s hold
    try {
      store.createSession('s1', { source: 'cli' });
      expect(store.getSession('s1')).not.toBeNull();
    } finally {
      store.close();
    }
    await exited;
  });
});
