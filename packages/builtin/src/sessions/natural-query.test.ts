import * as path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempHome } from '../../test/helpers/temp';
import { hasFtsSyntax, relaxedFtsQuery } from './fts-query';
import { FTS_SQL, SCHEMA_SQL } from './schema';
import { handleSessionSearch } from './session-search';
import { SessionStore } from './session-store';

type Json = Record<string, unknown> & { results: Array<Record<string, unknown>> };
const parse = (s: string) => JSON.parse(s) as Json;

/** Two conversations in the shape a chat history has (speaker-prefixed turns), plus noise. */
function seeded(options: { stemmedIndex?: boolean } = {}) {
  const home = tempHome();
  const s = new SessionStore({ hermesHome: home, ...options });
  s.createSession('conv-a', { source: 'cli', startedAt: 1000 });
  const a = s.appendMessages('conv-a', [
    {
      role: 'user',
      content: 'Caroline: I finally called the adoption agency about the paperwork.',
      timestamp: 1001,
    },
    { role: 'user', content: 'Melanie: That is wonderful news! How did it go?', timestamp: 1002 },
    { role: 'user', content: 'Caroline: They said the home study starts next month.', timestamp: 1003 },
    { role: 'user', content: 'Melanie: We adopted a puppy from the shelter last year.', timestamp: 1004 },
  ]);
  s.createSession('conv-b', { source: 'cli', startedAt: 2000 });
  const b = s.appendMessages('conv-b', [
    { role: 'user', content: 'set up the kubernetes ingress with nginx', timestamp: 2001 },
    { role: 'assistant', content: 'kubernetes cluster upgraded', timestamp: 2002 },
    { role: 'assistant', content: 'the ingress controller restarted', timestamp: 2003 },
    { role: 'user', content: 'I write Python, not Java.', timestamp: 2004 },
    { role: 'user', content: '我们讨论了数据库迁移的问题', timestamp: 2005 },
  ]);
  return { s, home, a, b };
}

describe('query analysis', () => {
  it.each([
    ['"docker networking"', true],
    ['alpha OR beta', true],
    ['python NOT java', true],
    ['deploy*', true],
    ['(alpha beta)', true],
    ['content:deploy', true],
    ['^start', true],
    ['NEAR(a b)', true],
    ['What did Caroline say about the adoption agency?', false],
    ['where did we leave the nginx or traefik decision', false],
    ['chat-send P2.2', false],
    ["it's 10:30, what's next?", false],
  ])('hasFtsSyntax(%j) → %s', (q, expected) => {
    expect(hasFtsSyntax(q)).toBe(expected);
  });

  it('drops question and stop words, keeps topic terms and dotted/hyphenated phrases', () => {
    const r = relaxedFtsQuery('What did Caroline say about the adoption agency?');
    expect(r.terms).toEqual(['Caroline', 'say', 'adoption', 'agency']);
    expect(r.match).toBe('Caroline OR say OR adoption OR agency');
    expect(r.dropped).toEqual(['what', 'did', 'about', 'the']);
    expect(relaxedFtsQuery('how do I configure chat-send in P2.2').match).toBe(
      'configure OR "chat-send" OR "P2.2"',
    );
    expect(relaxedFtsQuery('Kube kube KUBE').terms).toEqual(['Kube']);
    expect(relaxedFtsQuery('what did you do?')).toMatchObject({ match: '', terms: [] });
  });
});

