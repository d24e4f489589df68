import fs from 'node:fs';
import path from 'node:path';
import { CliError, type CliProgress, type PortableRecord } from '@hermes-memory/core';
import { exportProviderRecords, providerCliTestContext, runProviderCliCommand } from '@hermes-memory/testkit';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { importCandidates } from '../ingest/import';
import { ingestPaths } from '../ingest/ingest';
import { review } from '../ingest/review';
import { SCHEMA_VERSION } from '../schema';
import { ContinuityStore } from '../store';
import { tempDir, tempProvider } from '../test-helpers';
import continuityCli from './index';
import { exportItems, importItems } from './portable';

const run = (home: string, argv: string[], options: { json?: boolean } = {}) =>
  runProviderCliCommand(continuityCli, argv, { home, json: true, ...options });
const json = async (home: string, argv: string[]) => {
  const r = await run(home, argv);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
};
const ctx = (home: string) => providerCliTestContext(continuityCli, { home }).ctx;
const noProgress: CliProgress = { tick() {}, done() {} };
const dbFile = (home: string) => path.join(home, 'continuity', 'continuity.db');

/** A home with one active and one archived record, linked; returns their ids. */
function seededHome(home = tempDir()) {
  const p = tempProvider({}, { home });
  const store = p.recordStore!;
  const a = store.add({ kind: 'decision', title: 'Logs', summary: 'Logs are shipped to Loki.' }).record.id;
  const b = store.add({ kind: 'lesson_learned', title: 'Timeouts', summary: 'Always set a client timeout.' })
    .record.id;
  store.link(a, b, 'related_to', 0.5);
  store.transition(b, 'archive', { reason: 'moved to the runbook' });
  p.shutdown();
  return { home, a, b };
}

