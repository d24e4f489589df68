import fs from 'node:fs';
import path from 'node:path';
import { exportProviderRecords, providerCliTestContext, runProviderCliCommand } from '@hermes-memory/testkit';
import { CliError, IMPORT_MAX_NEW_COLUMNS } from '@hermes-memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-helpers';
import holographicCli from './index';

const run = (home: string, argv: string[], options: { json?: boolean; progress?: boolean } = {}) =>
  runProviderCliCommand(holographicCli, argv, { home, json: true, ...options });
const json = async (home: string, argv: string[]) => {
  const r = await run(home, argv);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
};

describe('hermes-memory holographic (the ./cli module)', () => {
  it('add, search, probe, feedback and list the fact store', async () => {
    const home = tempDir();
    const added = await json(home, ['add', 'Alice maintains the billing service', '--category', 'project']);
    expect(added).toEqual({ fact_id: 1, status: 'added' });
    expect(await json(home, ['add', 'Alice maintains the billing service'])).toEqual({
      fact_id: 1,
      status: 'exists',
    });
    expect((await json(home, ['search', 'billing'])).results[0].fact_id).toBe(1);
    expect(
      (await json(home, ['probe', 'Alice'])).results.map((r: { fact_id: number }) => r.fact_id),
    ).toContain(1);
    expect((await json(home, ['feedback', '1', 'helpful'])).new_trust).toBeCloseTo(0.55, 5);
    expect((await json(home, ['list', '--category', 'project'])).count).toBe(1);
    const table = await run(home, ['list'], { json: false });
    expect(table.stdout).toMatch(/ID\s+TRUST\s+CATEGORY\s+FACT\n#1\s+0\.55\s+project\s+Alice maintains/);
  });

  it('read-only commands never create the store in a fresh home', async () => {
    const home = tempDir();
    expect(await json(home, ['list'])).toEqual({ facts: [], count: 0 });
    expect(await json(home, ['search', 'anything'])).toEqual({ results: [], count: 0 });
    expect(await json(home, ['reindex'])).toEqual({ facts: 0, vectors: 0 });
    const missing = await run(home, ['feedback', '3', 'helpful']);
    expect(missing).toMatchObject({ code: 1, stderr: 'hermes-memory: Fact #3 not found.\n' });
    expect(fs.readdirSync(home)).toEqual([]);
  });

  it.each([
    ['rollback-journal', false],
    ['WAL', true],
  ])(
    "list, search and probe leave a Python plugin's %s store byte for byte as it was",
    async (_mode, wal) => {
      // Before: they opened it for writing, so looking added the hm_* side index and triggers and
      // switched its journal mode, and in a read-only home failed with "attempt to write a readonly database".
      const home = tempDir();
      const file = path.join(home, 'memory_store.db');
      fs.copyFileSync(path.join(__dirname, '..', '..', 'test', 'fixtures', 'older-float64-store.db'), file);
      if (wal) {
        const db = new Database(file);
        expect(db.pragma('journal_mode = WAL', { simple: true })).toBe('wal');
        db.close();
      }
      const before = fs.readFileSync(file);
      expect((await json(home, ['list'])).count).toBe(8);
      const search = await json(home, ['search', 'blue-green rollback']);
      expect(search.results[0]).toMatchObject({ fact_id: 2, retrieval_count: 0 });
      const probe = await json(home, ['probe', 'Atlas']);
      expect(probe.results.map((r: { fact_id: number }) => r.fact_id)).toContain(1);
      expect((await run(home, ['list'], { json: false })).stdout).toContain(
        'Jane Doe leads the Atlas project',
      );
      expect(fs.readdirSync(home)).toEqual(['memory_store.db']);
      expect(fs.readFileSync(file).equals(before)).toBe(true);
      // A command that changes data still migrates the store, as before.
      expect((await json(home, ['feedback', '2', 'helpful'])).new_trust).toBeCloseTo(0.55, 5);
      const db = new Database(file, { readonly: true });
      expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'hm_facts_fts'").get()).toBeDefined();
      db.close();
    },
  );

  it('an unreadable store is a one-line error naming the file', async () => {
    const home = tempDir();
    const file = path.join(home, 'memory_store.db');
    fs.writeFileSync(file, 'not a database, just text '.repeat(64));
    for (const argv of [['list'], ['search', 'x'], ['probe', 'x']]) {
      const r = await run(home, argv);
      expect(r.code, argv.join(' ')).toBe(1);
      expect(r.stderr).toBe(`hermes-memory: Cannot read ${file}: file is not a database.\n`);
    }
  });

  it('bad arguments are one-line usage errors (exit 2) that point at --help', async () => {
    const home = tempDir();
    for (const argv of [
      ['feedback', '1', 'meh'],
      ['feedback', 'x', 'helpful'],
      ['add'],
      ['search', 'a', '--limit', '0'],
      ['list', '--min-trust', '2'],
      ['embed', '--batch', '0'],
      ['reindex', 'extra'],
      ['reindex', '--vector-format', 'float16'],
      ['list', '--bogus'],
      ['frobnicate'],
    ]) {
      const r = await run(home, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^hermes-memory: /);
    }
    expect((await run(home, ['list', '--bogus'])).stderr).toContain(
      "See 'hermes-memory holographic list --help'.",
    );
  });

  it('reindex and embed rebuild vectors and embed pending facts, with a progress bar on a terminal', async () => {
    const home = tempDir();
    for (const fact of ['Carol runs the data team', 'The API uses gRPC']) await json(home, ['add', fact]);
    const reindex = await run(home, ['reindex'], { json: false, progress: true });
    expect(reindex.stdout).toContain('reindexed 2 facts (2 HRR vectors)');
    expect(reindex.stderr).toContain('\rReindexing facts 2/2');
    const first = await json(home, ['embed', '--batch', '1']);
    expect(first).toMatchObject({ embedded: 2, pending: 0 });
    expect(await json(home, ['embed'])).toMatchObject({ embedded: 0, pending: 0 });
  });

  it('reindex --vector-format on a new store writes that format; with HRR off it refuses', async () => {
    const home = tempDir();
    await json(home, ['add', 'Carol runs the data team', '--category', 'project']);
    const converted = await run(home, ['reindex', '--vector-format', 'float64'], { json: false });
    expect(converted).toMatchObject({ code: 0, stderr: '' });
    expect(converted.stdout).toContain(
      'reindexed 1 facts (1 HRR vectors, converted from float32 to float64)',
    );
    expect(await json(home, ['reindex', '--vector-format', 'float64'])).toEqual({
      facts: 1,
      vectors: 1,
      vectorFormat: { from: 'float64', to: 'float64' },
    });
    fs.writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  holographic:\n    hrr_enabled: false\n');
    const off = await run(home, ['reindex', '--vector-format', 'float32']);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain('HRR vectors are off (hrr_enabled: false)');
  });

  it('status reports the store with its fact count; db_path is read where the Python plugin keeps it', async () => {
    const home = tempDir();
    const { ctx } = providerCliTestContext(holographicCli, { home });
    expect(await holographicCli.status!(ctx)).toEqual({
      stores: [
        {
          name: 'memory_store.db',
          path: path.join(home, 'memory_store.db'),
          exists: false,
          bytes: 0,
          detail: '',
        },
      ],
    });
    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      'plugins:\n  hermes-memory-store:\n    db_path: $HERMES_HOME/facts/store.db\n',
    );
    await json(home, ['add', 'Deploys happen on Tuesdays']);
    const status = await holographicCli.status!(providerCliTestContext(holographicCli, { home }).ctx);
    expect(status.stores?.[0]).toMatchObject({
      path: path.join(home, 'facts', 'store.db'),
      exists: true,
      detail: '1 facts',
    });
    expect(status.stores?.[0]?.bytes).toBeGreaterThan(0);
  });

  it('doctor: private files and integrity, with a safe repair for loose permissions', async () => {
    const home = tempDir();
    const ctx = () => providerCliTestContext(holographicCli, { home }).ctx;
    expect(await holographicCli.doctor!(ctx())).toEqual([]);
    await json(home, ['add', 'Bob owns payments']);
    const file = path.join(home, 'memory_store.db');
    let checks = await holographicCli.doctor!(ctx());
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['symlinks', 'ok'],
      ['permissions', 'ok'],
      ['integrity', 'ok'],
    ]);
    fs.chmodSync(file, 0o644);
    checks = await holographicCli.doctor!(ctx());
    expect(checks[1]).toMatchObject({ status: 'fail', detail: 'readable by others: memory_store.db (0644)' });
    expect(await checks[1]!.repair!()).toBe('tightened 1 file(s) to 0600');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    fs.writeFileSync(file, 'not a database '.repeat(200));
    checks = await holographicCli.doctor!(ctx());
    expect(checks[2]).toMatchObject({ id: 'integrity', status: 'fail' });
    expect(checks[2]?.fix).toBeTruthy();
  });

  it('doctor warns when memory_store.db is reached through a symbolic link (SQLite follows it), and --fix leaves it', async () => {
    const home = tempDir();
    const elsewhere = tempDir();
    const ctx = () => providerCliTestContext(holographicCli, { home }).ctx;
    const target = path.join(elsewhere, 'other.db');
    const link = path.join(home, 'memory_store.db');
    // A dangling link is reported too: opening the store would create its target.
    fs.symlinkSync(target, link);
    let check = (await holographicCli.doctor!(ctx())).find((c) => c.id === 'symlinks');
    expect(check).toMatchObject({
      status: 'warn',
      detail: `reached through a link: memory_store.db → ${target}`,
    });
    expect(check?.fix).toMatch(/points at your own database/);
    expect(check?.repair).toBeUndefined();
    await json(home, ['add', 'Bob owns payments']);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.statSync(target).size).toBeGreaterThan(0);
    const checks = await holographicCli.doctor!(ctx());
    check = checks.find((c) => c.id === 'symlinks');
    expect(check).toMatchObject({ status: 'warn' });
    expect(checks.find((c) => c.id === 'integrity')).toMatchObject({ status: 'ok' });
    // Its side files count as well.
    fs.rmSync(link);
    await json(home, ['add', 'Carol owns search']);
    fs.rmSync(`${link}-wal`, { force: true });
    fs.symlinkSync(path.join(elsewhere, 'other.wal'), `${link}-wal`);
    check = (await holographicCli.doctor!(ctx())).find((c) => c.id === 'symlinks');
    expect(check).toMatchObject({ status: 'warn' });
    expect(check?.detail).toContain('memory_store.db-wal →');
  });

  it('export → import into an empty home → export gives the same records; importing twice adds nothing', async () => {
    const a = tempDir();
    await json(a, ['add', 'Jane Doe owns the payments API', '--category', 'project']);
    await json(a, ['add', 'Deploys happen on Tuesdays']);
    const records = await exportProviderRecords(
      holographicCli,
      providerCliTestContext(holographicCli, { home: a }).ctx,
    );
    expect(records.map((r) => r.table)).toEqual(
      expect.arrayContaining(['facts', 'entities', 'fact_entities']),
    );
    for (const r of records) expect(holographicCli.validateRecord!(r)).toBeUndefined();

    const b = tempDir();
    const ctxB = () => providerCliTestContext(holographicCli, { home: b }).ctx;
    const noProgress = { tick() {}, done() {} };
    const first = await holographicCli.importRecords!(ctxB(), records, noProgress);
    expect(first.inserted).toBe(records.length);
    expect(first.refused).toEqual([]);
    expect(await exportProviderRecords(holographicCli, ctxB())).toEqual(records);
    const again = await holographicCli.importRecords!(ctxB(), records, noProgress);
    expect(again).toEqual({ inserted: 0, skipped: records.length, refused: [] });
    // The imported facts are searchable (side index rebuilt).
    expect((await json(b, ['search', 'payments'])).results[0].content).toBe('Jane Doe owns the payments API');
  });

  it('import adds the few columns a newer schema has, but not arbitrary ones: a crafted export is refused whole (#12)', async () => {
    const home = tempDir();
    await json(home, ['add', 'Existing fact stays']);
    const ctx = () => providerCliTestContext(holographicCli, { home }).ctx;
    const noProgress = { tick() {}, done() {} };
    const dbFile = path.join(home, 'memory_store.db');
    const columns = () => {
      const db = new Database(dbFile, { readonly: true });
      try {
        return (db.prepare('PRAGMA table_info(facts)').all() as Array<{ name: string }>).map((c) => c.name);
      } finally {
        db.close();
      }
    };
    const before = columns();
    // A newer schema's extra column is kept.
    const newer = await holographicCli.importRecords!(
      ctx(),
      [
        {
          table: 'facts',
          row: { fact_id: 50, content: 'Deploys happen on Tuesdays', category: 'general', source_turn: 7 },
        },
      ],
      noProgress,
    );
    expect(newer.inserted).toBe(1);
    expect(columns()).toEqual([...before, 'source_turn']);
    // One valid-looking column per row, spread over many rows: each row passes validation, the whole adds too many.
    const crafted = Array.from({ length: IMPORT_MAX_NEW_COLUMNS + 1 }, (_, i) => ({
      table: 'facts',
      row: {
        fact_id: 100 + i,
        content: `Crafted fact number ${i}`,
        category: 'general',
        [`extra_${i}`]: 'x',
      },
    }));
    for (const r of crafted) expect(holographicCli.validateRecord!(r)).toBeUndefined();
    let error: unknown;
    try {
      await holographicCli.importRecords!(ctx(), crafted, noProgress);
    } catch (e) {
      error = e;
    }
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/table 'facts' would gain more than \d+ new columns/);
    // Nothing of it was written: no new columns, no crafted facts.
    expect(columns()).toEqual([...before, 'source_turn']);
    expect((await json(home, ['list'])).count).toBe(2);
  });

  it('validateRecord refuses unknown tables and unsafe column names', () => {
    expect(holographicCli.validateRecord!({ table: 'sqlite_master', row: {} })).toContain(
      'unknown fact table',
    );
    expect(holographicCli.validateRecord!({ table: 'facts', row: { 'x; DROP': 1 } })).toContain(
      'invalid column name',
    );
    expect(holographicCli.validateRecord!({ table: 'facts', row: [] })).toContain('row must be an object');
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`c${i}`, i]));
    expect(holographicCli.validateRecord!({ table: 'facts', row: wide })).toContain('row has 500 columns');
  });
});
