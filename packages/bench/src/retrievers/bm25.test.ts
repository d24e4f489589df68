import { describe, expect, it } from 'vitest';
import { Bm25Store, createBm25Retriever } from './bm25';
import { ftsOrQuery, queryTerms } from './fts-query';

describe('BM25 baseline', () => {
  it('builds an OR query of quoted, stopword-free terms that FTS5 operators cannot escape', () => {
    expect(queryTerms('When did Jon lose his job as a banker?')).toEqual(['jon', 'lose', 'job', 'banker']);
    expect(ftsOrQuery('NOT "x" AND y* : -z')).toBe('"x" OR "y" OR "z"');
    expect(ftsOrQuery('the of ?!')).toBeNull();
  });

  it('ranks the matching turn first on a tiny corpus (porter stemming, OR semantics)', () => {
    const store = new Bm25Store({ inMemory: true });
    try {
      store.add([
        { id: 'D1:1', text: 'Gina: I opened an online clothing store last week.' },
        { id: 'D1:2', text: 'Jon: I lost my job as a banker yesterday.' },
        { id: 'D1:3', text: 'Gina: Dancing is my passion, I dance every day.' },
      ]);
      expect(store.count()).toBe(3);
      expect(store.search('When did Jon lose his banking job?', 3)[0]).toBe('D1:2');
      expect(store.search('Who loves dancing?', 3)).toEqual(['D1:3']);
      expect(store.search('stores', 1)).toEqual(['D1:1']);
      expect(store.search('"unbalanced quote AND (', 5)).toEqual([]);
      expect(store.search('zebra', 5)).toEqual([]);
    } finally {
      store.close();
    }
  });

  it('works through the Retriever interface with a fresh on-disk store', async () => {
    const r = createBm25Retriever();
    const s = await r.open('conv-x');
    await s.ingest([
      {
        conversationId: 'conv-x',
        diaId: 'D2:4',
        speaker: 'A',
        text: 'A: my cat is called Luna',
        sessionIndex: 2,
        sessionDate: '',
        turnIndex: 0,
      },
    ]);
    expect(await s.search('What is the name of the cat?', 5)).toEqual(['D2:4']);
    expect(s.diskBytes!()).toBeGreaterThan(0);
    await s.close();
  });
});
