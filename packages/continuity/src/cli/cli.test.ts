import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCandidates } from '../ingest/import';
import { ingestPaths } from '../ingest/ingest';
import { review } from '../ingest/review';
import { tempDir, tempProvider } from '../test-helpers';
import { type CliContext, CliUsageError, runContinuityCli } from './commands';
import { exportItems, importItems } from './portable';

function cli(home: string) {
  const lines: string[] = [];
  const ctx: CliContext = { hermesHome: home, settings: { embeddings: false }, out: (t) => lines.push(t) };
  return {
    lines,
    run: (...argv: string[]) => runContinuityCli(argv, ctx),
    json: async (...argv: string[]) => {
      lines.length = 0;
      await runContinuityCli(argv, { ...ctx, json: true });
      return JSON.parse(lines.join('\n')) as Record<string, unknown>;
    },
  };
}

describe('hermes-memory continuity (CLI seam functions)', () => {
  it('ingest → review → import → explain, with 0600 review files', async () => {
    const home = tempDir();
    const work = tempDir();
    fs.writeFileSync(
      path.join(work, 'decisions.md'),
      '# Decisions\n\nDecision: the API is versioned in the URL path, never in headers.\n\nok\n',
    );
    const c = cli(home);
    const out = path.join(work, 'cands.jsonl');
    expect(await c.run('ingest', work, '--out', out)).toBe(0);
    expect(c.lines.join('\n')).toMatch(/2 candidate\(s\) from 1 document\(s\)/);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);

    const reviewed = await c.json('review', out, '--approve-passing');
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

    expect(await c.json('import', reviewed.approved_file as string)).toMatchObject({
      imported: 1,
      skipped: 0,
    });

    const p = tempProvider({}, { home });
    expect(await p.prefetch('is the API versioned in the URL path or headers?')).toContain(
      'versioned in the URL path',
    );
    p.shutdown();
    c.lines.length = 0;
    await c.run('explain');
    expect(c.lines.join('\n')).toMatch(/✓ ctx_[0-9a-f]+ Decisions\n\s+injected \(direct\)/);
    const now = await c.json('explain', 'thanks');
    expect(now).toMatchObject({ origin: 'explain', query_gate: 'low_information_query' });
  });

  it('maintenance: prune report, archive / restore, delete with --confirm, dream proposals', async () => {
    const home = tempDir();
    const p = tempProvider({}, { home });
    const id = p.recordStore!.add({ kind: 'decision', title: 'Logs', summary: 'Logs are shipped to Loki.' })
      .record.id;
    p.shutdown();
    const c = cli(home);
    expect(await c.json('maintenance', 'prune')).toMatchObject({ applied: false, expired: [], stale: [] });
    expect(await c.json('maintenance', 'archive', id, '--reason', 'moved to Grafana Cloud')).toEqual({
      record_id: id,
      status: 'archived',
    });
    expect(await c.json('maintenance', 'restore', id)).toEqual({ record_id: id, status: 'active' });
    expect(await c.json('maintenance', 'dream')).toMatchObject({ proposals: [] });
    await expect(c.run('maintenance', 'delete', id)).rejects.toThrow(CliUsageError);
    expect(await c.json('maintenance', 'delete', id, '--confirm')).toEqual({ record_id: id, deleted: true });
    await expect(c.run('maintenance', 'restore', id)).rejects.toThrow(/No record/);
  });

  it('usage errors are CliUsageError', async () => {
    const c = cli(tempDir());
    await expect(c.run()).rejects.toThrow(CliUsageError);
    await expect(c.run('frobnicate')).rejects.toThrow(/unknown command 'frobnicate'/);
    await expect(c.run('review')).rejects.toThrow(/one candidates file/);
    await expect(c.run('maintenance', 'prune', '--older-than-days', 'ten')).rejects.toThrow(/whole number/);
    await expect(c.run('ingest', '--bogus')).rejects.toThrow();
  });
});

describe('export / import', () => {
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
