import { describe, expect, it } from 'vitest';
import { tempStore } from './test-helpers';
import { foldLatinDiacritics, queryTerms, stemmedTokens } from './text';

const FACTS = [
  'We meet in Malmö every spring for the design review',
  'Café Central in Vienna serves the best apple strudel',
  'The cafe near the office opens at seven',
  'Antonín Dvořák wrote the New World Symphony',
  'The deployment pipeline runs on Debian',
  'Ölfarben dry slowly in the studio',
];

describe('diacritics in the default pipeline (issue #20)', () => {
  it('folds Latin diacritics only, as the side index does (remove_diacritics 2)', () => {
    expect(foldLatinDiacritics('Malmö Café Dvořák Ångström ệ')).toBe('Malmo Cafe Dvorak Angstrom e');
    // No decomposition, or not Latin: unchanged, exactly as SQLite's unicode61 leaves them.
    expect(foldLatinDiacritics('ø ł ß йод ά Ελλάδα')).toBe('ø ł ß йод ά Ελλάδα');
    expect(stemmedTokens('Malmö')).toEqual(stemmedTokens('malmo'));
    expect(queryTerms('Café?').map((t) => t.word)).toEqual(['cafe']);
  });

  for (const [query, expected] of [
    ['Malmö', ['We meet in Malmö every spring for the design review']],
    ['malmo', ['We meet in Malmö every spring for the design review']],
    [
      'Café',
      ['Café Central in Vienna serves the best apple strudel', 'The cafe near the office opens at seven'],
    ],
    [
      'cafe',
      ['Café Central in Vienna serves the best apple strudel', 'The cafe near the office opens at seven'],
    ],
    ['Dvorak symphony', ['Antonín Dvořák wrote the New World Symphony']],
    ['olfarben', ['Ölfarben dry slowly in the studio']],
  ] as const) {
    it(`finds "${query}" in both modes`, async () => {
      for (const retrieval of ['default', 'reference'] as const) {
        const store = tempStore({ retrieval });
        store.addMany(FACTS.map((content) => ({ content })));
        const found = (await store.recall(query, { minTrust: 0 })).map((r) => r.content);
        expect(found.slice(0, expected.length).sort(), `${retrieval} mode`).toEqual([...expected].sort());
      }
    });
  }

  it('needs no migration: a store written before folding is searched the same way after reopening', async () => {
    const first = tempStore();
    first.addMany(FACTS.map((content) => ({ content })));
    const dbPath = first.dbPath;
    first.close();
    const again = tempStore({ dbPath });
    expect((await again.recall('malmo', { minTrust: 0 }))[0]?.content).toContain('Malmö');
  });
});
