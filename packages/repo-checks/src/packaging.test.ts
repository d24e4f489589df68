import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildProblems,
  declarationImports,
  manifestProblems,
  peerRangeProblem,
  providerManifestProblems,
  relativeLinks,
} from './packaging-rules';
import { type WorkspacePackage, publicPackages, repoRoot, workspacePackages } from './workspace';

const workspace = workspacePackages() as WorkspacePackage[];
const published = publicPackages() as WorkspacePackage[];

describe('every public package (found on disk: "private" is not true)', () => {
  it('finds them', () => {
    expect(published.map((p) => p.manifest['name'])).toContain('@hermes-memory/core');
    expect(published.some((p) => p.manifest['name'] === '@hermes-memory/provider-template')).toBe(false);
  });

  it.each(published.map((p) => [p.manifest['name'] as string, p] as const))(
    '%s: links, license, files, README links, peer ranges',
    (_name, pkg) => {
      expect(manifestProblems(pkg, workspace)).toEqual([]);
    },
  );

  it.each(published.map((p) => [p.manifest['name'] as string, p] as const))(
    '%s: published paths exist, declarations import only what installs with it',
    (_name, pkg) => {
      expect(buildProblems(pkg)).toEqual([]);
    },
  );

  it.each(published.map((p) => [p.manifest['name'] as string, p] as const))(
    '%s: the build reports package.json’s version (no hand-kept copy)',
    async (_name, pkg) => {
      const dist = path.join(pkg.dir, 'dist');
      for (const file of fs.readdirSync(dist, { recursive: true, encoding: 'utf8' })) {
        if (/\.c?js$/.test(file)) {
          expect(fs.readFileSync(path.join(dist, file), 'utf8'), file).not.toContain('__PACKAGE_VERSION__');
        }
      }
      const mod = (await import(pathToFileURL(path.join(dist, 'index.js')).href)) as Record<string, unknown>;
      for (const [key, value] of Object.entries(mod)) {
        if (/(^|_)VERSION$/.test(key) && typeof value === 'string' && /^\d+\.\d+\.\d+/.test(value)) {
          expect(value, key).toBe(pkg.manifest['version']);
        }
      }
    },
  );
});

