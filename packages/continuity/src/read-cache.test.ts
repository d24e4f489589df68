/**
 * Retrieval reads records, edges and index statistics from caches kept until the next write
 * (`ContinuityStore.readBySeq` / `readEdgesOf`, the ranker's index cache). Every write path between
 * two retrievals must show in the second one, whether it went through this store or another process.
 */
import { describe, expect, it } from 'vitest';
import { ContinuityStore, compareBinary } from './store';
import { call, tempProvider, tempStore } from './test-helpers';

const BACKUPS = 'When do the database backups run?';

describe('read caches follow every write', () => {
  it('an add, replace, retract or archive between two prefetches shows in the second', async () => {
    const p = tempProvider();
    expect(await p.prefetch(BACKUPS)).toBe('');

    p.onMemoryWrite('add', 'memory', 'The database backups run nightly at 02:00 UTC on the Hetzner box.');
    expect(await p.prefetch(BACKUPS)).toContain('02:00 UTC');

    p.onMemoryWrite(
      'replace',
      'memory',
      'The database backups run nightly at 03:00 UTC on the Hetzner box.',
      {
        oldText: '02:00',
        previousContent: 'The database backups run nightly at 02:00 UTC on the Hetzner box.',
      },
    );
    const replaced = await p.prefetch(BACKUPS);
    expect(replaced).toContain('03:00 UTC');
    expect(replaced).not.toContain('02:00');

    p.onMemoryWrite('remove', 'memory', '', {
      oldText: 'database backups',
      previousContent: 'The database backups run nightly at 03:00 UTC on the Hetzner box.',
    });
    expect(await p.prefetch(BACKUPS)).toBe('');

    const added = await call(p, 'continuity_add', {
      kind: 'environment_fact',
      title: 'Database backups',
      summary: 'Database backups run hourly to the S3 bucket db-backups.',
    });
    const id = added.record_id as string;
    expect(await p.prefetch(BACKUPS)).toContain(id);
    await call(p, 'continuity_archive', { record_id: id });
    expect(await p.prefetch(BACKUPS)).toBe('');
    await call(p, 'continuity_restore', { record_id: id });
    expect(await p.prefetch(BACKUPS)).toContain(id);
  });

  it("another process's writes show in the next prefetch and search", async () => {
    const p = tempProvider();
    expect(await p.prefetch(BACKUPS)).toBe('');
    const other = new ContinuityStore({ dbPath: p.recordStore!.dbPath });
    try {
      const { record } = other.add({
        kind: 'environment_fact',
        title: 'Database backups',
        summary: 'Database backups run nightly at 02:00 UTC.',
      });
      expect(await p.prefetch(BACKUPS)).toContain(record.id);
      other.update(record.id, { summary: 'Database backups run nightly at 04:00 UTC.' });
      expect(await p.prefetch(BACKUPS)).toContain('04:00 UTC');
      other.transition(record.id, 'retract');
      expect(await p.prefetch(BACKUPS)).toBe('');
      expect((await call(p, 'continuity_search', { query: BACKUPS })).results).toEqual([]);
    } finally {
      other.close();
    }
  });

  it('an edge linked between two searches brings the associated record into the second', async () => {
    const p = tempProvider();
    const store = p.recordStore!;
    const a = store.add({
      kind: 'decision',
      title: 'Release cadence',
      summary: 'Releases ship every second Tuesday.',
    }).record;
    const b = store.add({
      kind: 'lesson_learned',
      title: 'Freeze window',
      summary: 'Nothing merges in the 24 hours before a cut.',
    }).record;
    const ids = async () =>
      (
        (await call(p, 'continuity_search', { query: 'When do releases ship?' })).results as Array<{
          id: string;
        }>
      ).map((r) => r.id);
    expect(await ids()).toEqual([a.id]);
    store.link(a.id, b.id, 'related_to');
    expect(await ids()).toEqual([a.id, b.id]);
    store.delete(b.id);
    expect(await ids()).toEqual([a.id]);
  });

  it('the words a record is about (facet gate) are read again after an edit, here or in another process', async () => {
    const p = tempProvider();
    const store = p.recordStore!;
    const { record } = store.add({
      kind: 'environment_fact',
      title: 'Editor',
      summary: 'Jane uses Neovim with the lazy.nvim plugin manager.',
      entities: ['Jane'],
    });
    const BOB = 'Which editor plugin manager does Bob use?';
    const gate = async () => {
      const why = await call(p, 'continuity_explain', {});
      const c = (why.candidates as Array<{ record_id: string; verdict: string; gate?: string }>).find(
        (x) => x.record_id === record.id,
      );
      return c?.verdict === 'injected' ? 'injected' : c?.gate;
    };
    expect(await p.prefetch(BOB)).toBe('');
    expect(await gate()).toBe('facet_mismatch');
    store.update(record.id, { details: 'Bob copied her setup in March.' });
    expect(await p.prefetch(BOB)).toContain(record.id);
    const other = new ContinuityStore({ dbPath: store.dbPath });
    try {
      other.update(record.id, { details: null });
      expect(await p.prefetch(BOB)).toBe('');
      expect(await gate()).toBe('facet_mismatch');
      other.update(record.id, { entities: ['Jane', 'Bob'] });
      expect(await p.prefetch(BOB)).toContain(record.id);
    } finally {
      other.close();
    }
  });

  it('the question a passage answers is read again after a link or an edit', async () => {
    const p = tempProvider();
    const store = p.recordStore!;
    const note = (title: string, summary: string) =>
      store.add({ kind: 'corpus_note', title, summary, entities: [title] }).record;
    const question = note('Melanie', 'Why did you pursue counseling?');
    const answer = note('Caroline', 'My own journey made a huge difference.');
    for (let i = 0; i < 30; i++)
      note('Melanie', `Filler turn ${i} about painting, pottery and camping trips.`);
    const reply = async () => {
      const why = await call(p, 'continuity_explain', { query: 'Why did Caroline pursue counseling?' });
      return (why.candidates as Array<{ record_id: string; signals: { reply: number } }>).find(
        (c) => c.record_id === answer.id,
      )?.signals.reply;
    };
    expect(await reply()).toBe(0);
    store.link(question.id, answer.id, 'next_segment', 1);
    expect(await reply()).toBeGreaterThan(0);
    store.update(question.id, { summary: 'I pursued counseling for two years.' });
    expect(await reply()).toBe(0);
  });
});

