import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

// Children import the BUILT package, so this exercises what users install.
const dist = path.resolve(__dirname, '../dist/index.js');
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function child(
  dbPath: string,
  worker: number,
  n: number,
): Promise<{ code: number | null; out: string; err: string }> {
  const script = `
    import { FactStore } from ${JSON.stringify(dist)};
    const store = new FactStore({ dbPath: ${JSON.stringify(dbPath)} });
    let found = 0;
    for (let i = 0; i < ${n}; i++) {
      store.add('worker ${worker} wrote fact number ' + i + ' about topic' + (i % 7));
      if (store.search('topic' + (i % 7) + ' fact', { limit: 5 }).length > 0) found++;
    }
    store.close();
    process.stdout.write(JSON.stringify({ found }));
  `;
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    proc.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('two processes on one database', () => {
  it('write and search concurrently without lost writes or lock errors', async () => {
    expect(fs.existsSync(dist)).toBe(true);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-holo-conc-'));
    dirs.push(dir);
    const dbPath = path.join(dir, 'memory_store.db');
    const n = 150;
    const results = await Promise.all([child(dbPath, 1, n), child(dbPath, 2, n)]);
    for (const r of results) {
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).found).toBe(n);
    }
    const db = new Database(dbPath, { readonly: true });
    expect((db.prepare('SELECT COUNT(*) AS n FROM facts').get() as { n: number }).n).toBe(2 * n);
    expect(
      (
        db.prepare("SELECT COUNT(*) AS n FROM facts_fts WHERE facts_fts MATCH 'worker'").get() as {
          n: number;
        }
      ).n,
    ).toBe(2 * n);
    expect((db.prepare('SELECT COUNT(*) AS n FROM hm_dirty').get() as { n: number }).n).toBe(0);
    expect((db.prepare('SELECT COUNT(*) AS n FROM hm_facts_fts').get() as { n: number }).n).toBe(2 * n);
    db.close();
  }, 60_000);
});
