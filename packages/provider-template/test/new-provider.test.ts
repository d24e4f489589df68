import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const repo = path.resolve(__dirname, '../../..');
const script = path.join(repo, 'scripts/new-provider.mjs');
const scratch = tempHermesHome('hm-new-provider-');
afterAll(() => scratch.cleanup());

const TEMPLATES = ['provider-template', 'provider-template-local'];

/** A throwaway repo root holding copies of both templates (no node_modules) and the base config. */
function fakeRepo(name: string): string {
  const root = path.join(scratch.path, name);
  fs.mkdirSync(path.join(root, 'packages'), { recursive: true });
  for (const template of TEMPLATES) {
    fs.cpSync(path.join(repo, 'packages', template), path.join(root, 'packages', template), {
      recursive: true,
      filter: (source) => !/(node_modules|dist|\.turbo)$/.test(source),
    });
  }
  for (const file of ['package.json', 'LICENSE', 'tsconfig.base.json', 'tsup.preset.ts']) {
    fs.copyFileSync(path.join(repo, file), path.join(root, file));
  }
  return root;
}

function run(args: string[]) {
  return spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
}

/** Link the generated package to the workspace's installed dependencies, as `pnpm install` would. */
function linkDependencies(root: string, dir: string, template: string): void {
  fs.symlinkSync(
    path.join(repo, 'packages', template, 'node_modules'),
    path.join(dir, 'node_modules'),
    'dir',
  );
  if (!fs.existsSync(path.join(root, 'node_modules')))
    fs.symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'), 'dir');
}

function typecheck(dir: string) {
  const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
  return spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
}

/** The environment of a nested vitest run: none of this run's worker variables. */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
}