describe('hermes-memory continuity (the ./cli module)', () => {
  it('declares the commands, status, doctor and export/import of the provider seam', () => {
    expect(continuityCli.provider).toBe('continuity');
    expect(continuityCli.commands!.map((c) => c.name)).toEqual([
      'ingest',
      'review',
      'import',
      'maintenance',
      'explain',
      'search',
    ]);
    for (const c of continuityCli.commands!) expect(c.usage).toMatch(/^Usage: hermes-memory continuity /);
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
    expect(pkg.hermesMemory).toEqual({ provider: 'continuity', cli: './cli', localData: true });
  });

  it('ingest → review → import → search → explain, with 0600 review files', async () => {
    const home = tempDir();
    const work = tempDir();
    fs.writeFileSync(
      path.join(work, 'decisions.md'),
      '# Decisions\n\nDecision: the API is versioned in the URL path, never in headers.\n\nok\n',
    );
    const out = path.join(work, 'cands.jsonl');
    const ingested = await run(home, ['ingest', work, '--out', out], { json: false });
    expect(ingested.code).toBe(0);
    expect(ingested.stdout).toMatch(/2 candidate\(s\) from 1 document\(s\)/);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);

    const reviewed = await json(home, ['review', out, '--approve-passing']);
    expect(reviewed).toMatchObject({
      total: 2,
      approved: 1,
      rejected: 1,
      approved_file: path.join(work, 'cands.approved.jsonl'),
    });
    expect(
      fs
        .readFileSync(out, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).status),
    ).toEqual(['approved', 'rejected']);

    expect(await json(home, ['import', reviewed.approved_file as string])).toMatchObject({
      imported: 1,
      skipped: 0,
    });
    expect(await json(home, ['import', reviewed.approved_file as string])).toMatchObject({ imported: 0 });

    const found = await json(home, ['search', 'API', 'versioned', 'URL']);
    expect(found.count).toBe(1);
    expect((found.results as Array<{ summary: string }>)[0]!.summary).toContain('versioned in the URL path');
    const table = await run(home, ['search', 'API versioning'], { json: false });
    expect(table.stdout).toMatch(
      /ID\s+SCORE\s+KIND\s+STATUS\s+RECORD\nctx_[0-9a-f]+\s+\d\.\d{3}\s+\S+\s+active\s+Decision: the API is versioned in the URL path, never in headers/,
    );
    // A title that is the summary's own opening is not printed twice.
    expect(table.stdout).not.toMatch(/never in headers: De/);
    expect(await json(home, ['search', 'kubernetes', 'helm', 'charts'])).toEqual({ results: [], count: 0 });

    const p = tempProvider({}, { home });
    expect(await p.prefetch('is the API versioned in the URL path or headers?')).toContain(
      'versioned in the URL path',
    );
    p.shutdown();
    const explained = await run(home, ['explain'], { json: false });
    expect(explained.stdout).toMatch(
      /✓ ctx_[0-9a-f]+ Decision: the API is versioned in the URL path, never in headers\n\s+injected \(direct\)/,
    );
    expect(await json(home, ['explain', 'thanks'])).toMatchObject({
      origin: 'explain',
      query_gate: 'low_information_query',
    });
  });

  it('maintenance: prune report, archive / restore, delete with --confirm, dream proposals', async () => {
    const { home, a } = seededHome();
    expect(await json(home, ['maintenance', 'prune'])).toMatchObject({
      applied: false,
      expired: [],
      stale: [],
    });
    expect(await json(home, ['maintenance', 'archive', a, '--reason', 'moved to Grafana Cloud'])).toEqual({
      record_id: a,
      status: 'archived',
    });
    expect(await json(home, ['search', 'Loki logs'])).toMatchObject({ count: 0 });
    const inactive = await json(home, ['search', 'Loki logs', '--include-inactive']);
    expect((inactive.results as Array<{ id: string; status: string }>)[0]).toMatchObject({
      id: a,
      status: 'archived',
    });
    expect(await json(home, ['maintenance', 'restore', a])).toEqual({ record_id: a, status: 'active' });
    expect(await json(home, ['maintenance', 'dream'])).toMatchObject({ proposals: [] });
    const unconfirmed = await run(home, ['maintenance', 'delete', a]);
    expect(unconfirmed).toMatchObject({ code: 2, stdout: '' });
    expect(unconfirmed.stderr).toContain('add --confirm');
    expect(await json(home, ['maintenance', 'delete', a, '--confirm'])).toEqual({
      record_id: a,
      deleted: true,
    });
    const gone = await run(home, ['maintenance', 'restore', a]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^hermes-memory: .*No record/);
  });

  it('read-only commands never create the store in a fresh home', async () => {
    const home = tempDir();
    expect(await json(home, ['search', 'anything at all'])).toEqual({ results: [], count: 0 });
    expect(await continuityCli.doctor!(ctx(home))).toEqual([]);
    expect(await exportProviderRecords(continuityCli, ctx(home))).toEqual([]);
    expect(fs.readdirSync(home)).toEqual([]);
  });

  it('bad arguments are one-line usage errors (exit 2) that point at --help', async () => {
    const home = tempDir();
    for (const argv of [
      ['frobnicate'],
      ['review'],
      ['import'],
      ['ingest'],
      ['ingest', '--bogus'],
      ['maintenance'],
      ['maintenance', 'tidy'],
      ['maintenance', 'archive'],
      ['maintenance', 'prune', '--older-than-days', 'ten'],
      ['explain', '--event', 'last'],
      ['search'],
      ['search', 'x', '--limit', '0'],
      ['search', 'x', '--limit', '51'],
      ['search', 'x', '--kind', 'gossip'],
    ]) {
      const r = await run(home, argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
      expect(r.stderr).toMatch(/^hermes-memory: /);
    }
    expect((await run(home, ['review'])).stderr).toContain("See 'hermes-memory continuity review --help'.");
    const missing = await run(home, ['review', path.join(home, 'nope.jsonl')]);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toContain('no such file');
  });
});

