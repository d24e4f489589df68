import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, tempHome } from '../../test/helpers/temp';
import { MemoryStore } from './memory-store';

// Drives the BUILT package (dist/index.js) from child processes (`turbo test` builds first).
const run = promisify(execFile);
const fixture = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'stage-many.mjs');

describe('pending writes across processes', () => {
  it('two processes staging 60 writes each lose nothing; all apply afterwards', {
    timeout: 60_000,
  }, async () => {
    const home = tempHome();
    await Promise.all([0, 1].map((w) => run(process.execPath, [fixture, home, String(w), '60'])));
    const store = new MemoryStore({ hermesHome: home, memoryCharLimit: 100_000 }).load();
    const pending = store.listPending();
    expect(pending).toHaveLength(120);
    expect(new Set(pending.map((p) => p.id)).size).toBe(120);
    const contents = pending.map((p) => p.payload.content);
    for (let w = 0; w < 2; w++)
      for (let i = 0; i < 60; i++) expect(contents).toContain(`worker ${w} staged ${i}`);
    expect(fs.existsSync(store.pathFor('memory'))).toBe(false);
    // No temp or lock files left behind.
    expect(fs.readdirSync(path.join(home, 'memories')).sort()).toEqual([
      'pending-writes.jsonl',
      'pending-writes.jsonl.lock',
    ]);
    for (const p of pending) expect((await store.applyPending(p.id)).success).toBe(true);
    expect(store.entries('memory')).toHaveLength(120);
    expect(store.listPending()).toEqual([]);
  });
});
