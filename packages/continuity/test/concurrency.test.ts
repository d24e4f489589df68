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
  home: string,
  worker: number,
  n: number,
): Promise<{ code: number | null; out: string; err: string }> {
  const script = `
    import { createContinuityProvider } from ${JSON.stringify(dist)};
    const p = createContinuityProvider({ embeddings: false });
    p.initialize('w${worker}', { hermesHome: ${JSON.stringify(home)}, platform: 'cli', agentContext: 'primary', logger: { debug() {}, info() {}, warn: console.error, error: console.error } });
    let found = 0;
    for (let i = 0; i < ${n}; i++) {
      const out = JSON.parse(await p.handleToolCall('continuity_add', {
        kind: 'environment_fact', title: 'Worker ${worker} fact ' + i, summary: 'Worker ${worker} wrote fact number ' + i + ' about topic' + (i % 7) + '.',
      }));
      if (!out.success) throw new Error(JSON.stringify(out));
      p.onMemoryWrite('add', 'memory', 'Worker ${worker} mirrored entry number ' + i + ' for the lighthouse.');
      const hits = JSON.parse(await p.handleToolCall('continuity_search', { query: 'worker ${worker} fact number ' + i, limit: 5 }));
      if (hits.results.some((r) => r.summary.includes('Worker ${worker} wrote fact number ' + i + ' '))) found++;
      await p.prefetch('what did worker ${worker} write about topic' + (i % 7) + '?');
    }
    p.shutdown();
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

describe('two processes writing one continuity.db', () => {
  it('write, mirror, search and recall concurrently without lost or torn writes', async () => {
    expect(fs.existsSync(dist)).toBe(true);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-continuity-conc-'));
    dirs.push(home);
    const n = 80;
    const results = await Promise.all([child(home, 1, n), child(home, 2, n)]);
    for (const r of results) {
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out).found).toBe(n);
    }
    const db = new Database(path.join(home, 'continuity', 'continuity.db'), { readonly: true });
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT count(*) AS n FROM records')).toBe(4 * n);
    expect(count('SELECT count(*) AS n FROM records_fts')).toBe(4 * n);
    expect(count("SELECT count(*) AS n FROM records_fts WHERE records_fts MATCH 'worker'")).toBe(4 * n);
    expect(count('SELECT count(*) AS n FROM record_sources')).toBe(4 * n);
    expect(count('SELECT count(DISTINCT id) AS n FROM records')).toBe(4 * n);
    expect(count('SELECT count(*) AS n FROM retrieval_events')).toBe(2 * n);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    db.close();
  }, 120_000);
});