describe('status and doctor', () => {
  it('status: the store with its records by lifecycle, db path and schema version; db_path is honoured', async () => {
    const home = tempDir();
    expect(await continuityCli.status!(ctx(home))).toEqual({
      stores: [{ name: 'continuity.db', path: dbFile(home), exists: false, bytes: 0, detail: '' }],
      details: { db_path: dbFile(home) },
    });
    seededHome(home);
    const status = await continuityCli.status!(ctx(home));
    expect(status.stores?.[0]).toMatchObject({
      path: dbFile(home),
      exists: true,
      detail: '1 active, 1 archived',
    });
    expect(status.stores?.[0]?.bytes).toBeGreaterThan(0);
    expect(status.details).toEqual({
      db_path: dbFile(home),
      records_active: 1,
      records_archived: 1,
      records_retracted: 0,
      records_expired: 0,
      records_superseded: 0,
      schema_version: SCHEMA_VERSION,
    });

    fs.writeFileSync(
      path.join(home, 'config.yaml'),
      'memory:\n  continuity:\n    db_path: $HERMES_HOME/elsewhere/c.db\n',
    );
    const moved = await continuityCli.status!(ctx(home));
    expect(moved.stores?.[0]).toMatchObject({ path: path.join(home, 'elsewhere', 'c.db'), exists: false });
  });

  it('doctor: opens, schema, 0600 permissions (with a repair), integrity; a newer schema fails untouched', async () => {
    const { home } = seededHome();
    const file = dbFile(home);
    const ids = (checks: readonly { id: string; status: string }[]) => checks.map((c) => [c.id, c.status]);
    let checks = await continuityCli.doctor!(ctx(home));
    expect(ids(checks)).toEqual([
      ['symlinks', 'ok'],
      ['opens', 'ok'],
      ['schema', 'ok'],
      ['permissions', 'ok'],
      ['integrity', 'ok'],
    ]);
    expect(checks[1]!.detail).toBe('2 record(s), 1 active');

    fs.chmodSync(file, 0o644);
    checks = await continuityCli.doctor!(ctx(home));
    // (a read-only open creates the WAL with the database's mode, so it may be listed too)
    expect(checks[3]).toMatchObject({ status: 'fail' });
    expect(checks[3]!.detail).toMatch(/^readable by others: continuity\/continuity\.db \(0644\)/);
    expect(await checks[3]!.repair!()).toMatch(/^tightened \d file\(s\) to 0600$/);
    for (const f of [file, `${file}-wal`, `${file}-shm`])
      if (fs.existsSync(f)) expect(fs.statSync(f).mode & 0o777).toBe(0o600);
    expect((await continuityCli.doctor!(ctx(home)))[3]).toMatchObject({ status: 'ok' });

    // An older schema is a warning with a repair that migrates; a newer one fails and is left alone.
    const setVersion = (v: number) => {
      const db = new Database(file);
      db.pragma(`user_version = ${v}`);
      db.close();
    };
    setVersion(SCHEMA_VERSION + 1);
    checks = await continuityCli.doctor!(ctx(home));
    expect(ids(checks).slice(1, 3)).toEqual([
      ['opens', 'fail'],
      ['schema', 'fail'],
    ]);
    expect(checks[1]!.detail).toContain('newer than this release supports');
    expect(checks[2]!.fix).toContain('Upgrade @hermes-memory/continuity');
    expect(checks[2]!.repair).toBeUndefined();
    expect(fs.statSync(file).size).toBeGreaterThan(0);
  });

  it('doctor warns when continuity.db, its WAL or its folder is reached through a symbolic link (SQLite follows it); --fix leaves it', async () => {
    const home = tempDir();
    const elsewhere = tempDir();
    const links = async () => (await continuityCli.doctor!(ctx(home))).find((c) => c.id === 'symlinks');
    fs.mkdirSync(path.join(home, 'continuity'), { mode: 0o700 });
    // A dangling link is reported too: opening the store would create its target.
    const target = path.join(elsewhere, 'other.db');
    fs.symlinkSync(target, dbFile(home));
    let check = await links();
    expect(check).toMatchObject({
      status: 'warn',
      detail: `reached through a link: continuity/continuity.db → ${target}`,
    });
    expect(check?.fix).toMatch(/points at your own database/);
    expect(check?.repair).toBeUndefined();
    seededHome(home);
    expect(fs.lstatSync(dbFile(home)).isSymbolicLink()).toBe(true);
    expect(fs.statSync(target).size).toBeGreaterThan(0);
    const checks = await continuityCli.doctor!(ctx(home));
    expect(checks.find((c) => c.id === 'symlinks')).toMatchObject({ status: 'warn' });
    expect(checks.find((c) => c.id === 'integrity')).toMatchObject({ status: 'ok' });

    // Its side files count as well.
    const other = tempDir();
    seededHome(other);
    fs.rmSync(`${dbFile(other)}-wal`, { force: true });
    fs.symlinkSync(path.join(elsewhere, 'other.wal'), `${dbFile(other)}-wal`);
    check = (await continuityCli.doctor!(ctx(other))).find((c) => c.id === 'symlinks');
    expect(check).toMatchObject({ status: 'warn' });
    expect(check?.detail).toContain('continuity/continuity.db-wal →');

    // And the folder: a linked `continuity/` puts the database wherever it points.
    const third = tempDir();
    const realDir = path.join(elsewhere, 'continuity-real');
    fs.mkdirSync(realDir, { mode: 0o700 });
    fs.symlinkSync(realDir, path.join(third, 'continuity'));
    seededHome(third);
    check = (await continuityCli.doctor!(ctx(third))).find((c) => c.id === 'symlinks');
    expect(check).toMatchObject({
      status: 'warn',
      detail: `reached through a link: continuity → ${realDir}`,
    });
    expect(await links()).toMatchObject({ status: 'warn' });
    expect(await continuityCli.doctor!(ctx(tempDir()))).toEqual([]);
  });

  it('doctor: a store left at an older schema (here an empty file) warns, and its repair migrates it', async () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, 'continuity'), { mode: 0o700 });
    new Database(dbFile(home)).close();
    fs.chmodSync(dbFile(home), 0o600);
    let checks = await continuityCli.doctor!(ctx(home));
    const schema = checks.find((c) => c.id === 'schema')!;
    expect(schema).toMatchObject({ status: 'warn', detail: expect.stringContaining('version 0;') });
    expect(await schema.repair!()).toBe(`migrated ${dbFile(home)} to schema version ${SCHEMA_VERSION}`);
    checks = await continuityCli.doctor!(ctx(home));
    expect(checks.every((c) => c.status === 'ok')).toBe(true);
  });

  it('doctor: a file that is not a database fails to open, with a fix', async () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, 'continuity'), { mode: 0o700 });
    fs.writeFileSync(dbFile(home), 'not a database at all, just text'.repeat(100), { mode: 0o600 });
    const checks = await continuityCli.doctor!(ctx(home));
    expect(checks.find((c) => c.id === 'opens')).toMatchObject({ status: 'fail' });
    expect(checks.find((c) => c.id === 'opens')!.fix).toContain('Move');
    expect(checks.find((c) => c.id === 'integrity')).toMatchObject({ status: 'fail' });
    const status = await continuityCli.status!(ctx(home));
    expect(status.stores?.[0]?.detail).toMatch(/^unreadable: /);
  });
});

