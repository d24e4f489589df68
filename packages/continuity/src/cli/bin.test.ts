import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../test-helpers';

/**
 * The built `hermes-memory` binary (`@hermes-memory/cli`) with this package installed in a project,
 * as a user runs it: discovery finds the package in the project's node_modules, loads its built
 * `./cli` module, and runs `hermes-memory continuity …`, `status`, `doctor` and `export` through it.
 */
const require = createRequire(import.meta.url);
const cliDir = path.dirname(require.resolve('@hermes-memory/cli/package.json'));
const BIN = path.join(
  cliDir,
  JSON.parse(fs.readFileSync(path.join(cliDir, 'package.json'), 'utf8')).bin['hermes-memory'],
);
const PACKAGE_DIR = path.resolve(__dirname, '../..');

/** A project folder with @hermes-memory/continuity installed (a link to this package, as pnpm makes). */
function project(): string {
  const dir = tempDir();
  fs.mkdirSync(path.join(dir, 'node_modules', '@hermes-memory'), { recursive: true });
  fs.symlinkSync(PACKAGE_DIR, path.join(dir, 'node_modules', '@hermes-memory', 'continuity'), 'dir');
  return dir;
}

function run(cwd: string, home: string, args: readonly string[]) {
  const r = spawnSync(process.execPath, [BIN, '--home', home, ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    timeout: 60_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('hermes-memory continuity through the built binary', () => {
  it('ingest → review → import → search, then status, doctor and export of the active provider', () => {
    expect(fs.existsSync(path.join(PACKAGE_DIR, 'dist', 'cli.js'))).toBe(true);
    const cwd = project();
    const home = tempDir();
    fs.writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  provider: continuity\n');
    const notes = path.join(cwd, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(
      path.join(notes, 'decisions.md'),
      '# Decisions\n\nDecision: the API is versioned in the URL path, never in headers.\n',
    );
    const out = path.join(cwd, 'cands.jsonl');

    const help = run(cwd, home, ['continuity', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/ingest\s/);
    const ingested = run(cwd, home, ['continuity', 'ingest', notes, '--out', out]);
    expect(ingested).toMatchObject({ code: 0, stderr: '' });
    expect(ingested.stdout).toMatch(/1 candidate\(s\) from 1 document\(s\)/);
    const reviewed = JSON.parse(
      run(cwd, home, ['continuity', 'review', out, '--approve-passing', '--json']).stdout,
    );
    expect(reviewed).toMatchObject({ total: 1, approved: 1 });
    const imported = run(cwd, home, ['continuity', 'import', reviewed.approved_file, '--json']);
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(imported.stdout)).toMatchObject({ imported: 1 });
    const found = JSON.parse(run(cwd, home, ['continuity', 'search', 'API versioning', '--json']).stdout);
    expect(found.count).toBe(1);
    expect(found.results[0].summary).toContain('versioned in the URL path');

    const db = path.join(home, 'continuity', 'continuity.db');
    expect(fs.statSync(db).mode & 0o777).toBe(0o600);
    const status = JSON.parse(run(cwd, home, ['status', '--json']).stdout);
    expect(status.provider).toMatchObject({ name: 'continuity', installed: true });
    expect(status.stores.find((s: { name: string }) => s.name === 'continuity.db')).toMatchObject({
      path: db,
      exists: true,
      detail: '1 active',
    });
    const doctor = JSON.parse(run(cwd, home, ['doctor', '--json']).stdout);
    const ours = doctor.checks.filter((c: { provider?: string }) => c.provider === 'continuity');
    expect(ours.map((c: { id: string; status: string }) => [c.id, c.status])).toEqual([
      ['continuity.symlinks', 'ok'],
      ['continuity.opens', 'ok'],
      ['continuity.schema', 'ok'],
      ['continuity.permissions', 'ok'],
      ['continuity.integrity', 'ok'],
    ]);
    const exported = run(cwd, home, ['export']);
    expect(exported.code).toBe(0);
    const records = exported.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.provider === 'continuity');
    expect(records.some((r) => JSON.stringify(r.data).includes('versioned in the URL path'))).toBe(true);

    // Outside the project the package is not installed, and config.yaml names it: one line that
    // says so and how to install it (31782bd; an unknown command before).
    const elsewhere = run(tempDir(), home, ['continuity', 'search', 'API']);
    expect(elsewhere.code).not.toBe(0);
    expect(elsewhere.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(elsewhere.stderr).toContain(
      "Memory provider 'continuity' not found. Install it (npm install @hermes-memory/continuity)",
    );
  }, 120_000);
});
