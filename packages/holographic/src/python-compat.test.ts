/**
 * A store written by the older holographic plugin (raw float64 vectors), opened, searched and
 * written here, then used again by that plugin's own code (test/python/older_plugin.py).
 */
import fs from 'node:fs';
import path from 'node:path';
import { collectLogs, requirePython, runProviderCliCommand, runPythonJson } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import holographicCli from './cli/index';
import { FactStore } from './store';
import { tempDir, tempStore } from './test-helpers';

const ROOT = path.resolve(__dirname, '..');
const OLDER_PLUGIN = path.join(ROOT, 'test', 'python', 'older_plugin.py');
const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'older-float64-store.db');

function copyFixture(): string {
  const dbPath = path.join(tempDir(), 'memory_store.db');
  fs.copyFileSync(FIXTURE, dbPath);
  return dbPath;
}

function blobLengths(store: FactStore): number[] {
  const facts = store.db.prepare('SELECT length(hrr_vector) AS n FROM facts WHERE hrr_vector IS NOT NULL');
  const banks = store.db.prepare('SELECT length(vector) AS n FROM memory_banks');
  return [...facts.all(), ...banks.all()].map((r) => (r as { n: number }).n);
}

interface OlderCheck {
  error?: string;
  facts: number;
  banks: number;
  search?: string[];
  added?: boolean;
}

describe('Python compatibility: an older float64 store', { timeout: 60_000 }, () => {
  it('python3 is available (the suite fails, never skips, without it)', () => {
    expect(requirePython).not.toThrow();
  });

  it('§1.4 detects float64 from the rows and keeps writing it; the older plugin still reads and writes the file', async () => {
    const dbPath = copyFixture();
    const store = tempStore({ dbPath });
    expect(store.vectorFormat).toBe('float64');
    expect((await store.recall('rollback')).map((r) => r.content)).toContain(
      'Deployment rollback failed twice on Friday',
    );
    expect(store.probe('Jane Doe').length).toBeGreaterThan(0);
    const added = store.add('Jane Doe moved the Atlas rollback to Tuesday', { category: 'project' });
    store.update(added, { content: 'Jane Doe moved the Atlas rollback to Wednesday' });
    const doomed = store.add('A short-lived fact about Berlin', { category: 'tool' });
    store.remove(doomed);
    expect(store.reason(['Jane Doe', 'Atlas']).length).toBeGreaterThan(0);
    store.close();

    const reopened = new FactStore({ dbPath });
    try {
      expect(new Set(blobLengths(reopened))).toEqual(new Set([1024 * 8]));
    } finally {
      reopened.close();
    }
    const older = await runPythonJson<OlderCheck>(OLDER_PLUGIN, 'check', dbPath, '1024', 'Wednesday');
    expect(older.error).toBeUndefined();
    expect(older.facts).toBe(9);
    expect(older.search).toEqual(['Jane Doe moved the Atlas rollback to Wednesday']);
    expect(older.added).toBe(true);
  });

  it('§1.4 an explicit float32 setting does not mix formats: it warns and keeps float64', () => {
    const dbPath = copyFixture();
    const logs = collectLogs();
    const store = tempStore({ dbPath, vectorFormat: 'float32', logger: logs.logger });
    expect(store.vectorFormat).toBe('float64');
    expect(logs.messages('warn').join('\n')).toMatch(
      /holds float64 HRR vectors.*'hermes-memory holographic reindex --vector-format float32'/s,
    );
    store.add('Written while float32 was asked for');
    expect(new Set(blobLengths(store))).toEqual(new Set([1024 * 8]));
  });

  it('§1.4 converting explicitly rewrites every vector and bank as HRR1, after which the store is float32', async () => {
    const dbPath = copyFixture();
    const store = tempStore({ dbPath });
    expect(store.rebuildAllVectors({ vectorFormat: 'float32' })).toBe(8);
    expect(new Set(blobLengths(store))).toEqual(new Set([4 + 1024 * 4]));
    store.close();
    const again = tempStore({ dbPath });
    expect(again.vectorFormat).toBe('float32');
    // The older plugin cannot read a converted store: that is why conversion is explicit.
    const older = await runPythonJson<OlderCheck>(OLDER_PLUGIN, 'check', dbPath);
    expect(older.error).toMatch(/multiple of element size/);
  });

  it('§1.4 hermes-memory holographic reindex --vector-format converts both ways; back at float64 the older plugin reads it again', async () => {
    const home = tempDir();
    const dbPath = path.join(home, 'memory_store.db');
    fs.copyFileSync(FIXTURE, dbPath);
    // The config pins float64 (the older plugin's format): converting away from it says the pin
    // now disagrees with the store; converting back to it says nothing.
    fs.writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  holographic:\n    vector_format: float64\n');
    const reindex = (argv: string[], json = true) =>
      runProviderCliCommand(holographicCli, ['reindex', ...argv], { home, json });

    const toF32 = await reindex(['--vector-format', 'float32']);
    expect(toF32.code).toBe(0);
    expect(JSON.parse(toF32.stdout)).toEqual({
      facts: 8,
      vectors: 8,
      vectorFormat: { from: 'float64', to: 'float32' },
    });
    expect(toF32.stderr).toBe(
      'hermes-memory: note: config sets vector_format: float64; set it to float32 or auto, or the provider warns on every start.\n',
    );
    let store = new FactStore({ dbPath });
    expect(store.vectorFormat).toBe('float32');
    expect(new Set(blobLengths(store))).toEqual(new Set([4 + 1024 * 4]));
    expect((await store.recall('rollback')).map((r) => r.content)).toContain(
      'Deployment rollback failed twice on Friday',
    );
    store.close();
    expect((await runPythonJson<OlderCheck>(OLDER_PLUGIN, 'check', dbPath)).error).toMatch(
      /multiple of element size/,
    );

    const toF64 = await reindex(['--vector-format', 'float64'], false);
    expect(toF64).toMatchObject({ code: 0, stderr: '' });
    expect(toF64.stdout).toContain('reindexed 8 facts (8 HRR vectors, converted from float32 to float64)');
    store = new FactStore({ dbPath });
    expect(store.vectorFormat).toBe('float64');
    expect(new Set(blobLengths(store))).toEqual(new Set([1024 * 8]));
    store.close();
    const older = await runPythonJson<OlderCheck>(OLDER_PLUGIN, 'check', dbPath, '1024', 'rollback');
    expect(older.error).toBeUndefined();
    expect(older.facts).toBe(8);
    expect(older.added).toBe(true); // the older plugin wrote a ninth fact

    // Without the option a reindex keeps the store's own format.
    expect(JSON.parse((await reindex([])).stdout)).toEqual({ facts: 9, vectors: 9 });
    store = new FactStore({ dbPath });
    expect(new Set(blobLengths(store))).toEqual(new Set([1024 * 8]));
    store.close();
  });

  it('§1.4 a new store, and a store of HRR1 vectors, write float32', () => {
    expect(tempStore().vectorFormat).toBe('float32');
    const dbPath = path.join(tempDir(), 'memory_store.db');
    const first = new FactStore({ dbPath });
    first.add('One fact in the newer format');
    first.close();
    const store = tempStore({ dbPath });
    expect(store.vectorFormat).toBe('float32');
  });
});
