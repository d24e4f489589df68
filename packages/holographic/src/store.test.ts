import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedConnectionCount } from './connection';
import { extractEntities } from './entities';
import { encodeFact, phasesToBytes } from './hrr';
import { temporalDecay } from './retrieval';
import { REFERENCE_SCHEMA } from './schema';
import { FactStore, type FactStoreOptions } from './store';
import { tempDir, tempStore } from './test-helpers';
import { jaccard, jaccardTokens, sanitizeFtsQuery } from './text';

function makeStore(options: Partial<FactStoreOptions> = {}, dir = tempDir()): FactStore {
  return tempStore({ dbPath: path.join(dir, 'memory_store.db'), ...options });
}

function ftsMatch(store: FactStore, term: string): number[] {
  return (
    store.db
      .prepare('SELECT rowid FROM facts_fts WHERE facts_fts MATCH ? ORDER BY rowid')
      .all(`"${term}"`) as Array<{ rowid: number }>
  ).map((r) => r.rowid);
}

describe('schema and FTS triggers (checklist 3)', () => {
  it('creates the reference tables and keeps facts_fts in sync on insert, update and delete', () => {
    const store = makeStore();
    const tables = (
      store.db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table','view')").all() as Array<{
        name: string;
      }>
    ).map((r) => r.name);
    for (const t of ['facts', 'entities', 'fact_entities', 'facts_fts', 'memory_banks'])
      expect(tables).toContain(t);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('busy_timeout', { simple: true })).toBe(10000);
    const id = store.add('The zebra migration happened');
    expect(ftsMatch(store, 'zebra')).toEqual([id]);
    store.update(id, { content: 'The giraffe migration happened' });
    expect(ftsMatch(store, 'zebra')).toEqual([]);
    expect(ftsMatch(store, 'giraffe')).toEqual([id]);
    store.remove(id);
    expect(ftsMatch(store, 'giraffe')).toEqual([]);
  });

  it('database file is created with mode 0600', () => {
    const store = makeStore();
    expect(fs.statSync(store.dbPath).mode & 0o777).toBe(0o600);
  });
});

describe('add, trust, dedup (checklist 4, 5)', () => {
  it('same content returns the same id and one row; empty content is an error', () => {
    const store = makeStore();
    const a = store.add('  User likes tea  ');
    expect(store.add('User likes tea')).toBe(a);
    expect(store.count()).toBe(1);
    expect(() => store.add('   ')).toThrow(/empty/);
  });
  it('new facts start at default_trust, clamped', () => {
    expect(makeStore().get(makeStore().add('x fact'))).toBeUndefined();
    const s1 = makeStore();
    expect(s1.get(s1.add('a fact'))!.trust_score).toBe(0.5);
    const s2 = makeStore({ defaultTrust: 7 });
    expect(s2.get(s2.add('a fact'))!.trust_score).toBe(1);
    const s3 = makeStore({ defaultTrust: -1 });
    expect(s3.get(s3.add('a fact'))!.trust_score).toBe(0);
  });
});

describe('entities (checklist 11, 12)', () => {
  it('extracts names, quoted spans and both sides of aka; nothing from contractions', () => {
    expect(extractEntities('Jane Doe works at Hermes Agent')).toEqual(['Jane Doe', 'Hermes Agent']);
    expect(extractEntities('\'Jane Doe\' and "Smith & Co"')).toEqual(['Jane Doe', 'Smith & Co']);
    expect(extractEntities('TaskMaster aka task-tracker')).toEqual(['TaskMaster', 'task-tracker']);
    expect(extractEntities("uv's job, not brew)")).toEqual([]);
    expect(extractEntities("I don't think so")).toEqual([]);
    for (const t of [
      'So Apple is next',
      'Verify Apple works',
      'Using Python today',
      'The Playwright tests pass',
    ]) {
      expect(extractEntities(t)).toEqual([]);
    }
    expect(extractEntities("We moved to New York City's center")).toEqual(['New York City']);
  });
  it('resolves names and aliases case-insensitively', () => {
    const store = makeStore();
    const f1 = store.add('Jane Doe joined the team');
    const f2 = store.add('Met JANE DOE at lunch');
    expect(store.entitiesOf(f1)).toEqual(['Jane Doe']);
    // "JANE DOE" is not a capitalised run (all caps), so link by quoting:
    const f3 = store.add('Talked with "jane doe" yesterday');
    expect(store.entitiesOf(f3)).toEqual(['Jane Doe']);
    expect(store.entitiesOf(f2)).toEqual([]);
    store.db.prepare("UPDATE entities SET aliases = 'JD,Janey' WHERE name = 'Jane Doe'").run();
    const f4 = store.add('Called "janey" again');
    expect(store.entitiesOf(f4)).toEqual(['Jane Doe']);
    expect((store.db.prepare('SELECT COUNT(*) AS n FROM entities').get() as { n: number }).n).toBe(1);
  });
});