describe('scripts/new-provider.mjs', () => {
  it('§13 a package generated with --remote passes its own tests: conformance with remote: true and the fault checks', () => {
    const root = fakeRepo('remote');
    const result = run(['acme', '--remote', '--root', root, '--description', 'Acme memory for Hermes.']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /\(\d+ files, remote\): @hermes-memory\/acme, AcmeProvider, tools acme_\*, env ACME_\*/,
    );
    const dir = path.join(root, 'packages/acme');

    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: '@hermes-memory/acme',
      version: '0.1.0',
      description: 'Acme memory for Hermes.',
      publishConfig: { access: 'public' },
      peerDependenciesMeta: { '@hermes-memory/testkit': { optional: true } },
    });
    expect(pkg.private).toBeUndefined();
    // Its command-line module on the provider seam comes along, declared and exported.
    expect(pkg.hermesMemory).toEqual({ provider: 'acme', cli: './cli' });
    expect(Object.keys(pkg.exports)).toEqual(['.', './testing', './cli', './package.json']);
    for (const file of [
      'LICENSE',
      'src/client.ts',
      'src/acme-provider.ts',
      'src/acme-settings.ts',
      'src/testing/index.ts',
      'src/testing/fake-acme.ts',
      'src/acme.conformance.test.ts',
      'src/cli/index.ts',
      'src/cli/cli.test.ts',
    ]) {
      expect(fs.existsSync(path.join(dir, file)), file).toBe(true);
    }
    expect(fs.existsSync(path.join(dir, 'test/new-provider.test.ts'))).toBe(false);
    const provider = fs.readFileSync(path.join(dir, 'src/acme-provider.ts'), 'utf8');
    expect(provider).toContain("readonly name = 'acme'");
    expect(provider).toContain('export class AcmeProvider');
    expect(fs.readFileSync(path.join(dir, 'src/client.ts'), 'utf8')).toContain('export class AcmeClient');
    const cli = fs.readFileSync(path.join(dir, 'src/cli/index.ts'), 'utf8');
    expect(cli).toContain("provider: 'acme'");
    expect(cli).toContain('Usage: hermes-memory acme check');
    expect(fs.readFileSync(path.join(dir, 'src/cli/connection.ts'), 'utf8')).toContain('ACME_API_KEY');
    const conformance = fs.readFileSync(path.join(dir, 'src/acme.conformance.test.ts'), 'utf8');
    expect(conformance).toContain('remote: true');
    expect(conformance).toContain('startFakeAcme');
    expect(spawnSync('grep', ['-rli', 'template', dir], { encoding: 'utf8' }).stdout).toBe('');

    linkDependencies(root, dir, 'provider-template');
    const checked = typecheck(dir);
    expect(checked.stdout + checked.stderr).toBe('');

    // Its own tests, as CI runs them: unit tests and the whole conformance kit against its fake.
    const reportFile = path.join(root, 'report.json');
    const vitest = spawnSync(
      process.execPath,
      [
        path.join(repo, 'node_modules/vitest/vitest.mjs'),
        'run',
        '--reporter=json',
        `--outputFile.json=${reportFile}`,
      ],
      { cwd: dir, encoding: 'utf8', env: childEnv(), maxBuffer: 64 * 1024 * 1024 },
    );
    expect(fs.existsSync(reportFile), `${vitest.stdout.slice(-2000)}\n${vitest.stderr.slice(-2000)}`).toBe(
      true,
    );
    const report = JSON.parse(fs.readFileSync(reportFile, 'utf8')) as {
      numFailedTests: number;
      numPassedTests: number;
      testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }>;
    };
    const tests = report.testResults.flatMap((file) => file.assertionResults);
    const failed = tests.filter((t) => t.status === 'failed').map((t) => t.fullName);
    expect(failed).toEqual([]);
    expect(vitest.status).toBe(0);
    const passed = new Set(tests.filter((t) => t.status === 'passed').map((t) => t.fullName));
    expect(
      [...passed].filter((name) => name.startsWith('hermes-memory acme (the ./cli module)')).length,
    ).toBeGreaterThan(3);
    for (const id of [
      'remote.backend-observable',
      'faults.tools-answer-json',
      'faults.prefetch-in-budget',
      'faults.sync-never-rejects',
      'faults.shutdown-deadline',
      'lifecycle.shutdown-deadline',
      'sync.non-blocking',
      'prefetch.serves-queued',
      'mirror.add-replace-remove',
      'safety.fence-escape',
      'safety.write-scanner',
    ]) {
      expect(
        [...passed].some((name) => name.includes(`memory provider conformance: acme ${id}:`)),
        `${id} passed`,
      ).toBe(true);
    }
  }, 600_000);

  it('--local copies the file-backed template, renamed, and it typechecks', () => {
    const root = fakeRepo('local');
    const result = run(['acme-notes', '--local', '--root', root]);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /local\): @hermes-memory\/acme-notes, AcmeNotesProvider, tools acme_notes_\*/,
    );
    const dir = path.join(root, 'packages/acme-notes');
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: '@hermes-memory/acme-notes',
      hermesMemory: { provider: 'acme-notes' },
    });
    expect(fs.existsSync(path.join(dir, 'src/client.ts'))).toBe(false);
    const settings = fs.readFileSync(path.join(dir, 'src/acme-notes-provider-settings.ts'), 'utf8');
    expect(settings).toContain('env.ACME_NOTES_MAX_RESULTS');
    expect(settings).toContain("'acme-notes-memory.jsonl'");
    // A fork keeps the write guard and the fence neutralisation (issue #12).
    const provider = fs.readFileSync(path.join(dir, 'src/acme-notes-provider.ts'), 'utf8');
    for (const guard of ['scanWriteInContext', 'neutralizeMemoryText', 'neutralizeToolResult']) {
      expect(provider).toContain(guard);
    }
    const index = fs.readFileSync(path.join(dir, 'src/index.ts'), 'utf8');
    expect(index).toContain('export function createAcmeNotesProvider');
    expect(index).toContain('export const createProvider = createAcmeNotesProvider;');
    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    expect(readme.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      '# @hermes-memory/acme-notes',
      '## Install',
      '## Quick start',
      '## Configuration',
      '## Tools',
      '## How it works',
      '## Compatibility with the Python reference',
      '## Benchmarks',
      '## License',
    ]);
    expect(spawnSync('grep', ['-rli', 'template', dir], { encoding: 'utf8' }).stdout).toBe('');
    linkDependencies(root, dir, 'provider-template-local');
    const checked = typecheck(dir);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  }, 120_000);

  it('refuses invalid ids, reserved names, unknown flags and existing folders', () => {
    const root = fakeRepo('refuse');
    for (const id of ['Acme', '1acme', 'acme_notes', 'acme--x', '', 'core', 'my-template', 'a'.repeat(41)]) {
      const result = run([id, '--root', root]);
      expect(result.status, id).toBe(1);
      expect(result.stderr).toMatch(/new-provider: (invalid id|an id is required)/);
    }
    const unknownFlag = run(['acme', '--bogus', '--root', root]);
    expect(unknownFlag.status).toBe(1);
    expect(unknownFlag.stderr).toMatch(/unexpected argument '--bogus'/);
    fs.mkdirSync(path.join(root, 'packages/taken'));
    const taken = run(['taken', '--root', root]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/packages\/taken already exists/);
    expect(fs.readdirSync(path.join(root, 'packages')).sort()).toEqual([...TEMPLATES, 'taken'].sort());
  }, 60_000);

  it('is the script behind `pnpm new:provider`', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
    expect(pkg.scripts['new:provider']).toBe('node scripts/new-provider.mjs');
  });
});
