/**
 * The fast paths must compute exactly what the straightforward code computes: the JS SHA-256 (HRR
 * atoms), the streaming bundle, the in-memory entity mirror, and the storage settings of new files.
 */
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BundleAccumulator, bundle, encodeAtom } from './hrr';
import { sha256Into } from './sha256';
import type { FactStore } from './store';
import { tempDir, tempStore } from './test-helpers';

function makeStore(dir = tempDir()): FactStore {
  return tempStore({ dbPath: path.join(dir, 'memory_store.db') });
}

describe('sha256Into', () => {
  it('matches node:crypto for short, boundary-length, non-ASCII and long inputs', () => {
    const inputs = [
      '',
      'a',
      'hello:0',
      'x'.repeat(55),
      'x'.repeat(56),
      `${'x'.repeat(54)}é`,
      '供应商:3',
      '😀:12',
    ];
    for (let i = 0; i < 300; i++) inputs.push(`${(i * 7919).toString(36)}:${i % 64}`);
    inputs.push('word'.repeat(40));
    const out = new Uint8Array(32);
    for (const text of inputs) {
      sha256Into(text, out);
      expect(Buffer.from(out).toString('hex')).toBe(
        crypto.createHash('sha256').update(text, 'utf8').digest('hex'),
      );
    }
  });
});

describe('BundleAccumulator', () => {
  it('gives the same vector as bundle()', () => {
    const vs = ['a', 'b', 'c', 'd'].map((w) => encodeAtom(w, 128));
    const acc = new BundleAccumulator(128);
    for (const v of vs) acc.add(v);
    expect(acc.count).toBe(4);
    expect(Array.from(acc.result())).toEqual(Array.from(bundle(...vs)));
    expect(() => acc.add(encodeAtom('e', 64))).toThrow(/dim mismatch/);
  });
});

describe('entity mirror', () => {
  it('resolves names like SQL LIKE (ASCII case-insensitive) and sees raw SQL alias edits', () => {
    const store = makeStore();
    const a = store.add('Jane Doe prefers Neovim');
    const b = store.add('"jane doe" moved to Lisbon');
    expect(store.entitiesOf(a)).toEqual(['Jane Doe']);
    expect(store.entitiesOf(b)).toEqual(['Jane Doe']);
    store.db.prepare("UPDATE entities SET aliases = 'Janey Dee' WHERE name = 'Jane Doe'").run();
    const c = store.add('Janey Dee likes tea');
    expect(store.entitiesOf(c)).toEqual(['Jane Doe']);
  });

  it('sees entities written by another connection (a second process or the Python plugin)', () => {
    const dir = tempDir();
    const store = makeStore(dir);
    store.add('Ada Lovelace wrote notes');
    const other = new Database(path.join(dir, 'memory_store.db'));
    other.prepare("INSERT INTO entities (name, aliases) VALUES ('Charles Babbage', 'Engine Man')").run();
    other.close();
    const id = store.add('Our Engine Man built machines');
    expect(store.entitiesOf(id)).toEqual(['Charles Babbage']);
  });
});

describe('storage', () => {
  it('creates new files with 16 KiB pages and folds a bulk import into the main file', () => {
    const dir = tempDir();
    const store = makeStore(dir);
    expect(store.db.pragma('page_size', { simple: true })).toBe(16384);
    store.addMany(Array.from({ length: 1000 }, (_, i) => ({ content: `bulk fact number ${i}` })));
    const wal = path.join(dir, 'memory_store.db-wal');
    expect(fs.existsSync(wal) ? fs.statSync(wal).size : 0).toBe(0);
    expect(store.count()).toBe(1000);
  });
});