describe('searchMessages with natural-language queries', () => {
  it('a question finds the message it is about, ranked first and flagged any_terms', () => {
    const { s, a } = seeded();
    const r = s.search('What did Caroline say about the adoption agency?');
    expect(r.error).toBeUndefined();
    expect(r.hits[0]).toMatchObject({ id: a[0], match: 'any_terms', session_id: 'conv-a' });
    expect(r.hits[0]!.snippet).toContain('>>>');
    expect(r.relaxed).toEqual({
      terms: ['Caroline', 'say', 'adoption', 'agency'],
      dropped: expect.any(Array),
    });
    expect(s.searchMessages('What did Caroline say about the adoption agency?')[0]!.id).toBe(a[0]);
    s.close();
  });

  it('the stemmed relaxed pass matches other word forms (adopting → adopted)', () => {
    const { s, a } = seeded();
    const hits = s.searchMessages('who was adopting puppies?');
    expect(hits.map((h) => h.id)).toContain(a[3]);
    expect(hits.every((h) => h.match === 'any_terms')).toBe(true);
    // Without the stemmed index the relaxed pass uses the reference's table: exact words only.
    const plain = seeded({ stemmedIndex: false }).s;
    expect(plain.searchMessages('who was adopting puppies?')).toEqual([]);
    plain.close();
    s.close();
  });

  it('every-term hits come first, then any-term hits, without duplicates', () => {
    const { s, b } = seeded();
    const hits = s.searchMessages('kubernetes ingress');
    expect(hits[0]).toMatchObject({ id: b[0], match: 'all_terms' });
    expect(hits.slice(1).map((h) => h.match)).toEqual(['any_terms', 'any_terms']);
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length);
    expect(hits.map((h) => h.id).sort()).toEqual([b[0], b[1], b[2]].sort());
    s.close();
  });

  it('enough every-term hits means no relaxed pass', () => {
    const { s } = seeded();
    const r = s.search('kubernetes ingress', { limit: 1 });
    expect(r.hits).toHaveLength(1);
    expect(r.hits[0]!.match).toBe('all_terms');
    expect(r.relaxed).toBeUndefined();
    s.close();
  });

  it('pages across the every-term / any-term boundary without gaps or repeats', () => {
    const { s } = seeded();
    const q = 'kubernetes ingress nginx';
    const all = s.searchMessages(q, { limit: 10 }).map((h) => h.id);
    const paged = [0, 1, 2].flatMap((offset) => s.searchMessages(q, { limit: 1, offset }).map((h) => h.id));
    expect(paged).toEqual(all.slice(0, 3));
    s.close();
  });

  it('relax: false keeps the reference behaviour (every term, nothing else)', () => {
    const { s } = seeded();
    expect(s.searchMessages('What did Caroline say about the adoption agency?', { relax: false })).toEqual(
      [],
    );
    expect(s.searchMessages('kubernetes ingress', { relax: false }).map((h) => h.match)).toEqual([
      'all_terms',
    ]);
    s.close();
  });

  it('explicit FTS5 syntax is run as written and never loosened', () => {
    const { s, a, b } = seeded();
    const same = (q: string) =>
      expect(s.searchMessages(q).map((h) => h.id)).toEqual(
        s.searchMessages(q, { relax: false }).map((h) => h.id),
      );
    expect(s.searchMessages('"adoption paperwork"')).toEqual([]); // phrase absent: no fallback
    expect(s.searchMessages('"adoption agency"').map((h) => h.id)).toEqual([a[0]]);
    expect(s.searchMessages('python NOT java')).toEqual([]);
    expect(s.searchMessages('nginx OR puppy').map((h) => h.match)).toEqual(['expression', 'expression']);
    expect(
      s
        .searchMessages('kube*')
        .map((h) => h.id)
        .sort(),
    ).toEqual([b[0], b[1]].sort());
    expect(s.searchMessages('(caroline agency) zebra')).toEqual([]);
    for (const q of [
      '"adoption paperwork"',
      'python NOT java',
      'nginx OR puppy',
      'kube*',
      'content:nginx zebra',
    ])
      same(q);
    s.close();
  });

  it('a stopword-only query is a clear error unless the words literally occur', () => {
    const { s } = seeded();
    const r = s.search('what did you do?');
    expect(r.hits).toEqual([]);
    expect(r.error).toMatch(/only common words \(what, did, you, do\).*browse/);
    s.appendMessage('conv-b', { role: 'user', content: 'what did you do with the logs?' });
    expect(s.search('what did you do?').hits).toHaveLength(1);
    const tool = parse(handleSessionSearch(s, { query: 'where is it?' }));
    expect(tool.success).toBe(false);
    expect(tool.error).toMatch(/only common words.*omit the query to browse/);
    s.close();
  });

  it('CJK still searches by substring; several CJK terms relax to any of them', () => {
    const { s, b } = seeded();
    expect(s.searchMessages('数据库')).toMatchObject([{ id: b[4], match: 'all_terms' }]);
    expect(s.searchMessages('迁移 数据库')).toMatchObject([{ id: b[4], match: 'all_terms' }]);
    const loose = s.searchMessages('数据库 不存在');
    expect(loose).toMatchObject([{ id: b[4], match: 'any_terms' }]);
    expect(loose[0]!.snippet).toContain('>>>数据库<<<');
    expect(s.searchMessages('数据库 不存在', { relax: false })).toEqual([]);
    expect(s.searchMessages('不存在')).toEqual([]);
    s.close();
  });
});