describe('sanitiser and reference search (checklist 13, 14)', () => {
  it('sanitises queries like the reference', () => {
    expect(sanitizeFtsQuery('what happened with the deployment rollback')).toBe(
      '"happened" OR "deployment" OR "rollback"',
    );
    expect(sanitizeFtsQuery('what is the')).toBe('what is the');
    expect(sanitizeFtsQuery('')).toBe('');
    expect(sanitizeFtsQuery('length-probe (x) "y*"')).toBe('"lengthprobe"');
  });

  it('reference mode ranks the rollback fact first with (0.4 fts + 0.3 jaccard + 0.3 hrr) × trust', () => {
    const store = makeStore({ retrieval: 'reference' });
    const rollback = store.add('The deployment rollback happened after the failed migration');
    store.add('User prefers dark mode in the editor');
    store.add('The deployment pipeline uses GitHub Actions');
    const results = store.search('what happened with the deployment rollback');
    expect(results[0]!.fact_id).toBe(rollback);
    const top = results[0]!;
    const q = jaccardTokens('what happened with the deployment rollback');
    const jac = jaccard(q, jaccardTokens(top.content));
    expect(top.fts_rank).toBe(1);
    // HRR part recomputed independently.
    const expectedMin = (0.4 * 1 + 0.3 * jac + 0.3 * 0) * 0.5;
    const expectedMax = (0.4 * 1 + 0.3 * jac + 0.3 * 1) * 0.5;
    expect(top.score).toBeGreaterThan(expectedMin);
    expect(top.score).toBeLessThan(expectedMax);
    expect(Object.keys(top)).not.toContain('hrr_vector');
  });

  it('default mode also ranks the rollback fact first, and finds stems', () => {
    const store = makeStore();
    const rollback = store.add('The deployment rollback happened after the failed migration');
    store.add('User prefers dark mode in the editor');
    expect(store.search('what happened with the deployment rollback')[0]!.fact_id).toBe(rollback);
    expect(store.search('deployments rolled back')[0]!.fact_id).toBe(rollback);
  });
});

describe('numpy-less fallback (checklist 15)', () => {
  it('weights become 0.6/0.4/0, algebra falls back to search, contradict is empty', () => {
    const store = makeStore({ hrrEnabled: false, retrieval: 'reference' });
    expect(store.retriever.referenceWeights).toEqual({ fts: 0.6, jaccard: 0.4, hrr: 0 });
    const id = store.add('John Doe maintains the billing service');
    expect(store.get(id)).toBeDefined();
    expect(
      (store.db.prepare('SELECT hrr_vector FROM facts').get() as { hrr_vector: unknown }).hrr_vector,
    ).toBeNull();
    expect(store.probe('billing')[0]!.fact_id).toBe(id);
    expect(store.related('billing')[0]!.fact_id).toBe(id);
    expect(store.reason(['billing', 'service'])[0]!.fact_id).toBe(id);
    expect(store.contradict()).toEqual([]);
    expect(store.rebuildAllVectors()).toBe(0);
  });
});

describe('filters, decay, counting (checklist 16, 17, 30)', () => {
  it('min_trust filters search results', () => {
    const store = makeStore();
    const low = store.add('The quarterly report is due Friday');
    store.update(low, { trustDelta: -0.4 });
    expect(store.search('quarterly report')).toEqual([]);
    expect(store.search('quarterly report', { minTrust: 0 })[0]!.fact_id).toBe(low);
  });
  it('a fact aged one half-life decays by 0.5', () => {
    const now = Date.parse('2025-01-11T00:00:00Z');
    expect(temporalDecay('2025-01-01 00:00:00', 10, now)).toBeCloseTo(0.5, 6);
    expect(temporalDecay('2025-02-01 00:00:00', 10, now)).toBe(1);
    expect(temporalDecay('not a date', 10, now)).toBe(1);
    expect(temporalDecay('2025-01-01 00:00:00', 0, now)).toBe(1);
  });
  it('retrieval_count goes up by one per returned fact; no hits change nothing', () => {
    const store = makeStore();
    const a = store.add('Alpha project ships in May');
    const b = store.add('Beta project ships in June');
    store.search('alpha project');
    store.search('alpha project');
    expect(store.get(a)!.retrieval_count).toBe(2);
    const before = store.get(b)!.retrieval_count;
    store.search('zzzz nothing matches');
    expect(store.get(b)!.retrieval_count).toBe(before);
  });
});