describe('the rules themselves', () => {
  it('flags relative README links, not absolute ones, anchors or code', () => {
    const md = [
      'See [docs](../../docs/x.md), [ok](https://github.com/a/b), [top](#install), <img src="logo.png">.',
      '`[not](a-link)` and',
      '```ts',
      "const x = '[no](link)';",
      '```',
      '[ref]: ./local.md',
    ].join('\n');
    expect(relativeLinks(md)).toEqual(['../../docs/x.md', './local.md', 'logo.png']);
  });

  it('holds peer ranges to the policy', () => {
    expect(peerRangeProblem('workspace:>=0.1.0 <1.0.0', '0.1.0')).toBeNull();
    expect(peerRangeProblem('workspace:^1.2.0', '1.4.0')).toBeNull();
    expect(peerRangeProblem('workspace:^', '0.1.0')).toMatch(/not a semver range/);
    expect(peerRangeProblem('workspace:^0.1.0', '0.1.0')).toMatch(/next minor 0\.2\.0/);
    expect(peerRangeProblem('workspace:>=0.1.0', '0.1.0')).toMatch(/next major 1\.0\.0/);
    expect(peerRangeProblem('workspace:>=0.2.0 <1.0.0', '0.1.0')).toMatch(/current version/);
    expect(peerRangeProblem('^0.1.0', '0.1.0')).toMatch(/workspace:/);
  });

  it('finds a version spelled in the source', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-rules-'));
    try {
      fs.mkdirSync(path.join(dir, 'src'));
      fs.writeFileSync(path.join(dir, 'src/index.ts'), "export const VERSION = '1.2.3';\n");
      fs.writeFileSync(path.join(dir, 'src/index.test.ts'), "expect(VERSION).toBe('1.2.3');\n");
      const pkg = {
        id: 'x',
        rel: 'packages/x',
        dir,
        manifest: { name: '@hermes-memory/x', version: '1.2.3' },
      };
      expect(manifestProblems(pkg, [pkg]).filter((p) => p.includes('spells the version'))).toEqual([
        "src/index.ts spells the version '1.2.3': use __PACKAGE_VERSION__ (tsup.preset.ts)",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a provider package declares its id, and a declared CLI module is an export in src/cli', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-rules-'));
    try {
      fs.mkdirSync(path.join(dir, 'src'));
      fs.writeFileSync(path.join(dir, 'src/index.ts'), 'export const createProvider = createAcmeProvider;\n');
      const pkg = (hermesMemory?: unknown, exports: unknown = { '.': './dist/index.js' }) => ({
        id: 'acme',
        rel: 'packages/acme',
        dir,
        manifest: { name: '@hermes-memory/acme', version: '0.1.0', exports, hermesMemory },
      });
      expect(providerManifestProblems(pkg())).toEqual([
        'hermesMemory.provider should be "acme" (a provider package declares its id), is undefined',
      ]);
      expect(providerManifestProblems(pkg({ provider: 'acme-memory' }))[0]).toContain('should be "acme"');
      expect(providerManifestProblems(pkg({ provider: 'acme' }))).toEqual([]);
      expect(providerManifestProblems(pkg({ provider: 'acme', localData: 'yes' }))).toEqual([
        'hermesMemory.localData is true or absent',
      ]);
      expect(providerManifestProblems(pkg({ provider: 'acme', cli: './cli' }))).toEqual([
        'hermesMemory.cli "./cli" is not a subpath of "exports"',
        'hermesMemory.cli is declared but src/cli/index.ts is missing',
      ]);
      fs.mkdirSync(path.join(dir, 'src/cli'));
      fs.writeFileSync(path.join(dir, 'src/cli/index.ts'), 'export default {};\n');
      const withCli = {
        '.': './dist/index.js',
        './cli': { types: './dist/cli/index.d.ts', import: './dist/cli/index.js' },
      };
      expect(providerManifestProblems(pkg({ provider: 'acme', cli: './cli' }, withCli))).toEqual([]);
      fs.writeFileSync(path.join(dir, 'src/index.ts'), 'export const VERSION = 1;\n');
      expect(providerManifestProblems(pkg())).toEqual([]); // not a provider, declares nothing
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the imports of a declaration file', () => {
    const dts = [
      '/// <reference types="node" />',
      "import Database from 'better-sqlite3';",
      "import { X } from '@scope/pkg/sub';",
      "export { Y } from './local';",
      "type Z = import('node:http').IncomingMessage;",
    ].join('\n');
    expect(declarationImports(dts).sort()).toEqual(['@scope/pkg/sub', 'better-sqlite3', 'node', 'node:http']);
  });
});

describe('pnpm new:provider', () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-born-compliant-'));
  afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('generates a package that is born compliant', () => {
    fs.mkdirSync(path.join(scratch, 'packages'));
    for (const file of ['package.json', 'LICENSE', 'tsconfig.base.json', 'tsup.preset.ts']) {
      fs.copyFileSync(path.join(repoRoot, file), path.join(scratch, file));
    }
    fs.cpSync(
      path.join(repoRoot, 'packages/provider-template'),
      path.join(scratch, 'packages/provider-template'),
      {
        recursive: true,
        filter: (source) => !/(node_modules|dist|\.turbo)$/.test(source),
      },
    );
    const result = spawnSync(
      process.execPath,
      [path.join(repoRoot, 'scripts/new-provider.mjs'), 'acme', '--root', scratch],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    const generated = workspacePackages(scratch).find((p) => p.id === 'acme') as WorkspacePackage;
    expect(generated.manifest['private']).toBeUndefined();
    expect(manifestProblems(generated, [...workspace, generated])).toEqual([]);
  });
});
