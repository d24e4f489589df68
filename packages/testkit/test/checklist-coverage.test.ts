import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempHermesHome } from '../src';
import { afterAll, describe, expect, it } from 'vitest';

// scripts/checklist-coverage.mjs against a small committed spec (the real one lives in ../shared,
// which tests never read) and a repository written here: its test files are only read as text.
const script = path.resolve(__dirname, '../../../scripts/checklist-coverage.mjs');
const spec = path.resolve(__dirname, 'fixtures/checklist/spec');
const scratch = tempHermesHome('hm-checklist-');
afterAll(() => scratch.cleanup());
const repo = scratch.path;

const FILES: Record<string, string> = {
  'packages/acme/package.json': '{ "name": "@hermes-memory/acme", "hermesMemory": { "provider": "acme" } }',
  'packages/acme/src/acme.test.ts': [
    "describe('acme basics (§1.3.1, 3)', () => {",
    "  it('reads settings in order (checklist 2)', () => {});",
    "  it.each([1, 2])('§1.3.9 names an item the checklist does not have', () => {});",
    "  test(`§2.1.1 is another section's item and does not count here`, () => {});",
    '});',
  ].join('\n'),
  'packages/widget/package.json':
    '{ "name": "@hermes-memory/widget", "hermesMemory": { "provider": "widget" } }',
  'packages/widget/test/widget.test.ts': 'it("§2.1.1–2 starts and stops", () => {});',
  'docs/decisions/0001-acme-waivers.md': [
    '# 0001 — Acme: what is not tested, and why',
    '',
    '```checklist-waivers',
    '# file§section.items: reason',
    'plugins§1.3.4: needs a live Acme service; the fake has no context mode',
    'plugins.md§1.3.1: stale — item 1 is tested',
    '```',
    '',
    // A waiver block shown as an example inside a longer fence is text, not a waiver.
    '````md',
    '```checklist-waivers',
    'plugins§1.3.5: only an example',
    '```',
    '````',
    '',
  ].join('\n'),
};
for (const [file, text] of Object.entries(FILES)) {
  fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  fs.writeFileSync(path.join(repo, file), text);
}

function run(...args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args, '--spec-dir', spec, '--root', repo], {
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Each case starts node a few times; a loaded CI machine needs more than the default 5 s.
describe('scripts/checklist-coverage.mjs', { timeout: 60_000 }, () => {
  it("reports which items of a provider's checklist have a test, are waived or are missing", () => {
    const r = run('acme');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('plugins.md §1.3 Acceptance checklist — acme');
    // `§1.3.1, 3` in a describe title, bare `checklist 2` in the package's own tests.
    expect(lines[1]).toMatch(
      /^ {2}✓ {3}1 .*packages\/acme\/src\/acme\.test\.ts: "acme basics \(§1\.3\.1, 3\)"$/,
    );
    expect(lines[2]).toMatch(
      /^ {2}✓ {3}2 {2}Settings precedence: the host block beats the root value, which beats…/,
    );
    expect(lines[3]).toMatch(/^ {2}✓ {3}3 /);
    expect(lines[4]).toMatch(
      /^ {2}~ {3}4 .*waived \(docs\/decisions\/0001-acme-waivers\.md\): needs a live Acme service/,
    );
    expect(lines[5]).toMatch(/^ {2}✗ {3}5 {2}Shutdown drains the writer\.$/);
    expect(r.stdout).toContain('3/5 tested, 1 waived, 1 missing');
    // A test naming an item the checklist lacks, and a waiver for a tested item, are both flagged.
    expect(r.stdout).toContain('tests name items the checklist does not have: 9');
    expect(r.stdout).toContain('stale waiver plugins.md§1.3.1');
  });

  it('--json gives the same report; --strict exits 1 while anything is missing or stale', () => {
    const report = JSON.parse(run('acme', '--json').stdout);
    expect(report.counts).toEqual({ total: 5, tested: 3, waived: 1, missing: 1 });
    expect(report.items.map((i: { status: string }) => i.status)).toEqual([
      'tested',
      'tested',
      'tested',
      'waived',
      'missing',
    ]);
    expect(report.items[0].tests[0]).toEqual({
      file: 'packages/acme/src/acme.test.ts',
      title: 'acme basics (§1.3.1, 3)',
    });
    expect(run('acme', '--strict').code).toBe(1);
    expect(run('§2.1', '--package', 'widget', '--strict').code).toBe(0);
  });

  it('a section by file§number, ranges in titles, and --all and --list over the whole spec', () => {
    const widget = JSON.parse(run('plugins§2.1', '--package', 'widget', '--json').stdout);
    expect(widget.counts).toMatchObject({ tested: 2, missing: 0 });
    const core = JSON.parse(run('core.md§14', '--package', 'acme', '--json').stdout);
    // Continuous numbering across the plain-text groups; items after the next heading are not items.
    expect(core.items.map((i: { n: number }) => i.n)).toEqual([1, 2, 3]);
    const all = JSON.parse(run('--all', '--json').stdout);
    expect(all.map((r: { packages: string[] }) => r.packages[0])).toEqual(['acme', 'widget']);
    expect(run('--list').stdout).toBe(
      [
        'core§14                    3 items  14. Acceptance checklist (testable behaviours)',
        'plugins§1.3                5 items  1.3 Acceptance checklist — acme',
        'plugins§2.1                2 items  2.1 Acceptance checklist (Widget)',
        '',
      ].join('\n'),
    );
  });

  it('says what is wrong, with exit 2: no spec, an unknown target, a bad waiver', () => {
    const noSpec = spawnSync(
      process.execPath,
      [script, 'acme', '--spec-dir', path.join(repo, 'nowhere'), '--root', repo],
      {
        encoding: 'utf8',
      },
    );
    expect(noSpec.status).toBe(2);
    expect(noSpec.stderr).toMatch(
      /^checklist-coverage: no spec at .*nowhere: this script needs \.\.\/shared/,
    );
    expect(run('nobody')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("no acceptance checklist names 'nobody'"),
    });
    expect(run('core§14')).toMatchObject({ code: 2, stderr: expect.stringContaining('pass --package') });
    expect(run('plugins§9.9', '--package', 'acme').stderr).toContain(
      'no acceptance checklist at plugins§9.9',
    );

    const broken = path.join(repo, 'broken');
    fs.cpSync(path.join(repo, 'packages'), path.join(broken, 'packages'), { recursive: true });
    fs.cpSync(path.join(repo, 'docs'), path.join(broken, 'docs'), { recursive: true });
    fs.appendFileSync(
      path.join(broken, 'docs/decisions/0001-acme-waivers.md'),
      '\n```checklist-waivers\nplugins§1.3.5:\n```\n',
    );
    const bad = spawnSync(process.execPath, [script, 'acme', '--spec-dir', spec, '--root', broken], {
      encoding: 'utf8',
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("bad waiver line 'plugins§1.3.5:'");
  });
});