describe('read caches return what the uncached reads return', () => {
  it('readEdgesOf gives edgesOf rows in edgesOf order, across partial fills and after writes', () => {
    const store = tempStore();
    // Ids outside ASCII too: the SQL orders by UTF-8 bytes, which the cache has to reproduce.
    const ids = ['ctx_a', 'ctx_b', 'ctx_é', 'ctx_😀', 'ctx_\uE000', 'ctx_Z', 'ctx_ab', 'ctx_a0', 'ctx_中'];
    let state = 7;
    const rand = (n: number) => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state % n;
    };
    const addEdges = (n: number) =>
      store.transaction(() => {
        for (let i = 0; i < n; i++) {
          const src = ids[rand(ids.length)]!;
          const dst = ids[rand(ids.length)]!;
          if (src !== dst)
            store.linkUnchecked(
              src,
              dst,
              ['next_segment', 'related_to', 'supersedes'][rand(3)]!,
              rand(10) / 10,
            );
        }
      });
    addEdges(40);
    for (let round = 0; round < 60; round++) {
      const subset = ids.filter(() => rand(3) === 0);
      expect(store.readEdgesOf(subset)).toEqual(store.edgesOf(subset));
      if (round % 15 === 14) addEdges(5);
    }
  });

  it('compareBinary orders strings as SQLite does', () => {
    const store = tempStore();
    const words = ['a', 'B', 'ab', 'a0', 'é', 'e\u0301', '中', '😀', '\uE000', '\uFFFD', 'z', ''];
    const sqlite = (
      store.db
        .prepare('SELECT value FROM json_each(?) ORDER BY value COLLATE BINARY')
        .all(JSON.stringify(words)) as Array<{ value: string }>
    ).map((r) => r.value);
    expect([...words].sort(compareBinary)).toEqual(sqlite);
  });

  it('cached records are frozen and shared; bySeq still returns fresh objects', () => {
    const store = tempStore();
    const { record } = store.add({
      kind: 'decision',
      title: 'Lint',
      summary: 'Biome formats the repository.',
    });
    const seq = [...store.iterate()][0]!.seq;
    const [cached] = store.readBySeq([seq]);
    expect(cached).toMatchObject({ id: record.id, seq });
    expect(Object.isFrozen(cached)).toBe(true);
    expect(Object.isFrozen(cached!.tags)).toBe(true);
    expect(store.readBySeq([seq])[0]).toBe(cached);
    expect(store.readByIds([record.id])[0]).toBe(cached);
    const fresh = store.bySeq([seq])[0]!;
    expect(Object.isFrozen(fresh)).toBe(false);
    store.update(record.id, { summary: 'Biome formats and lints the repository.' });
    expect(store.readBySeq([seq])[0]!.summary).toBe('Biome formats and lints the repository.');
  });
});
