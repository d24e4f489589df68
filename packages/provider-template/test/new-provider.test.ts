import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempHermesHome } from '@hermes-memory/testkit';
import { afterAll, describe, expect, it } from 'vitest';

const repo = path.resolve(__dirname, '../../..');
const script = path.join(repo, 'scripts/new-provider.mjs');
const scratch = tempHermesHome('hm-new-provider-');
afterAll(() => scratch.cleanup());

/** A throwaway repo root holding a copy of this package (no node_modules) and the base tsconfig. */
function fakeRepo(name: string): string {
  const root = path.join(scratch.path, name);
  fs.mkdirSync(path.join(root, 'packages'), { recursive: true });
  fs.cpSync(path.resolve(__dirname, '..'), path.join(root, 'packages/provider-template'), {
    recursive: true,
    filter: (source) => !/(node_modules|dist|\.turbo)$/.test(source),
  });
  for (const file of ['package.json', 'LICENSE', 'tsconfig.base.json', 'tsup.preset.ts']) {
    fs.copyFileSync(path.join(repo, file), path.join(root, file));
  }
  return root;
}

function run(args: string[]) {
  return spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });
}

describe('scripts/new-provider.mjs', () => {
  it('copies the template to packages/<id> with every identifier renamed, and it typechecks', () => {
    const root = fakeRepo('ok');
    const result = run(['acme-notes', '--root', root, '--description', 'Acme notes for Hermes memory.']);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /@hermes-memory\/acme-notes, AcmeNotesProvider, tools acme_notes_\*, env ACME_NOTES_\*/,
    );
    const dir = path.join(root, 'packages/acme-notes');

    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({
      name: '@hermes-memory/acme-notes',
      version: '0.1.0',
      description: 'Acme notes for Hermes memory.',
      hermesMemory: { provider: 'acme-notes' },
      publishConfig: { access: 'public' },
    });
    expect(pkg.private).toBeUndefined();

    const files = fs.readdirSync(path.join(dir, 'src')).sort();
    expect(files).toContain('acme-notes-provider.ts');
    expect(files).toContain('acme-notes.conformance.test.ts');
    expect(fs.existsSync(path.join(dir, 'test/new-provider.test.ts'))).toBe(false);

    const provider = fs.readFileSync(path.join(dir, 'src/acme-notes-provider.ts'), 'utf8');
    expect(provider).toContain("readonly name = 'acme-notes'");
    expect(provider).toContain('export class AcmeNotesProvider');
    expect(provider).toContain("'acme_notes_search'");
    const settings = fs.readFileSync(path.join(dir, 'src/acme-notes-provider-settings.ts'), 'utf8');
    expect(settings).toContain('env.ACME_NOTES_MAX_RESULTS');
    expect(settings).toContain("'acme-notes-memory.jsonl'");
    const index = fs.readFileSync(path.join(dir, 'src/index.ts'), 'utf8');
    expect(index).toContain('export function createAcmeNotesProvider');
    expect(index).toContain('export const createProvider = createAcmeNotesProvider;');

    const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
    const headings = readme.split('\n').filter((l) => l.startsWith('#'));
    expect(headings).toEqual([
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

    const grep = spawnSync('grep', ['-rli', 'template', dir], { encoding: 'utf8' });
    expect(grep.stdout).toBe('');

    // Typecheck the generated package against the real workspace dependencies.
    fs.symlinkSync(path.resolve(__dirname, '../node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    const tsc = path.join(repo, 'node_modules/typescript/bin/tsc');
    const typecheck = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], {
      encoding: 'utf8',
    });
    expect(typecheck.stdout + typecheck.stderr).toBe('');
    expect(typecheck.status).toBe(0);
  }, 60_000);

  it('refuses invalid ids, reserved names and existing folders', () => {
    const root = fakeRepo('refuse');
    for (const id of ['Acme', '1acme', 'acme_notes', 'acme--x', '', 'core', 'my-template', 'a'.repeat(41)]) {
      const result = run([id, '--root', root]);
      expect(result.status, id).toBe(1);
      expect(result.stderr).toMatch(/new-provider: (invalid id|an id is required)/);
    }
    fs.mkdirSync(path.join(root, 'packages/taken'));
    const taken = run(['taken', '--root', root]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/packages\/taken already exists/);
    expect(fs.readdirSync(path.join(root, 'packages')).sort()).toEqual(['provider-template', 'taken']);
  });

  it('is the script behind `pnpm new:provider`', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
    expect(pkg.scripts['new:provider']).toBe('node scripts/new-provider.mjs');
  });
});