describe('the stemmed index (hm_messages_fts)', () => {
  it('leaves the reference schema untouched and stays in sync through deletes', () => {
    const { s, home } = seeded();
    // The reference's objects, as the reference schema alone creates them.
    const objects = (db: Database.Database) =>
      db
        .prepare(
          "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'hm\\_%' ESCAPE '\\' ORDER BY name",
        )
        .all();
    const reference = new Database(':memory:');
    reference.exec(SCHEMA_SQL + FTS_SQL);
    const db = new Database(path.join(home, 'state.db'), { readonly: true });
    const ours = objects(db).filter(
      (o) => !String((o as { name: string }).name).startsWith('idx_sessions_title'),
    );
    expect(ours).toEqual(objects(reference));
    const stemmed = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE name LIKE 'hm\\_%' ESCAPE '\\' AND (type = 'trigger' OR name = 'hm_messages_fts')",
      )
      .all() as Array<{
      name: string;
      sql: string;
    }>;
    expect(stemmed.map((o) => o.name).sort()).toEqual([
      'hm_messages_fts',
      'hm_messages_fts_delete',
      'hm_messages_fts_insert',
      'hm_messages_fts_update',
    ]);
    expect(stemmed.find((o) => o.name === 'hm_messages_fts')!.sql).toMatch(/porter unicode61/);
    reference.close();
    db.close();
    expect(s.searchMessages('who adopted a puppy')).not.toEqual([]);
    s.deleteSession('conv-a');
    expect(s.searchMessages('who adopted a puppy')).toEqual([]);
    s.close();
  });

  it('is back-filled when an existing database is opened, and absent from read-only opens', () => {
    const { s, home } = seeded({ stemmedIndex: false });
    s.close();
    const ro = new SessionStore({ hermesHome: home, readonly: true });
    // No stemmed table: the relaxed pass falls back to the reference's index (exact words).
    expect(ro.searchMessages('who adopted a puppy?')).not.toEqual([]);
    expect(ro.searchMessages('adopting puppies')).toEqual([]);
    ro.close();
    const again = new SessionStore({ hermesHome: home });
    expect(again.searchMessages('adopting puppies')).not.toEqual([]);
    again.close();
  });
});

describe('session_search reports how results matched', () => {
  it('a question returns results flagged any_terms with the terms used', () => {
    const { s, a } = seeded();
    const r = parse(handleSessionSearch(s, { query: 'What did Caroline say about the adoption agency?' }));
    expect(r.success).toBe(true);
    expect(r.match).toBe('any_terms');
    expect(r.results[0]).toMatchObject({ session_id: 'conv-a', match: 'any_terms', match_message_id: a[0] });
    expect(r.relaxed_terms).toEqual(['Caroline', 'say', 'adoption', 'agency']);
    expect(String(r.message)).toMatch(/only some of: Caroline, say, adoption, agency/);
    s.close();
  });

  it('all-terms and explicit queries say so', () => {
    const { s } = seeded();
    const all = parse(handleSessionSearch(s, { query: 'adoption agency', limit: 1 }));
    expect(all).toMatchObject({ match: 'all_terms' });
    expect(all.results[0]!.match).toBe('all_terms');
    expect(all.message).toBeUndefined();
    const expr = parse(handleSessionSearch(s, { query: '"home study"' }));
    expect(expr).toMatchObject({ match: 'expression' });
    const none = parse(handleSessionSearch(s, { query: '"no such phrase here"' }));
    expect(none).toMatchObject({ success: true, match: 'none', count: 0 });
    s.close();
  });

  it('every-term sessions rank above any-term sessions, even interactive over cron', () => {
    const { s } = seeded();
    s.createSession('cron-1', { source: 'cron', startedAt: 3000 });
    s.appendMessage('cron-1', {
      role: 'user',
      content: 'nightly kubernetes ingress report',
      timestamp: 3001,
    });
    s.createSession('conv-c', { source: 'cli', startedAt: 4000 });
    s.appendMessage('conv-c', { role: 'user', content: 'kubernetes kubernetes kubernetes', timestamp: 4001 });
    const r = parse(handleSessionSearch(s, { query: 'kubernetes ingress', limit: 5 }));
    expect(r.results.map((x) => [x.session_id, x.match])).toEqual([
      ['conv-b', 'all_terms'],
      ['cron-1', 'all_terms'],
      ['conv-c', 'any_terms'],
    ]);
    s.close();
  });
});