describe('algebraic queries (checklist 18, 19, 20)', () => {
  it('probe ranks facts with the entity above unrelated ones', () => {
    const store = makeStore();
    const j1 = store.add('John Doe prefers Rust for services');
    const j2 = store.add('John Doe lives in Berlin');
    store.add('The build uses esbuild');
    store.add('Coffee is served at nine');
    const top = store
      .probe('John Doe')
      .slice(0, 2)
      .map((r) => r.fact_id)
      .sort();
    expect(top).toEqual([j1, j2].sort());
    expect(store.probe('John Doe', { category: 'general' }).length).toBeGreaterThan(0);
  });
  it('reason ranks a fact linked to both entities first', () => {
    const store = makeStore();
    const both = store.add('Alice Smith and Bob Jones wrote the parser');
    store.add('Alice Smith likes hiking');
    store.add('Bob Jones likes chess');
    store.add('The weather is mild');
    expect(store.reason(['Alice Smith', 'Bob Jones'])[0]!.fact_id).toBe(both);
  });
  it('contradict finds facts sharing an entity with divergent content', () => {
    const store = makeStore();
    store.add('Project Falcon deadline is in March with the backend team');
    store.add('Project Falcon was cancelled yesterday by finance');
    store.add('Unrelated note about lunch');
    const pairs = store.contradict();
    expect(pairs.length).toBeGreaterThan(0);
    const p = pairs[0]!;
    expect(p.contradiction_score).toBeGreaterThanOrEqual(0.3);
    expect(Object.keys(p).sort()).toEqual(
      [
        'content_similarity',
        'contradiction_score',
        'entity_overlap',
        'fact_a',
        'fact_b',
        'shared_entities',
      ].sort(),
    );
    expect(p.shared_entities).toEqual(['project falcon']);
    expect(Object.keys(p.fact_a)).not.toContain('hrr_vector');
  });
});

describe('feedback, update, remove, list (checklist 21–24)', () => {
  it('feedback adjusts trust asymmetrically and clamps', () => {
    const store = makeStore();
    const id = store.add('A fact to rate');
    expect(store.feedback(id, true)).toEqual({
      fact_id: id,
      old_trust: 0.5,
      new_trust: 0.55,
      helpful_count: 1,
    });
    const id2 = store.add('Another fact to rate');
    expect(store.feedback(id2, false).new_trust).toBeCloseTo(0.4, 12);
    for (let i = 0; i < 12; i++) store.feedback(id2, false);
    expect(store.get(id2)!.trust_score).toBe(0);
    for (let i = 0; i < 12; i++) store.feedback(id, true);
    expect(store.get(id)!.trust_score).toBe(1);
    expect(() => store.feedback(9999, true)).toThrow(/9999 not found/);
  });
  it('update clamps trust and re-extracts entities on content change', () => {
    const store = makeStore();
    const id = store.add('Jane Doe runs the platform team');
    expect(store.update(id, { trustDelta: 0.9 })).toBe(true);
    expect(store.get(id)!.trust_score).toBe(1);
    store.update(id, { content: 'Mark Twain runs the platform team' });
    expect(store.entitiesOf(id)).toEqual(['Mark Twain']);
    expect(store.update(424242, { tags: 'x' })).toBe(false);
  });
  it('remove deletes the fact and its links; unknown id is false', () => {
    const store = makeStore();
    const id = store.add('Jane Doe runs the platform team');
    expect(store.remove(id)).toBe(true);
    expect(store.get(id)).toBeUndefined();
    expect(
      (store.db.prepare('SELECT COUNT(*) AS n FROM fact_entities WHERE fact_id = ?').get(id) as { n: number })
        .n,
    ).toBe(0);
    expect(store.remove(id)).toBe(false);
  });
  it('list orders by trust and honours category and min_trust', () => {
    const store = makeStore();
    const a = store.add('fact a', { category: 'project' });
    const b = store.add('fact b', { category: 'project' });
    const c = store.add('fact c', { category: 'tool' });
    store.feedback(b, true);
    store.feedback(c, false);
    expect(store.list().map((f) => f.fact_id)).toEqual([b, a, c]);
    expect(store.list({ category: 'project' }).map((f) => f.fact_id)).toEqual([b, a]);
    expect(store.list({ minTrust: 0.45 }).map((f) => f.fact_id)).toEqual([b, a]);
  });
});