describe('export / import through the seam', () => {
  it('export → import into an empty home → export gives identical records; importing twice adds nothing', async () => {
    const { home, a, b } = seededHome();
    const records = await exportProviderRecords(continuityCli, ctx(home));
    expect(records.map((r) => r.type)).toEqual(['record', 'record', 'edge']);
    const empty = tempDir();
    const wire = JSON.parse(JSON.stringify(records)) as PortableRecord[];
    for (const r of wire) expect(continuityCli.validateRecord!(r)).toBeUndefined();
    expect(await continuityCli.importRecords!(ctx(empty), wire, noProgress)).toEqual({
      inserted: 3,
      skipped: 0,
      refused: [],
    });
    expect(fs.statSync(dbFile(empty)).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(await exportProviderRecords(continuityCli, ctx(empty)))).toBe(
      JSON.stringify(records),
    );
    expect(await continuityCli.importRecords!(ctx(empty), wire, noProgress)).toEqual({
      inserted: 0,
      skipped: 3,
      refused: [],
    });
    expect(await json(empty, ['search', 'Loki'])).toMatchObject({ count: 1 });
    const status = await continuityCli.status!(ctx(empty));
    expect(status.details).toMatchObject({ records_active: 1, records_archived: 1 });
    expect(a).not.toBe(b);
  });

  it('validateRecord names the problem of a bad record: unknown type, a secret, a missing field', () => {
    const v = continuityCli.validateRecord!;
    expect(v({ type: 'weird' })).toBe("unknown item type 'weird'");
    expect(v({ type: 'edge', edge: { src: 'ctx_1' } })).toBe('edge needs src, dst and relation');
    expect(
      v({
        type: 'record',
        record: {
          id: 'ctx_2',
          kind: 'decision',
          title: 'A',
          summary: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789',
          status: 'active',
          createdAt: '2025-01-01T00:00:00Z',
          updatedAt: '2025-01-01T00:00:00Z',
          observedAt: '2025-01-01T00:00:00Z',
          scopes: {},
          tags: [],
          entities: [],
          confidence: 0.7,
          importance: 0.5,
          trustLevel: 'medium',
          sources: [],
        },
      }),
    ).toMatch(/secret/);
  });
});

