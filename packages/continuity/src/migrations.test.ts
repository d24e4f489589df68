import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SchemaVersionError, openDatabase } from './connection';
import { MIGRATIONS, type Migration, SCHEMA_VERSION } from './schema';
import { ContinuityStore } from './store';
import { tempDir } from './test-helpers';

function file(): string {
  return path.join(tempDir(), 'continuity', 'continuity.db');
}

const addColumn: Migration = {
  version: SCHEMA_VERSION + 1,
  description: 'test: a pinned flag',
  up: (db) => db.exec('ALTER TABLE records ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0'),
};

describe('migrations', () => {
  it('a new file gets every migration and user_version = SCHEMA_VERSION', () => {
    const db = openDatabase(file());
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    db.close();
  });

  it('an older file is upgraded in place and keeps its records', () => {
    const f = file();
    const store = new ContinuityStore({ dbPath: f });
    const { record } = store.add({
      kind: 'lesson_learned',
      title: 'Flaky CI',
      summary: 'Retry the flaky integration job once.',
    });
    store.close();
    const db = openDatabase(f, { migrations: [...MIGRATIONS, addColumn] });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION + 1);
    expect(db.prepare('SELECT id, pinned FROM records').all()).toEqual([{ id: record.id, pinned: 0 }]);
    db.close();
    // Opening again applies nothing twice.
    openDatabase(f, { migrations: [...MIGRATIONS, addColumn] }).close();
  });

  it('a failing migration leaves the file exactly as it was', () => {
    const f = file();
    new ContinuityStore({ dbPath: f }).close();
    const before = fs.readFileSync(f);
    const broken: Migration = {
      version: SCHEMA_VERSION + 1,
      description: 'test: fails halfway',
      up: (db) => {
        db.exec('ALTER TABLE records ADD COLUMN half INTEGER');
        throw new Error('boom');
      },
    };
    expect(() => openDatabase(f, { migrations: [...MIGRATIONS, broken] })).toThrow('boom');
    const db = new Database(f, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    const columns = (db.prepare('PRAGMA table_info(records)').all() as Array<{ name: string }>).map(
      (c) => c.name,
    );
    expect(columns).not.toContain('half');
    db.close();
    expect(fs.readFileSync(f).equals(before)).toBe(true);
  });

  it('a file from a newer release is refused, unchanged, with a clear error', () => {
    const f = file();
    const db = openDatabase(f, { migrations: [...MIGRATIONS, addColumn] });
    db.close();
    const before = fs.readFileSync(f);
    expect(() => new ContinuityStore({ dbPath: f })).toThrow(SchemaVersionError);
    expect(() => new ContinuityStore({ dbPath: f })).toThrow(/newer than this release supports/);
    expect(() => new ContinuityStore({ dbPath: f, readonly: true })).toThrow(SchemaVersionError);
    expect(fs.readFileSync(f).equals(before)).toBe(true);
  });

  it('two connections opening a new file at once migrate it once', () => {
    const f = file();
    const a = openDatabase(f);
    const b = openDatabase(f);
    expect(b.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    a.close();
    b.close();
  });
});