describe('shared connection (checklist 31)', () => {
  it('same file via symlink shares one connection; closes are refcounted and idempotent', () => {
    const dir = tempDir();
    const before = sharedConnectionCount();
    const a = makeStore({}, dir);
    fs.symlinkSync(path.join(dir, 'memory_store.db'), path.join(dir, 'link.db'));
    const b = new FactStore({ dbPath: path.join(dir, 'link.db') });
    expect(b.db).toBe(a.db);
    expect(sharedConnectionCount()).toBe(before + 1);
    const id = b.add('written through the link');
    expect(a.get(id)!.content).toBe('written through the link');
    b.close();
    b.close();
    expect(a.get(id)).toBeDefined();
    const other = makeStore();
    expect(other.db).not.toBe(a.db);
  });
  it('8 interleaved writers finish without lock errors', async () => {
    const dir = tempDir();
    const stores = Array.from({ length: 8 }, () => makeStore({}, dir));
    await Promise.all(
      stores.map(async (s, w) => {
        for (let i = 0; i < 15; i++) {
          s.add(`writer ${w} fact ${i}`);
          await Promise.resolve();
        }
      }),
    );
    expect(stores[0]!.count()).toBe(120);
  });
});

describe('CJK (checklist 32)', () => {
  it('two-character and natural CJK queries retrieve the supplier-terms fact; English still works', () => {
    const store = makeStore();
    const cjk = store.add('满坤的供应商账期是60天');
    const en = store.add('The deployment rollback happened after the failed migration');
    store.add('今天天气很好');
    expect(store.search('账期')[0]!.fact_id).toBe(cjk);
    expect(store.search('满坤的账期是多少')[0]!.fact_id).toBe(cjk);
    expect(store.search('供应商 账期')[0]!.fact_id).toBe(cjk);
    expect(store.search('what happened with the deployment rollback')[0]!.fact_id).toBe(en);
  });
});

describe('compatibility with a database written by the Python reference', () => {
  function pythonDb(dir: string): string {
    const file = path.join(dir, 'memory_store.db');
    const db = new Database(file);
    db.exec(REFERENCE_SCHEMA); // the reference DDL, verbatim
    // Rows as Python writes them: CURRENT_TIMESTAMP text, legacy float64 vectors, entities linked.
    const vec = phasesToBytes(encodeFact('Jane Doe owns the billing service', ['Jane Doe'], 1024), 'float64');
    db.prepare(
      "INSERT INTO facts (content, category, tags, trust_score, created_at, updated_at, hrr_vector) VALUES (?, 'project', 'billing', 0.7, '2024-05-01 10:00:00', '2024-05-01 10:00:00', ?)",
    ).run('Jane Doe owns the billing service', vec);
    db.prepare("INSERT INTO facts (content) VALUES ('Old fact without a vector about invoices')").run();
    db.prepare("INSERT INTO entities (name) VALUES ('Jane Doe')").run();
    db.prepare('INSERT INTO fact_entities (fact_id, entity_id) VALUES (1, 1)').run();
    db.close();
    return file;
  }

  it('opens, searches, probes and writes a reference database, and leaves it valid for the reference', () => {
    const dir = tempDir();
    const file = pythonDb(dir);
    const store = makeStore({}, dir);
    expect(store.search('billing service')[0]!.fact_id).toBe(1);
    expect(store.search('invoices')[0]!.fact_id).toBe(2);
    expect(store.probe('Jane Doe')[0]!.fact_id).toBe(1);
    const id = store.add('Jane Doe moved to the payments team');
    expect(store.entitiesOf(id)).toEqual(['Jane Doe']);
    store.close();
    // The reference's own statements still work on the file.
    const db = new Database(file);
    expect(
      db
        .prepare(
          'SELECT f.fact_id FROM facts f JOIN facts_fts fts ON fts.rowid = f.fact_id WHERE facts_fts MATCH \'"payments"\'',
        )
        .all(),
    ).toEqual([{ fact_id: id }]);
    const cols = (db.prepare('PRAGMA table_info(facts)').all() as Array<{ name: string }>).map((c) => c.name);
    expect(cols).toEqual([
      'fact_id',
      'content',
      'category',
      'tags',
      'trust_score',
      'retrieval_count',
      'helpful_count',
      'created_at',
      'updated_at',
      'hrr_vector',
    ]);
    // A Python-style write after ours is picked up by our side index on the next search.
    db.prepare("INSERT INTO facts (content) VALUES ('Python wrote this sentence about kangaroos')").run();
    db.close();
    const again = makeStore({}, dir);
    expect(again.search('kangaroo')[0]!.content).toContain('kangaroos');
  });

  it('adds the hrr_vector column to an old database without it', () => {
    const dir = tempDir();
    const db = new Database(path.join(dir, 'memory_store.db'));
    db.exec(REFERENCE_SCHEMA.replace(',\n    hrr_vector      BLOB', ''));
    db.prepare("INSERT INTO facts (content) VALUES ('legacy row')").run();
    db.close();
    const store = makeStore({}, dir);
    expect(
      (store.db.prepare('PRAGMA table_info(facts)').all() as Array<{ name: string }>).some(
        (c) => c.name === 'hrr_vector',
      ),
    ).toBe(true);
    expect(store.search('legacy row')[0]!.content).toBe('legacy row');
  });
});