describe('exportItems / importItems', () => {
  it('export → import into an empty home → export gives the same items; re-import changes nothing', async () => {
    const a = tempProvider();
    const store = a.recordStore!;
    const work = tempDir();
    fs.writeFileSync(
      path.join(work, 'n.md'),
      'Alerts page the on-call engineer.\n\nDashboards live in Grafana.\n',
    );
    importCandidates(
      store,
      review(store, ingestPaths(store, [work]).candidates, { approvePassing: true }).candidates,
    );
    const x = store.add({
      kind: 'lesson_learned',
      title: 'Timeouts',
      summary: 'Always set a client timeout.',
    }).record;
    const y = store.add({ kind: 'decision', title: 'HTTP', summary: 'Use undici for HTTP.' }).record;
    store.link(x.id, y.id, 'related_to', 0.8);
    store.transition(y.id, 'archive', { reason: 'moved to fetch' });

    const first = [...exportItems(store)];
    expect(first.map((i) => i.type)).toEqual([
      'document',
      'segment',
      'segment',
      'record',
      'record',
      'record',
      'record',
      'edge',
      'edge',
    ]);
    const b = tempProvider();
    expect(importItems(b.recordStore!, JSON.parse(JSON.stringify(first)))).toEqual({
      documents: 1,
      segments: 2,
      records: 4,
      edges: 2,
      skipped: 0,
    });
    expect(JSON.stringify([...exportItems(b.recordStore!)])).toBe(JSON.stringify(first));
    expect(importItems(b.recordStore!, JSON.parse(JSON.stringify(first)))).toMatchObject({
      records: 0,
      skipped: 9,
    });
    expect(await b.prefetch('who do alerts page?')).toContain('on-call engineer');
    expect(b.recordStore!.get(y.id)).toMatchObject({ status: 'archived', statusReason: 'moved to fetch' });
  });

  it('a bad item means nothing is imported', () => {
    const b = tempProvider();
    const good = {
      type: 'record',
      record: {
        id: 'ctx_1',
        kind: 'decision',
        title: 'A',
        summary: 'A decision.',
        status: 'active',
        createdAt: '2025-01-01T00:00:00Z',
        updatedAt: '2025-01-01T00:00:00Z',
        observedAt: '2025-01-01T00:00:00Z',
        scopes: {},
        tags: [],
        entities: [],
        confidence: 0.7,
        importance: 0.5,
        trustLevel: 'medium',
        sources: [],
        skillLinks: [],
        details: null,
        expiresAt: null,
        statusReason: null,
        supersededBy: null,
      },
    };
    const secret = {
      ...good,
      record: { ...good.record, id: 'ctx_2', summary: 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789' },
    };
    expect(() => importItems(b.recordStore!, [good, secret])).toThrow(/item 2: .*secret/);
    expect(() => importItems(b.recordStore!, [good, { type: 'weird' }])).toThrow(/item 2: unknown item type/);
    expect(() =>
      importItems(b.recordStore!, [
        good,
        { type: 'edge', edge: { src: 'ctx_1', dst: 'ctx_9', relation: 'related_to', weight: 1 } },
      ]),
    ).toThrow(/not in the store/);
    expect(b.recordStore!.count('all')).toBe(0);
  });
});

/**
 * Imports wait out an agent's write lock with core's `importTransaction` (busy retry, then a clear
 * error with nothing written) instead of failing at once with "database is locked" (#12, #17).
 * Another connection holds the write lock; the store's own busy timeout is 0 so each attempt is
 * refused at once, and the injected sleep stands in for time passing (no real waiting).
 */
describe('imports under another writer’s lock', () => {
  const record = (id: string, summary: string) => ({
    type: 'record',
    record: {
      id,
      kind: 'decision',
      title: `Decision ${id}`,
      summary,
      status: 'active',
      createdAt: '2025-01-01T00:00:00Z',
      updatedAt: '2025-01-01T00:00:00Z',
      observedAt: '2025-01-01T00:00:00Z',
      scopes: {},
      tags: [],
      entities: [],
      confidence: 0.7,
      importance: 0.5,
      trustLevel: 'medium',
      sources: [],
    },
  });
  function lockedStore() {
    const file = path.join(tempDir(), 'continuity.db');
    const store = new ContinuityStore({ dbPath: file });
    store.db.pragma('busy_timeout = 0');
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    return { file, store, holder };
  }

  it('importItems waits until the other writer commits, then imports everything', () => {
    const { store, holder } = lockedStore();
    let sleeps = 0;
    const report = importItems(store, [record('ctx_1', 'Ship on Tuesdays.'), record('ctx_2', 'Use Loki.')], {
      now: () => 0,
      sleep: () => {
        if (++sleeps === 3) holder.exec('COMMIT');
      },
    });
    expect(report).toMatchObject({ records: 2, skipped: 0 });
    expect(sleeps).toBe(3);
    expect(store.count('all')).toBe(2);
    store.close();
    holder.close();
  });

  it('a lock held past the deadline is a clear error naming the file; nothing is imported', () => {
    const { file, store, holder } = lockedStore();
    let t = 0;
    let error: unknown;
    try {
      importItems(store, [record('ctx_1', 'Ship on Tuesdays.')], {
        timeoutMs: 5000,
        now: () => t,
        sleep: (ms) => {
          t += ms + 1000;
        },
      });
    } catch (e) {
      error = e;
    }
    expect(CliError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${file} stayed locked by another process for 5 s; nothing was imported into it. Retry when the agent is idle.`,
    );
    holder.exec('COMMIT');
    expect(store.count('all')).toBe(0);
    store.close();
    holder.close();
  });

  it('`continuity import` of reviewed candidates waits the same way', () => {
    const file = path.join(tempDir(), 'continuity.db');
    const store = new ContinuityStore({ dbPath: file });
    const work = tempDir();
    fs.writeFileSync(
      path.join(work, 'n.md'),
      'Alerts page the on-call engineer.\n\nDashboards live in Grafana.\n',
    );
    const candidates = review(store, ingestPaths(store, [work]).candidates, {
      approvePassing: true,
    }).candidates;
    store.db.pragma('busy_timeout = 0');
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    let sleeps = 0;
    const report = importCandidates(store, candidates, {
      now: () => 0,
      sleep: () => {
        if (++sleeps === 2) holder.exec('COMMIT');
      },
    });
    expect(report.imported).toBe(2);
    expect(sleeps).toBe(2);
    store.close();
    holder.close();
  });
});
